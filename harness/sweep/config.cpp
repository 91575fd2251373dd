#include "harness/sweep/config.hpp"

#include "harness/family/host_hooks.hpp"

#include "harness/model/gpu_table.hpp"
#include "harness/model/occupancy_limit.hpp"
#include "harness/sweep/source_config.hpp"
#include "harness/sweep/axis_labels.hpp"
#include "harness/sweep/source_family.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/core/files.hpp"
#include "harness/core/json.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace occbench {

using json = nlohmann::ordered_json;

namespace {

const char* type_name(const json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number_float()) return "a fractional number";
  return value.type_name();
}

class Checker {
 public:
  explicit Checker(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& expected) const {
    throw ConfigError(source_, path, expected);
  }

  void only_keys(const json& object, const std::string& path, const std::vector<std::string>& allowed) const {
    for (const auto& item : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end())
        fail(path + "." + item.key(),
             fmt::format("unknown key '{}'; valid keys here: {}", item.key(), fmt::join(allowed, ", ")));
    }
  }

  const json& object(const json& value, const std::string& path) const {
    if (!value.is_object()) fail(path, fmt::format("expected an object, got {}", type_name(value)));
    return value;
  }

  std::string string(const json& value, const std::string& path) const {
    if (!value.is_string()) fail(path, fmt::format("expected a string, got {}", type_name(value)));
    return value.get<std::string>();
  }

  std::int64_t integer(const json& value, const std::string& path, std::int64_t min,
                       std::int64_t max = std::numeric_limits<std::int64_t>::max()) const {
    if (!value.is_number_integer())
      fail(path, fmt::format("expected an integer, got {}", type_name(value)));
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > std::uint64_t(max))
      fail(path, fmt::format("expected an integer at most {}, got {}", max, value.dump()));
    auto v = value.get<std::int64_t>();
    if (v < min || v > max)
      fail(path, fmt::format("expected an integer in [{}, {}], got {}", min, max, v));
    return v;
  }

  double number(const json& value, const std::string& path, double min, double max, bool min_exclusive) const {
    if (!value.is_number()) fail(path, fmt::format("expected a number, got {}", type_name(value)));
    auto v = value.get<double>();
    bool low = min_exclusive ? v <= min : v < min;
    if (low || v > max)
      fail(path, fmt::format("expected a number in {}{}, {}], got {}", min_exclusive ? "(" : "[", min, max, v));
    return v;
  }

  // A labelled axis's value: its position among the labels (parse_axis_labels made them of every value).
  std::int64_t label_of(const json& value, const std::string& path, const Axis& axis) const {
    std::optional<std::int64_t> position = label_position(axis.labels, value);
    if (!position) fail(path, fmt::format("expected a value of '{}' (an integer, a number, a string or true/false), got {}", axis.name, value.dump()));
    return *position;
  }

  // A list of values for one axis: non-empty, no duplicates, each legal for the axis (integers, or a
  // labelled axis's values as their positions).
  std::vector<std::int64_t> axis_values(const json& value, const std::string& path, const Axis& axis) const {
    if (!value.is_array())
      fail(path, fmt::format("expected a list of values for '{}' ({}), got {}", axis.name,
                             axis.describe_legal(), type_name(value)));
    if (value.empty()) fail(path, fmt::format("the list of values for '{}' is empty; give at least one ({})",
                                              axis.name, axis.describe_legal()));
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < value.size(); ++i) {
      std::string item_path = fmt::format("{}[{}]", path, i);
      auto v = axis.labels.empty() ? integer(value[i], item_path, std::numeric_limits<std::int64_t>::min()) : label_of(value[i], item_path, axis);
      std::string problem = axis.check(v);
      if (!problem.empty()) fail(item_path, problem);
      if (std::find(values.begin(), values.end(), v) != values.end())
        fail(item_path, fmt::format("{} appears twice in the list for '{}'", value[i].dump(), axis.name));
      values.push_back(v);
    }
    return values;
  }

 private:
  std::string source_;
};

MeasurementSettings parse_measurement(const json& value, const std::string& path, const Checker& check) {
  MeasurementSettings m;
  check.object(value, path);
  check.only_keys(value, path,
                  {"mode", "warmup_runs", "min_samples", "max_samples", "target_noise", "min_time_s", "timeout_s", "seed", "counters",
                   "profiled_samples", "instrumented_max_kernel_ms", "counters_l2_flush", "energy", "energy_window_s"});
  if (value.contains("mode")) {
    m.mode = check.string(value["mode"], path + ".mode");
    if (m.mode != "cold" && m.mode != "hot" && m.mode != "batch")
      check.fail(path + ".mode", fmt::format("expected \"cold\", \"hot\" or \"batch\", got \"{}\"", m.mode));
  }
  if (value.contains("warmup_runs")) m.warmup_runs = int(check.integer(value["warmup_runs"], path + ".warmup_runs", 0, 1000));
  if (value.contains("min_samples")) m.min_samples = int(check.integer(value["min_samples"], path + ".min_samples", 1, 1000000));
  if (value.contains("max_samples")) m.max_samples = int(check.integer(value["max_samples"], path + ".max_samples", 1, 1000000));
  if (m.max_samples < m.min_samples)
    check.fail(path + ".max_samples", fmt::format("expected max_samples >= min_samples ({}), got {}", m.min_samples, m.max_samples));
  if (value.contains("target_noise")) m.target_noise = check.number(value["target_noise"], path + ".target_noise", 0, 1, true);
  if (value.contains("min_time_s")) m.min_time_s = check.number(value["min_time_s"], path + ".min_time_s", 0, 3600, false);
  if (value.contains("timeout_s")) m.timeout_s = check.number(value["timeout_s"], path + ".timeout_s", 0, 3600, true);
  if (value.contains("seed")) m.seed = std::uint64_t(check.integer(value["seed"], path + ".seed", 0));
  auto flag = [&](const char* key, bool& slot) {
    if (!value.contains(key)) return;
    if (!value[key].is_boolean()) check.fail(path + "." + key, fmt::format("expected true or false, got {}", type_name(value[key])));
    slot = value[key].get<bool>();
  };
  flag("counters", m.counters);
  flag("energy", m.energy);
  // At least one update period of the counter (100 ms on an H100); longer windows average more steps.
  if (value.contains("energy_window_s")) m.energy_window_s = check.number(value["energy_window_s"], path + ".energy_window_s", 0.05, 60, false);
  // A profiled collection holds the samples' flush and kernel ranges: at most 512 (harness/measure/counters).
  if (value.contains("profiled_samples"))
    m.profiled_samples = int(check.integer(value["profiled_samples"], path + ".profiled_samples", 0, 100));
  if (value.contains("instrumented_max_kernel_ms"))
    m.instrumented_max_kernel_ms =
        check.number(value["instrumented_max_kernel_ms"], path + ".instrumented_max_kernel_ms", 0, 3600e3, false);
  if (value.contains("counters_l2_flush")) {
    m.counters_l2_flush = check.string(value["counters_l2_flush"], path + ".counters_l2_flush");
    if (m.counters_l2_flush != "per_launch" && m.counters_l2_flush != "per_kernel")
      check.fail(path + ".counters_l2_flush",
                 fmt::format("expected \"per_launch\" or \"per_kernel\", got \"{}\"", m.counters_l2_flush));
  }
  return m;
}

// The axes of a variant-axes or shared-axes object, each checked against `accepts`.
AxisValues parse_axes(const json& value, const std::string& path, const Checker& check,
                      const std::function<const Axis*(const std::string&)>& find_axis,
                      const std::vector<std::string>& valid_names) {
  check.object(value, path);
  AxisValues axes;
  for (const auto& item : value.items()) {
    const Axis* axis = find_axis(item.key());
    if (!axis)
      check.fail(path + "." + item.key(), fmt::format("unknown axis '{}'; valid axes here: {}", item.key(),
                                                      valid_names.empty() ? "(none)" : fmt::format("{}", fmt::join(valid_names, ", "))));
    axes.emplace_back(item.key(), check.axis_values(item.value(), path + "." + item.key(), *axis));
  }
  return axes;
}

bool overridden(const SweepSpec& spec, const std::string& variant, const std::string& axis) {
  for (const auto& [name, axes] : spec.variant_axes)
    if (name == variant)
      for (const auto& entry : axes)
        if (entry.first == axis) return true;
  return false;
}

}  // namespace

namespace {

// The sweep's family: built from the CUDA source the config names ("source"), or a built-in one.
const Family* parse_family(const json& doc, const Checker& check, const Registry& registry, SweepSpec& spec) {
  if (doc.contains("source")) {
    // Files it names are relative to the config's folder (also for a config stored in a .jsonl).
    spec.source_family = build_source_family(doc, spec.source);
    spec.family = spec.source_family->name;
    return spec.source_family.get();
  }
  if (!doc.contains("family"))
    check.fail("$.family", fmt::format("missing; expected one of: {} (or \"source\": a .cu file of your own)",
                                       fmt::join(registry.family_names(), ", ")));
  spec.family = check.string(doc["family"], "$.family");
  const Family* family = registry.find(spec.family);
  if (!family)
    check.fail("$.family", fmt::format("unknown family '{}'; known families: {}", spec.family, fmt::join(registry.family_names(), ", ")));
  return family;
}

void parse_name(const json& doc, const Checker& check, const Family& family, SweepSpec& spec) {
  spec.name = family.name;
  if (doc.contains("name")) {
    spec.name = check.string(doc["name"], "$.name");
    bool safe = !spec.name.empty() && std::all_of(spec.name.begin(), spec.name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
    if (!safe) check.fail("$.name", "expected a non-empty name of letters, digits, '_', '-' and '.' (it names the result files)");
    // The result files are NAME-GPU-TIME.json: a file name is at most 255 bytes.
    if (spec.name.size() > kMaxSweepNameLength)
      check.fail("$.name", fmt::format("expected a name of at most {} characters (it names the result files), got {}",
                                       kMaxSweepNameLength, spec.name.size()));
  }
  if (doc.contains("description")) spec.description = check.string(doc["description"], "$.description");
}

}  // namespace

std::string unknown_variant_message(const std::string& name, const Family& family) {
  return fmt::format("unknown variant '{}' of family '{}'; valid variants: {}", name, family.name,
                     fmt::join(family.variant_names(), ", "));
}

namespace {

// Variants: a list of names, or omitted for all of the family's variants; the baseline one of them.
void parse_variants(const json& doc, const Checker& check, const Family& family, SweepSpec& spec) {
  auto all_variants = family.variant_names();
  if (doc.contains("variants")) {
    const auto& list = doc["variants"];
    if (!list.is_array() || list.empty())
      check.fail("$.variants", fmt::format("expected a non-empty list of variant names from: {}", fmt::join(all_variants, ", ")));
    for (std::size_t i = 0; i < list.size(); ++i) {
      std::string path = fmt::format("$.variants[{}]", i);
      auto name = check.string(list[i], path);
      if (!family.find_variant(name)) check.fail(path, unknown_variant_message(name, family));
      if (std::find(spec.variants.begin(), spec.variants.end(), name) != spec.variants.end())
        check.fail(path, fmt::format("variant '{}' is listed twice", name));
      spec.variants.push_back(name);
    }
  } else {
    spec.variants = all_variants;
  }
  spec.baseline = spec.variants.front();
  if (!doc.contains("baseline")) return;
  spec.baseline = check.string(doc["baseline"], "$.baseline");
  if (std::find(spec.variants.begin(), spec.variants.end(), spec.baseline) == spec.variants.end())
    check.fail("$.baseline", fmt::format("expected one of the sweep's variants ({}), got '{}'", fmt::join(spec.variants, ", "),
                                         spec.baseline));
}

// Sizes: every size axis of the family needs values (or has a default), in the family's order.
void parse_sizes(const json& doc, const Checker& check, const Family& family, SweepSpec& spec) {
  auto size_names = axis_names(family.size_axes);
  if (!doc.contains("sizes") && !family.size_axes.empty()) {
    bool all_defaulted = std::all_of(family.size_axes.begin(), family.size_axes.end(),
                                     [](const Axis& a) { return a.default_value.has_value(); });
    if (!all_defaulted)
      check.fail("$.sizes", fmt::format("missing; expected an object with lists of values for: {}", fmt::join(size_names, ", ")));
  }
  if (doc.contains("sizes")) check_size_combinations(doc["sizes"], spec.source);
  if (doc.contains("sizes"))
    spec.sizes = parse_axes(doc["sizes"], "$.sizes", check, [&](const std::string& n) { return family.find_size_axis(n); },
                            size_names);
  for (const auto& axis : family.size_axes) {
    bool given = std::any_of(spec.sizes.begin(), spec.sizes.end(), [&](const auto& a) { return a.first == axis.name; });
    if (given) continue;
    if (!axis.default_value)
      check.fail("$.sizes." + axis.name, fmt::format("missing; expected a list of values ({}): {}", axis.describe_legal(),
                                                     axis.description));
    spec.sizes.emplace_back(axis.name, std::vector<std::int64_t>{*axis.default_value});
  }
  // Keep the family's order so point ids are stable whatever order the file used.
  std::stable_sort(spec.sizes.begin(), spec.sizes.end(), [&](const auto& a, const auto& b) {
    auto pos = [&](const std::string& n) { return std::find(size_names.begin(), size_names.end(), n) - size_names.begin(); };
    return pos(a.first) < pos(b.first);
  });
}

// Shared axes (each accepted by at least one selected variant) and each variant's own.
void parse_launch_axes(const json& doc, const Checker& check, const Family& family, SweepSpec& spec) {
  std::vector<std::string> launch_axis_names;
  for (const auto& v : spec.variants)
    for (const auto& axis : launch_axes_with_harness(*family.find_variant(v)))
      if (std::find(launch_axis_names.begin(), launch_axis_names.end(), axis.name) == launch_axis_names.end())
        launch_axis_names.push_back(axis.name);
  if (doc.contains("axes"))
    spec.axes = parse_axes(
        doc["axes"], "$.axes", check,
        [&](const std::string& n) -> const Axis* {
          for (const auto& v : spec.variants)
            if (const Axis* a = family.find_variant(v)->find_axis(n)) return a;
          return nullptr;
        },
        launch_axis_names);
  if (!doc.contains("variant_axes")) return;
  const auto& per_variant = check.object(doc["variant_axes"], "$.variant_axes");
  for (const auto& item : per_variant.items()) {
    std::string path = "$.variant_axes." + item.key();
    if (std::find(spec.variants.begin(), spec.variants.end(), item.key()) == spec.variants.end())
      check.fail(path, fmt::format("'{}' is not one of the sweep's variants ({})", item.key(), fmt::join(spec.variants, ", ")));
    const Variant* variant = family.find_variant(item.key());
    spec.variant_axes.emplace_back(item.key(), parse_axes(item.value(), path, check,
                                                          [&](const std::string& n) { return variant->find_axis(n); },
                                                          axis_names(launch_axes_with_harness(*variant))));
  }
}

// {"host": NAME, "uses": [names]}: a caller's condition; with "uses", decided as soon as those
// names are bound (it is then asked with those names only), else on the whole point.
void parse_host_condition(const json& v, const Checker& check, const std::vector<std::string>& names, Restriction& r) {
  check.object(v, r.path);
  check.only_keys(v, r.path, {"host", "uses"});
  if (!v.contains("host")) check.fail(r.path + ".host", "missing; expected the name of a condition handed over in memory");
  r.host_condition = check.string(v["host"], r.path + ".host");
  if (!host_hooks().conditions.count(r.host_condition))
    check.fail(r.path + ".host", host_names_expected("conditions", host_keys(host_hooks().conditions)) +
                                     fmt::format(", got '{}'", r.host_condition));
  r.text = "host: " + r.host_condition;
  if (!v.contains("uses")) return;
  if (!v["uses"].is_array()) check.fail(r.path + ".uses", fmt::format("expected a list of the names it uses, got {}", type_name(v["uses"])));
  for (std::size_t i = 0; i < v["uses"].size(); ++i) {
    std::string name = check.string(v["uses"][i], fmt::format("{}.uses[{}]", r.path, i));
    if (std::find(names.begin(), names.end(), name) == names.end())
      check.fail(fmt::format("{}.uses[{}]", r.path, i), fmt::format("expected a size or axis name ({}), got '{}'", fmt::join(names, ", "), name));
    r.uses.push_back(name);
  }
}

// "restrictions": expressions over the sizes and the selected variants' axes (harness axes too),
// each refused with its path where it names anything else or does not parse.
void parse_restrictions(const json& doc, const Checker& check, const Family& family, SweepSpec& spec) {
  if (!doc.contains("restrictions")) return;
  const json& list = doc["restrictions"];
  if (!list.is_array())
    check.fail("$.restrictions", fmt::format("expected a list of expressions such as \"block_size * items <= 512\", got {}", type_name(list)));
  std::vector<std::string> names;
  for (const auto& [size, values] : spec.sizes) names.push_back(size);
  for (const auto& v : spec.variants)
    for (const auto& axis : launch_axes_with_harness(*family.find_variant(v)))
      if (std::find(names.begin(), names.end(), axis.name) == names.end()) names.push_back(axis.name);
  for (std::size_t i = 0; i < list.size(); ++i) {
    Restriction r;
    r.path = fmt::format("$.restrictions[{}]", i);
    r.file = spec.source;
    if (list[i].is_object()) {  // {"host": NAME}: a condition the caller handed over in memory (a Python function)
      parse_host_condition(list[i], check, names, r);
    } else {
      r.text = check.string(list[i], r.path);
      r.expression = Expression(r.text, names, spec.source, r.path);
      r.uses = r.expression.used_variables();
    }
    spec.restrictions.push_back(std::move(r));
  }
}

// "search": how a run chooses its points (harness/sweep/strategy.hpp); the command line's flags
// override each field. The objective is checked where it is read (harness/records/best.hpp).
Strategy parse_search(const json& value, const Checker& check) {
  const std::string path = "$.search";
  check.object(value, path);
  check.only_keys(value, path, {"strategy", "max_points", "time_limit_s", "seed", "objective"});
  Strategy strategy;
  if (value.contains("strategy")) strategy.name = check.string(value["strategy"], path + ".strategy");
  if (value.contains("max_points")) strategy.max_points = std::size_t(check.integer(value["max_points"], path + ".max_points", 1));
  if (value.contains("time_limit_s"))
    strategy.time_limit_s = check.number(value["time_limit_s"], path + ".time_limit_s", 0, 1e9, true);
  if (value.contains("seed")) strategy.seed = std::uint64_t(check.integer(value["seed"], path + ".seed", 0));
  if (value.contains("objective")) strategy.objective = check.string(value["objective"], path + ".objective");
  try {
    check_strategy(strategy, "", path);
  } catch (const ConfigError& e) {
    check.fail(e.json_path(), e.expected());  // the same words, naming this file
  }
  return strategy;
}

// A shared value must be legal for every selected variant that takes it from the shared list.
void check_shared_values(const Checker& check, const Family& family, const SweepSpec& spec) {
  for (const auto& [axis_name, values] : spec.axes)
    for (const auto& v : spec.variants) {
      const Axis* a = family.find_variant(v)->find_axis(axis_name);
      if (!a || overridden(spec, v, axis_name)) continue;
      for (std::size_t i = 0; i < values.size(); ++i)
        if (auto problem = a->check(values[i]); !problem.empty())
          check.fail(fmt::format("$.axes.{}[{}]", axis_name, i),
                     fmt::format("{} (for variant '{}'); give it per variant in variant_axes instead", problem, v));
    }
}

// A problem larger than any GPU's memory cannot run anywhere (a device run skips what does not
// fit its own GPU); checked before anything runs, once per sizes.
void check_device_memory(const Checker& check, const Family& family, const std::vector<Point>& points) {
  if (!family.device_bytes) return;
  std::set<std::string> seen;
  for (const auto& point : points) {
    if (!seen.insert(point.sizes.to_string()).second) continue;
    std::uint64_t bytes = family.device_bytes(point.sizes);
    if (bytes > largest_gpu_memory_bytes())
      check.fail("$.sizes", fmt::format("at {} the problem needs {:.4g} GiB of device memory; the largest GPU occbench knows has "
                                        "{:.4g} GiB (plan --list-gpus)",
                                        point.sizes.to_string(), double(bytes) / 1073741824.0,
                                        double(largest_gpu_memory_bytes()) / 1073741824.0));
  }
}

// Every variant needs a value for each of its axes, and each point must be legal as a whole.
void check_points(const Checker& check, const Family& family, const SweepSpec& spec, const Registry& registry) {
  std::vector<Point> points = points_to_check(spec, registry);
  if (points.empty() && !spec.restrictions.empty()) {
    std::size_t unrestricted = 0;
    std::vector<std::size_t> removed = restriction_removals(spec, registry, unrestricted);
    std::vector<std::string> each;
    for (std::size_t i = 0; i < removed.size(); ++i) each.push_back(fmt::format("[{}] {}", i, removed[i]));
    check.fail("$.restrictions", fmt::format("together they rule out all {} points of the sweep (each alone rules out: {}); "
                                             "expected restrictions that keep at least one point",
                                             unrestricted, fmt::join(each, ", ")));
  }
  check_device_memory(check, family, points);
  for (const auto& point : points) {
    for (const auto& axis : point.variant->axes)
      if (!point.params.has(axis.name))
        check.fail("$.axes." + axis.name,
                   fmt::format("variant '{}' needs values for axis '{}' ({}) in axes or variant_axes.{}", point.variant->name,
                               axis.name, axis.describe_legal(), point.variant->name));
    if (family.check_sizes)
      if (auto problem = family.check_sizes(point.params); !problem.empty()) check.fail("$.sizes", problem);
    if (point.variant->check)
      if (auto problem = point.variant->check(point.params); !problem.empty())
        check.fail("$", fmt::format("point {}: {}", point.id, problem));
  }
}

}  // namespace

SweepSpec parse_sweep_json(const json& doc, const std::string& source, const Registry& registry) {
  Checker check(source);
  check.object(doc, "$");
  std::vector<std::string> keys{"$schema", "name", "description", "family", "variants", "baseline", "sizes", "axes", "variant_axes",
                                "restrictions", "measurement", "search"};
  // A config that names CUDA source ("source") defines its own family (harness/sweep/source_family).
  if (doc.contains("source")) keys.insert(keys.end(), source_config_keys().begin(), source_config_keys().end());
  check.only_keys(doc, "$", keys);
  SweepSpec spec;
  spec.source = source;
  spec.raw = doc;
  const Family& family = *parse_family(doc, check, registry, spec);
  parse_name(doc, check, family, spec);
  parse_variants(doc, check, family, spec);
  parse_sizes(doc, check, family, spec);
  parse_launch_axes(doc, check, family, spec);
  check_shared_values(check, family, spec);
  parse_restrictions(doc, check, family, spec);
  if (doc.contains("measurement")) spec.measurement = parse_measurement(doc["measurement"], "$.measurement", check);
  if (doc.contains("search")) spec.search = parse_search(doc["search"], check);
  check_points(check, family, spec, registry);
  return spec;
}

SweepSpec parse_sweep_text(const std::string& text, const std::string& source, const Registry& registry) {
  json doc;
  try {
    doc = parse_json(text, source);
  } catch (const BadInput& e) {
    throw ConfigError(e.file(), e.where(), e.expected());
  }
  return parse_sweep_json(doc, source, registry);
}

SweepSpec parse_sweep_file(const std::string& path, const Registry& registry) {
  std::string why;
  std::optional<std::string> text = read_file(path, &why);
  if (!text) throw ConfigError(display_path(path), "$", fmt::format("the file {}; expected a JSON sweep config file", why));
  return parse_sweep_text(*text, path, registry);
}

}  // namespace occbench
