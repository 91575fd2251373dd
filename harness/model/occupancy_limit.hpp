#pragma once
// The harness axis `occupancy_limit`: force any device variant (built-in or user kernel) down to a
// target number of resident blocks per SM without touching the kernel. The launch reserves extra
// dynamic shared memory per block (the "ballast", never read or written: a kernel's own extern
// array still starts at offset 0) so that the shared-memory limit allows exactly the target, with
// the kernel's shared-memory carveout set to the maximum so the per-SM capacity the arithmetic
// uses is the one the hardware is configured to.
//
// The arithmetic is the occupancy calculator's (cuda_occupancy.h): a block allocates
// round_up(static + dynamic + reserved per block, granularity) bytes and an SM holds
// floor(smem_per_sm / that) of them. The smallest allocation that lets in at most T blocks is
// round_up(floor(smem_per_sm / (T + 1)) + 1, granularity); it lets in exactly T when T of them fit.
#include "harness/model/occupancy.hpp"
#include "harness/family/harness_axes.hpp"
#include "harness/family/registry.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace occbench {

// The carveout the axis sets on a forced kernel (cudaFuncAttributePreferredSharedMemoryCarveout):
// the most shared memory, which is also what the calculator assumes for the default carveout.
inline constexpr int kForcedCarveoutPercent = 100;

struct Ballast {
  int target_blocks_per_sm = 0;
  int natural_blocks_per_sm = 0;          // the kernel's own launch, no ballast
  std::size_t ballast_bytes = 0;          // dynamic shared memory added to each block
  std::size_t smem_per_sm_bytes = 0;      // per-SM capacity at the forced carveout
  std::size_t allocation_granularity_bytes = 0;
  std::size_t allocated_smem_per_block_bytes = 0;  // with the ballast, as the calculator allocates it
  int forced_blocks_per_sm = 0;           // the calculator's answer with the ballast
  std::string skip_reason;                // why the target cannot be forced ("" when it can)
};

// The ballast that brings a launch of `threads_per_block` threads with `dynamic_smem_bytes` of its
// own to `target_blocks_per_sm`. A target above the natural occupancy, or one the shared-memory
// granularity cannot hit exactly, or one whose ballast would pass the per-block opt-in limit, gets
// a skip_reason. Pure (no GPU): `plan` uses it with the built-in GPU table.
Ballast plan_ballast(const SmLimits& device, const KernelResources& kernel, int threads_per_block,
                     std::size_t dynamic_smem_bytes, int target_blocks_per_sm);

// The point's occupancy_limit (if it has the axis) applied to its launch and result record, for
// `run` and `plan` alike: plan_ballast; a skip sets the record's status "skipped" and reason;
// otherwise the ballast is added to launch.dynamic_smem_bytes and record.launch shows it.
// Empty when the point has no occupancy_limit or has kUnforced.
std::optional<Ballast> add_ballast(const Params& params, const SmLimits& device, const KernelResources& kernel,
                                   LaunchSpec& launch, nlohmann::ordered_json& record);

// The record's occupancy.forced block.
nlohmann::ordered_json to_json(const Ballast& ballast, int api_active_blocks_per_sm);

}  // namespace occbench
