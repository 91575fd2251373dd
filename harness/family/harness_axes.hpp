#pragma once
// The axes the harness adds to every device variant besides its own (Variant::find_axis finds
// them; a point carries them only when the config or --set gives them values):
// `occupancy_limit`, which forces a launch down to a number of resident blocks per SM
// (harness/model/occupancy_limit.hpp sizes the ballast, harness/measure applies it), and
// `sm_clock_mhz`, the SM clock locked through NVML while the point is measured
// (harness/measure/sm_clock.hpp).
#include "harness/family/registry.hpp"

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

inline constexpr const char* kSmClockAxis = "sm_clock_mhz";
// sm_clock_mhz 0: the driver's default clocks (not locked), for comparison in the same sweep.
inline constexpr int kDefaultClocks = 0;
inline bool locks_sm_clock(const Params& params) {
  return params.has(kSmClockAxis) && params.get(kSmClockAxis) != kDefaultClocks;
}

// Whether `name` is a harness axis (not a kernel's own, e.g. in a user kernel's config).
bool is_harness_axis_name(std::string_view name);

// The harness axes of a variant: none for host variants.
const std::vector<Axis>& harness_axes(const Variant& variant);
const Axis* find_harness_axis(const Variant& variant, std::string_view axis_name);
// The variant's own launch axes followed by its harness axes.
std::vector<Axis> launch_axes_with_harness(const Variant& variant);

// Why a point with the axis is skipped when its variant launches no kernel of ours (a library call).
inline constexpr const char* kNoKernelToForce =
    "occupancy_limit needs the variant's own kernel; this variant launches none (a library call)";

}  // namespace occbench
