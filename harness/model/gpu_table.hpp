// The built-in GPU table for `occbench plan --gpu NAME` and `occbench plan --list-gpus`.
//
// Per-architecture limits: CUDA C++ Programming Guide, "Compute Capabilities" table, the
// Turing/Ampere/Ada/Hopper/Blackwell tuning guides and libcu++'s cuda::arch::traits; the
// allocation granularities are those of the toolkit's occupancy calculator (cuda_occupancy.h).
// Per-GPU figures (SM count, boost clock, memory bandwidth): NVIDIA datasheets.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model/occupancy.hpp"

namespace occbench {

struct GpuSpec {
  std::string key;              // short name used on the command line: "t4", "a100", ..., "h100", "b200"
  std::string name;             // marketing name, e.g. "NVIDIA H100 SXM5 80GB"
  std::string arch;             // "sm_90"
  std::vector<std::string> aliases;  // other names find_gpu accepts, e.g. what cudaGetDeviceProperties reports
  SmLimits limits;              // includes sm_count

  // Registers are allocated per warp: registers_per_thread * 32 rounded up to this many.
  int register_allocation_unit = 256;
  std::string register_allocation_granularity = "warp";
  int max_registers_per_thread = 255;
  // The register file is split evenly over this many SM sub-partitions (warp schedulers); a warp
  // takes its registers from one of them, and a block's registers are checked against
  // registers_per_block with its warps rounded up to a multiple of this.
  int register_file_partitions = 4;
  // Shared memory per block (static + dynamic + reserved) is rounded up to this.
  std::size_t smem_allocation_granularity_bytes = 128;
  // Shared-memory capacities per SM the unified L1/shared storage can be configured to, in KiB
  // (cudaFuncAttributePreferredSharedMemoryCarveout picks one; the default lets the driver use
  // the largest, limits.smem_per_sm_bytes).
  std::vector<int> smem_carveout_kib;

  double sm_clock_mhz = 0;            // boost clock
  double memory_bandwidth_gbps = 0;   // datasheet, GB/s = 1e9 B/s
  std::size_t memory_bytes = 0;       // datasheet capacity, for plan's "does it fit" check
  int fp32_lanes_per_sm = 0;          // FP32 FMA units per SM
  // The SM clocks NVML can lock it to (sm_clock_mhz), where read on one: every `step` MHz from
  // lowest to highest; empty where not known.
  struct ClockRange {
    int lowest_mhz = 0, highest_mhz = 0, step_mhz = 0;
  };
  std::optional<ClockRange> locked_sm_clocks;

  int max_warps_per_sm() const { return limits.max_threads_per_sm / limits.warp_size; }
  double peak_fp32_gflops() const;    // sm_count * lanes * 2 (an FMA is 2 FLOPs) * clock
};

const std::vector<GpuSpec>& gpu_table();
// The most memory any GPU of the table has: without a device, a problem larger than this cannot run anywhere.
std::size_t largest_gpu_memory_bytes();

// Case-insensitive: a key ("h100"), the marketing name, an alias ("NVIDIA H100 80GB HBM3"), or an
// architecture ("sm_90" -> the first GPU of that arch in the table). nullptr if none matches.
const GpuSpec* find_gpu(std::string_view key_or_name);

// Limits shared by all GPUs of an architecture (sm_count 0). Throws std::invalid_argument for an
// architecture the table does not cover (7.5, 8.0, 8.6, 8.9, 9.0, 10.0).
SmLimits sm_limits_for_arch(int major, int minor);

// A fixed-width text table of every GPU for `occbench plan --list-gpus`, followed by the
// shared-memory carveouts of each architecture.
std::string format_gpu_table();

}  // namespace occbench
