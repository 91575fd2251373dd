#include "harness/sweep/sweep.hpp"

#include "harness/model/occupancy_limit.hpp"
#include "harness/sweep/cartesian.hpp"
#include "harness/sweep/counted_sweep.hpp"
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

AxisValues walked_axis_values(const SweepSpec& spec, const Variant& variant, bool check_points) {
  auto axes = variant_axis_values(spec, variant);
  // Every axis of the variant's own needs values; harness axes (occupancy_limit) are optional.
  auto own_axes = std::count_if(axes.begin(), axes.end(), [&](const auto& entry) { return !find_harness_axis(variant, entry.first); });
  if (check_points && std::size_t(own_axes) != variant.axes.size())
    throw std::invalid_argument("variant " + variant.name + " is missing axis values");
  return axes;
}

const Family* sweep_family(const SweepSpec& spec, const Registry& registry) {
  return spec.source_family ? spec.source_family.get() : registry.find(spec.family);
}

std::vector<Point> expand_sweep(const SweepSpec& spec, const Registry& registry, bool check_points) {
  const Family* family = sweep_family(spec, registry);
  if (!family) throw std::invalid_argument("unknown family " + spec.family);
  std::vector<Point> points;
  IdFilter filter = spec.selection.filter.empty() ? IdFilter() : IdFilter(spec.selection.filter);
  cartesian(spec.sizes, ChecksByDepth(spec.sizes.size() + 1), family->empty_params(), 0, [&](const Params& sizes) {
    for (const auto& variant_name : spec.variants) {
      const Variant* variant = family->find_variant(variant_name);
      auto axes = walked_axis_values(spec, *variant, check_points);
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

std::uint64_t count_sweep(const SweepSpec& spec, const Registry& registry, bool check_points) {
  if (CountedSweep::is_countable(spec)) return CountedSweep(spec, registry, check_points).size();
  return expand_sweep(spec, registry, check_points).size();  // a --filter matches ids one by one
}

std::vector<std::size_t> restriction_removals(const SweepSpec& spec, const Registry& registry, std::size_t& unrestricted) {
  SweepSpec one = spec;
  one.restrictions.clear();
  unrestricted = count_sweep(one, registry, false);
  // What a restriction rules out is what the sweep under it alone does not keep.
  std::vector<std::size_t> removed;
  for (const auto& restriction : spec.restrictions) {
    one.restrictions = {restriction};
    removed.push_back(unrestricted - count_sweep(one, registry, false));
  }
  return removed;
}

std::string restrictions_summary(const SweepSpec& spec, const Registry& registry) {
  if (spec.restrictions.empty()) return "";
  std::size_t unrestricted = 0;
  std::vector<std::size_t> removed = restriction_removals(spec, registry, unrestricted);
  std::uint64_t kept = count_sweep(spec, registry);
  std::string text = fmt::format("restrictions: {} of {} point(s) kept\n", kept, unrestricted);
  for (std::size_t i = 0; i < removed.size(); ++i)
    text += fmt::format("  {} \"{}\" rules out {} point(s)\n", spec.restrictions[i].path, spec.restrictions[i].text, removed[i]);
  return text;
}

namespace {

// "family/variant/n=4096/block_size=256" as its parts.
std::vector<std::string> id_parts(const std::string& id) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t slash; (slash = id.find('/', start)) != std::string::npos; start = slash + 1) parts.push_back(id.substr(start, slash - start));
  parts.push_back(id.substr(start));
  return parts;
}

// The values of `axes` in the id's parts from `next` on, each named as the axis is and among its
// values (a labelled axis's by their text).
bool read_axes(const std::vector<std::string>& parts, std::size_t& next, const AxisValues& axes, Params& params) {
  for (const auto& [name, values] : axes) {
    if (next >= parts.size() || parts[next].compare(0, name.size() + 1, name + "=") != 0) return false;
    auto value = params.value_of_text(name, parts[next++].substr(name.size() + 1));
    if (!value || std::find(values.begin(), values.end(), *value) == values.end()) return false;
    params.set(name, *value);
  }
  return true;
}

}  // namespace

std::optional<Point> point_with_id(const SweepSpec& spec, const Registry& registry, const std::string& id) {
  const Family* family = sweep_family(spec, registry);
  std::vector<std::string> parts = id_parts(id);
  if (!family || parts.size() < 2 || parts[0] != family->name) return std::nullopt;
  if (std::find(spec.variants.begin(), spec.variants.end(), parts[1]) == spec.variants.end()) return std::nullopt;
  Point point;
  point.family = family;
  point.variant = family->find_variant(parts[1]);
  point.sizes = family->empty_params();
  std::size_t next = 2;
  AxisValues axes = walked_axis_values(spec, *point.variant, false);
  if (!read_axes(parts, next, spec.sizes, point.sizes)) return std::nullopt;
  point.params = point.sizes;
  if (!read_axes(parts, next, axes, point.params) || next != parts.size()) return std::nullopt;
  for (const auto& r : spec.restrictions)
    if (!r.allows(point.params)) return std::nullopt;
  point.id = id;
  return point;
}

std::vector<Point> points_to_check(const SweepSpec& spec, const Registry& registry) {
  if (!CountedSweep::is_countable(spec)) return expand_sweep(spec, registry, false);
  CountedSweep counted(spec, registry, false);
  if (counted.size() <= kExpandedUpTo) return expand_sweep(spec, registry, false);
  std::vector<Point> points = counted.firsts_of_blocks();
  for (auto& point : counted.sample(kPointsCheckedOfALargerSweep, /*seed=*/0, true)) points.push_back(std::move(point));
  return points;
}

}  // namespace occbench
