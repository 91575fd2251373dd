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
#include "harness/family/registry.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace occbench {

inline constexpr const char* kOccupancyLimitAxis = "occupancy_limit";
// occupancy_limit 0: not forced (no ballast, the default carveout): the unchanged launch as a
// reference point in the same sweep, e.g. to see what the forced carveout alone costs.
inline constexpr int kUnforced = 0;
// The point asks for a forced occupancy (it has the axis with a value other than kUnforced).
inline bool forces_occupancy(const Params& params) {
  return params.has(kOccupancyLimitAxis) && params.get(kOccupancyLimitAxis) != kUnforced;
}

// The harness axes every device variant accepts besides its own (Variant::find_axis finds them;
// a point carries them only when the config or --set gives them values). None for host variants.
const std::vector<Axis>& harness_axes(const Variant& variant);
const Axis* find_harness_axis(const Variant& variant, std::string_view axis_name);
// The variant's own launch axes followed by its harness axes.
std::vector<Axis> launch_axes_with_harness(const Variant& variant);

// Why a point with the axis is skipped when its variant launches no kernel of ours (a library call).
inline constexpr const char* kNoKernelToForce =
    "occupancy_limit needs the variant's own kernel; this variant launches none (a library call)";

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

// On the GPU, before the ballasted launch: sets the kernel's carveout to kForcedCarveoutPercent and
// its maximum dynamic shared memory to `total_dynamic_smem_bytes`, then returns
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for that launch.
int apply_ballast(const void* kernel, int threads_per_block, std::size_t total_dynamic_smem_bytes);

// Puts back the default carveout on a kernel that an earlier point forced (no-op otherwise), so a
// point without the axis runs as it would alone.
void restore_default_carveout(const void* kernel);

// The record's occupancy.forced block.
nlohmann::ordered_json to_json(const Ballast& ballast, int api_active_blocks_per_sm);

}  // namespace occbench
