#pragma once
// Launchers of the timer's own kernels (harness/measure/timer_kernels.cu).
#include <cuda_runtime_api.h>

#include <cstddef>

namespace occbench {

// Reads `bytes` of `data` (a multiple of 16, 16-byte aligned) and writes nothing: the L2 ends up
// holding clean lines of `data` only. `sink` is one float the kernel could write but never does.
void launch_read_sweep(const void* data, std::size_t bytes, float* sink, int sm_count, cudaStream_t stream);

// Invalidates, without writing back, every L2 line of `data` (`bytes` a multiple of
// kL2DiscardLineBytes, `data` aligned to it): PTX discard.global.L2, sm_80 and newer; a no-op on
// older GPUs. `data`'s contents are undefined afterwards.
constexpr std::size_t kL2DiscardLineBytes = 128;
void launch_l2_discard(void* data, std::size_t bytes, cudaStream_t stream);

// One thread that spins for `microseconds` of GPU time (the global timer).
void launch_spin_kernel(double microseconds, cudaStream_t stream);

// The SM clock in MHz as the GPU runs it: one thread counts its SM's cycles over `microseconds`
// of the global timer (NVML's reading of the clock can lag a lock or reset by a second).
double measure_sm_clock_mhz(cudaStream_t stream, double microseconds = 1000);

// A kernel that does nothing: its event-pair time is the timing floor.
void launch_empty_kernel(cudaStream_t stream);

}  // namespace occbench
