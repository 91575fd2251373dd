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

}  // namespace

const std::vector<Axis>& harness_axes(const Variant& variant) {
  static const std::vector<Axis> none;
  static const std::vector<Axis> device_axes = {occupancy_limit_axis()};
  return variant.executor == Executor::device ? device_axes : none;
}

// Defined here, not in registry.cpp: a variant's axes are its own and the harness's.
const Axis* Variant::find_axis(std::string_view axis_name) const {
  for (const auto& axis : axes)
    if (axis.name == axis_name) return &axis;
  return find_harness_axis(*this, axis_name);  // occupancy_limit, on any device variant
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
