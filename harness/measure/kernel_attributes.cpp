#include "harness/measure/kernel_attributes.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/model/occupancy_limit.hpp"

#include <cuda_runtime_api.h>

#include <set>

namespace occbench {

namespace {
// Kernels whose carveout a point changed, to put back for points without the axis.
std::set<const void*>& forced_kernels() {
  static std::set<const void*> kernels;
  return kernels;
}
}  // namespace

KernelResources kernel_resources(const void* kernel) {
  cudaFuncAttributes attributes{};
  OCCBENCH_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  KernelResources k;
  k.registers_per_thread = attributes.numRegs;
  k.static_smem_bytes = attributes.sharedSizeBytes;
  k.local_bytes_per_thread = attributes.localSizeBytes;
  k.max_threads_per_block = attributes.maxThreadsPerBlock;
  k.max_dynamic_smem_bytes = std::size_t(attributes.maxDynamicSharedSizeBytes);
  return k;
}

int apply_ballast(const void* kernel, int threads_per_block, std::size_t total_dynamic_smem_bytes) {
  OCCBENCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, kForcedCarveoutPercent));
  forced_kernels().insert(kernel);
  cudaFuncAttributes attributes{};
  OCCBENCH_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  if (total_dynamic_smem_bytes > std::size_t(attributes.maxDynamicSharedSizeBytes))
    OCCBENCH_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(total_dynamic_smem_bytes)));
  int blocks = 0;
  OCCBENCH_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads_per_block, total_dynamic_smem_bytes));
  return blocks;
}

void restore_default_carveout(const void* kernel) {
  if (forced_kernels().erase(kernel) == 0) return;
  OCCBENCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutDefault));
}

}  // namespace occbench
