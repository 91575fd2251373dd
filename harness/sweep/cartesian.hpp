#pragma once
// The walk expand_sweep and CountedSweep share: the combinations of axes' values in sweep order,
// each restriction decided at the depth where the last name it reads is bound.
#include "harness/family/registry.hpp"
#include "harness/sweep/spec.hpp"

#include <cstddef>
#include <vector>

namespace occbench {

using ChecksByDepth = std::vector<std::vector<const Restriction*>>;

// For each depth of a variant's axes (0: the sizes alone), the restrictions that can be decided
// once the axes before it are bound: each as soon as the last name it uses is, so a combination a
// restriction rules out is cut with everything under it instead of being built and filtered. A
// restriction naming something the variant lacks does not constrain it; one naming nothing (a
// caller's condition) is decided on the whole point.
ChecksByDepth restrictions_by_depth(const std::vector<Restriction>& restrictions, const AxisValues& sizes, const AxisValues& axes);

// The variant's axis values as the walk takes them; with check_points, throws
// std::invalid_argument where one of the variant's own axes has none.
AxisValues walked_axis_values(const SweepSpec& spec, const Variant& variant, bool check_points);

// Calls visit(params) for every combination of the axes' values, the last axis varying fastest,
// cutting a combination as soon as one of checks[depth] rules it out (checks: one list per depth,
// axes.size() + 1 of them; empty lists for every combination).
template <typename Visit>
void cartesian(const AxisValues& axes, const ChecksByDepth& checks, Params params, std::size_t depth, Visit&& visit) {
  for (const Restriction* r : checks[depth])
    if (!r->allows(params)) return;
  if (depth == axes.size()) {
    visit(params);
    return;
  }
  for (auto value : axes[depth].second) {
    params.set(axes[depth].first, value);
    cartesian(axes, checks, params, depth + 1, visit);
  }
}

}  // namespace occbench
