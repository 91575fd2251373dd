#pragma once
// Every CUDA call and every launch goes through these, and so does every call of a CUDA library
// that returns its own status (cuBLAS, NVRTC): a failed call is an exception that names the call,
// its status and where it was made, never a silently wrong timing.
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
// A library's failed call: "cuBLAS error CUBLAS_STATUS_...: expression at file:line".
[[noreturn]] void throw_library_error(const char* library, const char* status, const char* expression, const char* file, int line);

// `status_name` gives the library's name of a status (cublasGetStatusName, nvrtcGetErrorString);
// the caller includes the library's header, so this one needs none of them.
template <typename Status, typename StatusName>
void check_library(Status status, Status success, StatusName status_name, const char* library, const char* expression,
                   const char* file, int line) {
  if (status != success) throw_library_error(library, status_name(status), expression, file, line);
}

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
// A cuBLAS call (include <cublas_v2.h>) and an NVRTC call (include <nvrtc.h>).
#define OCCBENCH_CUBLAS_CHECK(expr) \
  ::occbench::check_library((expr), CUBLAS_STATUS_SUCCESS, cublasGetStatusName, "cuBLAS", #expr, __FILE__, __LINE__)
#define OCCBENCH_NVRTC_CHECK(expr) \
  ::occbench::check_library((expr), NVRTC_SUCCESS, nvrtcGetErrorString, "NVRTC", #expr, __FILE__, __LINE__)
