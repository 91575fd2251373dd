#include "harness/core/cuda_check.hpp"

#include <fmt/format.h>

namespace occbench {

void throw_cuda_error(cudaError_t code, const char* expression, const char* file, int line) {
  throw CudaError(code, fmt::format("CUDA error {} ({}): {} at {}:{}", cudaGetErrorName(code),
                                    cudaGetErrorString(code), expression, file, line));
}

bool is_sticky_cuda_error(cudaError_t code) {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

}  // namespace occbench
