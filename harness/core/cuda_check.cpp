#include "harness/core/cuda_check.hpp"

#include <fmt/format.h>

namespace occbench {

void throw_cuda_error(cudaError_t code, const char* expression, const char* file, int line) {
  throw CudaError(code, fmt::format("CUDA error {} ({}): {} at {}:{}", cudaGetErrorName(code),
                                    cudaGetErrorString(code), expression, file, line));
}

}  // namespace occbench
