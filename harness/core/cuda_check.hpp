#pragma once
// Every CUDA call and every launch goes through these: a failed call is an exception that names
// the call and where it was made, never a silently wrong timing.
#include <cuda_runtime_api.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace occbench {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expression, const char* file, int line);

inline void check_cuda(cudaError_t code, const char* expression, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, expression, file, line);
}

// Why no GPU can be used ("no CUDA device: ..."), or nullopt when device 0.. exists.
std::optional<std::string> no_gpu_reason();

// Errors after which the CUDA context is unusable: nothing more can run in this process.
bool is_sticky_cuda_error(cudaError_t code);

}  // namespace occbench

#define OCCBENCH_CUDA_CHECK(expr) ::occbench::check_cuda((expr), #expr, __FILE__, __LINE__)
// After a <<<...>>> launch: catches bad launch configurations at once.
#define OCCBENCH_CHECK_LAUNCH() ::occbench::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
