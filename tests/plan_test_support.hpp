#pragma once
// The launches that `plan` (and `run`) can reach, for tests that must cover every registered kernel
// generically, whatever families are registered: every point of every shipped config, plus, for
// every device variant of every family, every combination of the values of its axes that list legal
// values (compile-time template parameters are such axes), the other axes at their default.
#include "harness/sweep/config.hpp"
#include "data_dir.hpp"
#include "harness/family/registry.hpp"
#include "harness/sweep/sweep.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace occbench::test_support {

inline std::vector<std::string> shipped_configs() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(OCCBENCH_SOURCE_DIR) + "/configs"))
    if (entry.path().extension() == ".json" && entry.path().filename() != "schema.json") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The smallest legal value of an axis without a list: its default, else min raised to a multiple.
inline std::int64_t first_value(const Axis& axis) {
  if (axis.default_value) return *axis.default_value;
  std::int64_t m = std::max<std::int64_t>(axis.multiple_of, 1);
  return (axis.min + m - 1) / m * m;
}

struct ReachablePoint {
  Point point;
  std::string origin;  // the config file, or "legal values of <variant>"
};

inline std::vector<ReachablePoint> reachable_points(const Registry& registry) {
  std::vector<ReachablePoint> out;
  std::vector<std::pair<std::string, Params>> config_sizes;  // family -> sizes of its first shipped point
  for (const auto& path : shipped_configs()) {
    SweepSpec spec = parse_sweep_file(path, registry);
    for (auto& point : expand_sweep(spec, registry)) {
      if (std::none_of(config_sizes.begin(), config_sizes.end(), [&](const auto& e) { return e.first == spec.family; }))
        config_sizes.emplace_back(spec.family, point.sizes);
      out.push_back({std::move(point), path});
    }
  }
  for (const auto& family : registry.families()) {
    Params sizes;
    auto shipped = std::find_if(config_sizes.begin(), config_sizes.end(), [&](const auto& e) { return e.first == family.name; });
    if (shipped != config_sizes.end()) {
      sizes = shipped->second;
    } else {
      for (const auto& axis : family.size_axes) sizes.set(axis.name, first_value(axis));
    }
    if (family.check_sizes && !family.check_sizes(sizes).empty()) continue;
    for (const auto& variant : family.variants) {
      if (variant.executor != Executor::device || !variant.launch) continue;
      AxisValues axes;
      for (const auto& axis : variant.axes)
        axes.emplace_back(axis.name, axis.legal_values.empty() ? std::vector<std::int64_t>{first_value(axis)} : axis.legal_values);
      std::vector<Params> combos{sizes};
      for (const auto& [name, values] : axes) {
        std::vector<Params> next;
        for (const auto& base : combos)
          for (auto value : values) {
            Params p = base;
            p.set(name, value);
            next.push_back(p);
          }
        combos = std::move(next);
      }
      for (const auto& params : combos) {
        if (variant.check && !variant.check(params).empty()) continue;
        Point point;
        point.family = &family;
        point.variant = &variant;
        point.sizes = sizes;
        point.params = params;
        point.id = point_id(family.name, variant.name, params);
        out.push_back({std::move(point), "legal values of " + family.name + "/" + variant.name});
      }
    }
  }
  return out;
}

}  // namespace occbench::test_support
