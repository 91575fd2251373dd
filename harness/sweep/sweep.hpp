#pragma once
// Expands a sweep into points: sizes outermost, then variants, then each variant's launch axes.
// Only the points whose id the selection's --filter matches are kept.
#include "harness/sweep/config.hpp"
#include "harness/family/registry.hpp"

#include <string>
#include <vector>

namespace occbench {

struct Point {
  std::size_t index = 0;
  const Family* family = nullptr;
  const Variant* variant = nullptr;
  Params sizes;   // the family's size axes only
  Params params;  // sizes followed by the variant's launch axes
  std::string id; // "family/variant/n=16777216/block_size=256": stable key for resume and compare
};

std::string point_id(const std::string& family, const std::string& variant, const Params& params);

// The values a variant takes for each of its axes: its own override, else the shared list, else
// the axis default. Axes with none of these are left out (the config check reports them).
AxisValues variant_axis_values(const SweepSpec& spec, const Variant& variant);

// With check_points, each point's axes are all set (the config was validated).
// The sweep's family: its own (a config naming CUDA source) or the registry's built-in one.
const Family* sweep_family(const SweepSpec& spec, const Registry& registry);

std::vector<Point> expand_sweep(const SweepSpec& spec, const Registry& registry, bool check_points = true);

}  // namespace occbench
