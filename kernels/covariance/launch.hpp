#pragma once
// Launches a __global__ function chosen from a table (a template instantiation per tile size)
// with the grid, block and dynamic shared memory of a LaunchSpec. The argument types must match
// the kernel's parameters exactly.
#include "harness/core/cuda_check.hpp"
#include "harness/family/registry.hpp"

namespace occbench::covariance {

template <typename... Args>
void launch_kernel(const void* kernel, const LaunchSpec& l, cudaStream_t stream, Args... args) {
  void* arguments[] = {static_cast<void*>(&args)...};
  OCCBENCH_CUDA_CHECK(cudaLaunchKernel(kernel, dim3(l.grid.x, l.grid.y, l.grid.z), dim3(l.block.x, l.block.y, l.block.z),
                                       arguments, l.dynamic_smem_bytes, stream));
}

}  // namespace occbench::covariance
