#include "harness/core/cuda_check.hpp"

#include <fmt/format.h>

namespace occbench {

void throw_library_error(const char* library, const char* status, const char* expression, const char* file, int line) {
  throw std::runtime_error(fmt::format("{} error {}: {} at {}:{}", library, status, expression, file, line));
}

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

std::optional<std::string> no_gpu_reason() {
  int count = 0;
  cudaError_t code = cudaGetDeviceCount(&count);
  if (code != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later queries start clean
    const char* hint = code == cudaErrorInsufficientDriver || code == cudaErrorNoDevice
                           ? " - no NVIDIA driver or GPU here, or a driver older than this CUDA runtime"
                           : "";
    return fmt::format("no CUDA device: cudaGetDeviceCount failed with {}{}", cudaGetErrorName(code), hint);
  }
  if (count == 0) return std::string("no CUDA device: the driver reports 0 devices");
  return std::nullopt;
}

}  // namespace occbench
