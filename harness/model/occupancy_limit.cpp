#include "harness/model/occupancy_limit.hpp"
#include "harness/model/occupancy.hpp"


#include <cuda_occupancy.h>
#include <fmt/format.h>


namespace occbench {

namespace {

// The calculator's own constant for the architecture (128 B on sm_80+, 256 B before).
std::size_t smem_granularity(const SmLimits& d) {
  cudaOccDeviceProp p;
  p.computeMajor = d.compute_major;
  p.computeMinor = d.compute_minor;
  int granularity = 0;
  if (cudaOccSMemAllocationGranularity(&granularity, &p) != CUDA_OCC_SUCCESS) return 0;
  return std::size_t(granularity);
}

std::string limiter_text(const OccupancyResult& o) { return o.limiter.empty() ? "nothing" : o.limiter; }

}  // namespace

Ballast plan_ballast(const SmLimits& d, const KernelResources& k, int threads_per_block, std::size_t dynamic_smem_bytes,
                     int target_blocks_per_sm) {
  Ballast b;
  b.target_blocks_per_sm = target_blocks_per_sm;
  // At the maximum carveout the per-SM capacity is the SM's whole shared memory, the same figure
  // the calculator uses for the default carveout (cudaOccSMemPreferenceVoltaPlus).
  b.smem_per_sm_bytes = d.smem_per_sm_bytes;
  b.allocation_granularity_bytes = smem_granularity(d);
  const OccupancyResult natural = compute_occupancy(d, k, threads_per_block, dynamic_smem_bytes);
  b.natural_blocks_per_sm = natural.active_blocks_per_sm;
  b.allocated_smem_per_block_bytes = natural.allocated_smem_per_block_bytes;
  b.forced_blocks_per_sm = natural.active_blocks_per_sm;
  const int target = target_blocks_per_sm;
  if (target < 1) {
    b.skip_reason = fmt::format("occupancy_limit {} is not a number of blocks per SM (expected 1 or more)", target);
    return b;
  }
  if (natural.active_blocks_per_sm == 0) {
    b.skip_reason = "the launch cannot run at all, so no occupancy can be forced";
    return b;
  }
  if (target > natural.active_blocks_per_sm) {
    b.skip_reason = fmt::format(
        "occupancy_limit {} blocks per SM is above this launch's natural occupancy of {} blocks per SM (limited by {}); "
        "ballast can only lower occupancy",
        target, natural.active_blocks_per_sm, limiter_text(natural));
    return b;
  }
  if (target == natural.active_blocks_per_sm) return b;  // already there: no ballast

  const std::size_t granularity = b.allocation_granularity_bytes;
  const std::size_t own_bytes = k.static_smem_bytes + dynamic_smem_bytes + d.reserved_smem_per_block_bytes;
  // The smallest allocation per block that lets at most `target` blocks share the SM.
  const std::size_t needed = round_up(d.smem_per_sm_bytes / std::size_t(target + 1) + 1, granularity);
  if (needed * std::size_t(target) > d.smem_per_sm_bytes) {
    b.skip_reason = fmt::format(
        "occupancy_limit {} cannot be hit exactly: with {} B granules per block, {} B per SM holds {} blocks of {} B "
        "and fewer of {} B",
        target, granularity, d.smem_per_sm_bytes, target + 1, needed - granularity, needed);
    return b;
  }
  // The kernel's own allocation is below `needed`, else its shared-memory limit would already be
  // at most `target` and the natural occupancy with it.
  b.ballast_bytes = needed - own_bytes;
  const std::size_t total_per_block = k.static_smem_bytes + dynamic_smem_bytes + b.ballast_bytes;
  if (total_per_block > d.smem_per_block_optin_bytes) {
    b.skip_reason = fmt::format("occupancy_limit {} needs {} B of shared memory per block, over the opt-in limit of {} B",
                                target, total_per_block, d.smem_per_block_optin_bytes);
    return b;
  }
  const OccupancyResult forced = compute_occupancy(d, k, threads_per_block, dynamic_smem_bytes + b.ballast_bytes);
  b.forced_blocks_per_sm = forced.active_blocks_per_sm;
  b.allocated_smem_per_block_bytes = forced.allocated_smem_per_block_bytes;
  if (forced.active_blocks_per_sm != target)
    b.skip_reason = fmt::format("a ballast of {} B gives {} blocks per SM in the occupancy calculator, not {}",
                                b.ballast_bytes, forced.active_blocks_per_sm, target);
  return b;
}

std::optional<Ballast> add_ballast(const Params& params, const SmLimits& device, const KernelResources& kernel,
                                   LaunchSpec& launch, nlohmann::ordered_json& record) {
  if (!forces_occupancy(params)) return std::nullopt;
  Ballast b = plan_ballast(device, kernel, int(launch.block.count()), launch.dynamic_smem_bytes,
                           int(params.get(kOccupancyLimitAxis)));
  if (!b.skip_reason.empty()) {
    record["status"] = "skipped";
    record["reason"] = b.skip_reason;
    return b;
  }
  launch.dynamic_smem_bytes += b.ballast_bytes;
  record["launch"]["dynamic_smem_bytes"] = launch.dynamic_smem_bytes;
  record["launch"]["ballast_bytes"] = b.ballast_bytes;
  return b;
}

nlohmann::ordered_json to_json(const Ballast& b, int api_active_blocks_per_sm) {
  return {{"method", "dynamic_shared_memory_ballast"},
          {"target_blocks_per_sm", b.target_blocks_per_sm},
          {"natural_blocks_per_sm", b.natural_blocks_per_sm},
          {"ballast_bytes", b.ballast_bytes},
          {"carveout_percent", kForcedCarveoutPercent},
          {"smem_per_sm_bytes", b.smem_per_sm_bytes},
          {"allocation_granularity_bytes", b.allocation_granularity_bytes},
          {"allocated_smem_per_block_bytes", b.allocated_smem_per_block_bytes},
          {"calculator_blocks_per_sm", b.forced_blocks_per_sm},
          {"api_active_blocks_per_sm", api_active_blocks_per_sm},
          {"api_agrees", api_active_blocks_per_sm == b.target_blocks_per_sm}};
}

}  // namespace occbench
