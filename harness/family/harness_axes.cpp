#include "harness/family/harness_axes.hpp"


namespace occbench {

namespace {

Axis occupancy_limit_axis() {
  Axis a;
  a.name = kOccupancyLimitAxis;
  a.description =
      "harness axis: target resident blocks per SM, forced with dynamic shared-memory ballast "
      "(any device variant; targets above the launch's natural occupancy are skipped; 0: the launch as it is, "
      "default carveout, for comparison in the same sweep)";
  a.min = 0;
  a.max = 32;
  return a;
}

Axis sm_clock_axis() {
  Axis a;
  a.name = kSmClockAxis;
  a.description =
      "harness axis: the SM clock in MHz, locked through NVML while the point is measured and restored after "
      "(any device variant; values the GPU does not support are refused before the run; where locking is not "
      "permitted the points are skipped; 0: the driver's default clocks)";
  a.min = 0;
  a.max = 10000;
  return a;
}

}  // namespace

bool is_harness_axis_name(std::string_view name) { return name == kOccupancyLimitAxis || name == kSmClockAxis; }

const std::vector<Axis>& harness_axes(const Variant& variant) {
  static const std::vector<Axis> none;
  static const std::vector<Axis> device_axes = {occupancy_limit_axis(), sm_clock_axis()};
  return variant.executor == Executor::device ? device_axes : none;
}

// Defined here, not in registry.cpp: a variant's axes are its own and the harness's.
const Axis* Variant::find_axis(std::string_view axis_name) const {
  for (const auto& axis : axes)
    if (axis.name == axis_name) return &axis;
  return find_harness_axis(*this, axis_name);  // occupancy_limit, sm_clock_mhz, on any device variant
}

const Axis* find_harness_axis(const Variant& variant, std::string_view axis_name) {
  for (const auto& a : harness_axes(variant))
    if (a.name == axis_name) return &a;
  return nullptr;
}

std::vector<Axis> launch_axes_with_harness(const Variant& variant) {
  std::vector<Axis> axes = variant.axes;
  axes.insert(axes.end(), harness_axes(variant).begin(), harness_axes(variant).end());
  return axes;
}

}  // namespace occbench
