#include "harness/sweep/sweep.hpp"

#include "harness/model/occupancy_limit.hpp"
#include "harness/sweep/id_filter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace occbench {

AxisValues variant_axis_values(const SweepSpec& spec, const Variant& variant) {
  AxisValues chosen;
  // The variant's own axes, then the harness axes (harness/model/occupancy_limit) where given.
  for (const auto& axis : launch_axes_with_harness(variant)) {
    const std::vector<std::int64_t>* values = nullptr;
    for (const auto& [name, axes] : spec.variant_axes)
      if (name == variant.name)
        for (const auto& entry : axes)
          if (entry.first == axis.name) values = &entry.second;
    if (!values)
      for (const auto& entry : spec.axes)
        if (entry.first == axis.name) values = &entry.second;
    if (values) {
      chosen.emplace_back(axis.name, *values);
    } else if (axis.default_value) {
      chosen.emplace_back(axis.name, std::vector<std::int64_t>{*axis.default_value});
    }
  }
  return chosen;
}

namespace {

using ChecksByDepth = std::vector<std::vector<const Restriction*>>;

// For each depth of a variant's axes (0: the sizes alone), the restrictions that can be decided
// once the axes before it are bound: each as soon as the last name it uses is, so a combination a
// restriction rules out is cut with everything under it instead of being built and filtered. A
// restriction naming something the variant lacks does not constrain it; one naming nothing (a
// caller's condition) is decided on the whole point.
ChecksByDepth restrictions_by_depth(const std::vector<Restriction>& restrictions, const AxisValues& sizes, const AxisValues& axes) {
  ChecksByDepth by_depth(axes.size() + 1);
  auto position = [&](const std::string& name) -> std::optional<std::size_t> {
    for (const auto& [size, values] : sizes)
      if (size == name) return 0;
    for (std::size_t i = 0; i < axes.size(); ++i)
      if (axes[i].first == name) return i + 1;
    return std::nullopt;
  };
  for (const auto& r : restrictions) {
    std::size_t depth = r.uses.empty() ? axes.size() : 0;
    bool constrains = true;
    for (const auto& name : r.uses) {
      auto at = position(name);
      if (!at) constrains = false;
      else depth = std::max(depth, *at);
    }
    if (constrains) by_depth[depth].push_back(&r);
  }
  return by_depth;
}

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

}  // namespace

const Family* sweep_family(const SweepSpec& spec, const Registry& registry) {
  return spec.source_family ? spec.source_family.get() : registry.find(spec.family);
}

std::vector<Point> expand_sweep(const SweepSpec& spec, const Registry& registry, bool check_points) {
  const Family* family = sweep_family(spec, registry);
  if (!family) throw std::invalid_argument("unknown family " + spec.family);
  std::vector<Point> points;
  IdFilter filter = spec.selection.filter.empty() ? IdFilter() : IdFilter(spec.selection.filter);
  cartesian(spec.sizes, ChecksByDepth(spec.sizes.size() + 1), Params{}, 0, [&](const Params& sizes) {
    for (const auto& variant_name : spec.variants) {
      const Variant* variant = family->find_variant(variant_name);
      auto axes = variant_axis_values(spec, *variant);
      // Every axis of the variant's own needs values; harness axes (occupancy_limit) are optional.
      auto own_axes = std::count_if(axes.begin(), axes.end(),
                                    [&](const auto& entry) { return !find_harness_axis(*variant, entry.first); });
      if (check_points && std::size_t(own_axes) != variant->axes.size())
        throw std::invalid_argument("variant " + variant_name + " is missing axis values");
      cartesian(axes, restrictions_by_depth(spec.restrictions, spec.sizes, axes), sizes, 0, [&](const Params& params) {
        std::string id = point_id(family->name, variant->name, params);
        if (!filter.matches(id)) return;
        Point point;
        point.index = points.size();
        point.family = family;
        point.variant = variant;
        point.sizes = sizes;
        point.params = params;
        point.id = std::move(id);
        points.push_back(std::move(point));
      });
    }
  });
  return points;
}

std::vector<std::size_t> restriction_removals(const SweepSpec& spec, const Registry& registry, std::size_t& unrestricted) {
  SweepSpec all = spec;
  all.restrictions.clear();
  std::vector<Point> points = expand_sweep(all, registry, false);
  unrestricted = points.size();
  std::vector<std::size_t> removed(spec.restrictions.size(), 0);
  for (const auto& point : points)
    for (std::size_t i = 0; i < spec.restrictions.size(); ++i) removed[i] += !spec.restrictions[i].allows(point.params);
  return removed;
}

std::string restrictions_summary(const SweepSpec& spec, const Registry& registry) {
  if (spec.restrictions.empty()) return "";
  std::size_t unrestricted = 0;
  std::vector<std::size_t> removed = restriction_removals(spec, registry, unrestricted);
  std::size_t kept = expand_sweep(spec, registry).size();
  std::string text = fmt::format("restrictions: {} of {} point(s) kept\n", kept, unrestricted);
  for (std::size_t i = 0; i < removed.size(); ++i)
    text += fmt::format("  {} \"{}\" rules out {} point(s)\n", spec.restrictions[i].path, spec.restrictions[i].text, removed[i]);
  return text;
}

}  // namespace occbench
