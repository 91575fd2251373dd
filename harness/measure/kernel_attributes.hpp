#pragma once
// What the CUDA runtime says of a kernel and sets on it: its resources (cudaFuncGetAttributes),
// and the carveout and dynamic shared-memory limit a forced occupancy needs
// (harness/model/occupancy_limit.hpp sizes the ballast; this applies it on the GPU).
#include "harness/model/occupancy.hpp"

#include <cstddef>

namespace occbench {

KernelResources kernel_resources(const void* kernel);

// Before the ballasted launch: sets the kernel's carveout to kForcedCarveoutPercent and its
// maximum dynamic shared memory to `total_dynamic_smem_bytes`, then returns
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for that launch.
int apply_ballast(const void* kernel, int threads_per_block, std::size_t total_dynamic_smem_bytes);

// Puts back the default carveout on a kernel that an earlier point forced (no-op otherwise), so a
// point without the axis runs as it would alone.
void restore_default_carveout(const void* kernel);

}  // namespace occbench
