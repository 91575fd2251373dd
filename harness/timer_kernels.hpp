#pragma once
// Launchers of the timer's own kernels (harness/timer_kernels.cu).
#include <cuda_runtime_api.h>

#include <cstddef>

namespace occbench {

// Reads `bytes` of `data` (a multiple of 16, 16-byte aligned) and writes nothing: the L2 ends up
// holding clean lines of `data` only. `sink` is one float the kernel could write but never does.
void launch_read_sweep(const void* data, std::size_t bytes, float* sink, int sm_count, cudaStream_t stream);

// A kernel that does nothing: its event-pair time is the timing floor.
void launch_empty_kernel(cudaStream_t stream);

}  // namespace occbench
