#pragma once
// Measured ceilings of the memory levels above DRAM, for the hierarchical roofline: L2 read
// bandwidth (a buffer that fits in the L2, read over and over by every SM) and shared-memory read
// bandwidth (conflict-free 16-byte loads from each block's shared array). Both in GB/s (1e9 B/s)
// of bytes the kernels read, the median of several timed launches (cudaEvents).
#include <cstddef>

namespace occbench {

// `l2_bytes`: the device's L2 size; the probe reads a quarter of it (resident in either partition).
double measure_l2_bandwidth_gbps(std::size_t l2_bytes, int sm_count, int repetitions);
double measure_smem_bandwidth_gbps(int sm_count, int repetitions);

}  // namespace occbench
