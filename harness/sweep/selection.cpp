#include "harness/sweep/selection.hpp"

#include "harness/core/format.hpp"

#include "harness/model/occupancy_limit.hpp"
#include "harness/sweep/id_filter.hpp"
#include "harness/sweep/point_source.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/sweep/config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace occbench {

using json = nlohmann::ordered_json;

namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    auto comma = text.find(',', start);
    parts.push_back(trim(text.substr(start, comma - start)));
    if (comma == std::string::npos) return parts;
    start = comma + 1;
  }
}

// Parses the config again with `doc`; a refusal names `flag` instead of the JSON path.
SweepSpec reparse(const json& doc, const SweepSpec& spec, const std::string& flag, const Registry& registry) {
  try {
    SweepSpec changed = parse_sweep_json(doc, spec.source, registry);
    changed.raw = spec.raw;
    return changed;
  } catch (const ConfigError& e) {
    throw ConfigError(spec.source, flag, e.expected());
  }
}

// One value of --set AXIS=...: an integer, a number, true/false, or else a string (quotes, where
// given, taken off): the config's reading of each checks it against the axis.
json override_value(const std::string& item) {
  char* end = nullptr;
  errno = 0;
  long long whole = std::strtoll(item.c_str(), &end, 10);
  if (*end == '\0') {
    if (errno == ERANGE) return item;  // past 64 bits: the axis's check names it
    return whole;
  }
  errno = 0;
  double number = std::strtod(item.c_str(), &end);
  if (*end == '\0' && errno != ERANGE && std::isfinite(number)) return number;
  if (item == "true" || item == "false") return item == "true";
  bool quoted = item.size() >= 2 && (item.front() == '\'' || item.front() == '"') && item.back() == item.front();
  return quoted ? item.substr(1, item.size() - 2) : item;
}

}  // namespace

void add_axis_override(PointSelection& selection, const std::string& flag, const std::string& text) {
  const std::string shown = valid_utf8(text);
  std::string as_typed = fmt::format("{} {}", flag, shown);
  auto expected = [&](const std::string& what) { return ConfigError("command line", as_typed, what); };
  // Values become labels, which the record writes as JSON text.
  if (shown != text) throw expected("expected UTF-8 text (a byte here is not)");
  auto equals = text.find('=');
  if (equals == std::string::npos || trim(text.substr(0, equals)).empty())
    throw expected("expected AXIS=V1,V2,... or AXIS=[V1,V2,...] (e.g. block_size=128,256)");
  std::string axis = trim(text.substr(0, equals)), list = trim(text.substr(equals + 1));
  if (list.size() >= 2 && list.front() == '[' && list.back() == ']') list = list.substr(1, list.size() - 2);
  json values = json::array();
  for (const auto& item : split_commas(list)) {
    if (item.empty()) throw expected(fmt::format("expected a list of values for axis '{}', got an empty item", axis));
    values.push_back(override_value(item));
  }
  for (const auto& [name, _] : selection.overrides)
    if (name == axis) throw expected(fmt::format("axis '{}' is set twice on the command line", axis));
  selection.overrides.emplace_back(axis, values);
  selection.flags.push_back(as_typed);
}

void add_variant_names(PointSelection& selection, const std::string& text) {
  for (const auto& name : split_commas(text)) {
    if (name.empty())
      throw ConfigError("command line", "--variants " + text, "expected a comma-separated list of variant names");
    selection.variants.push_back(name);
  }
}

namespace {

// The config narrowed to the chosen variants: variant overrides, shared axes that no chosen
// variant takes and, for a user kernel, the other variants' kernels (the reference's stays) would be
// refused as unknown names, and so would restrictions over the axes that went.
json chosen_variants_doc(const SweepSpec& spec, const Family& family, const std::vector<std::string>& variants) {
  for (const auto& name : variants)
    if (!family.find_variant(name))
      throw ConfigError(spec.source, fmt::format("--variants {}", fmt::join(variants, ",")), unknown_variant_message(name, family));
  json doc = spec.raw;
  auto chosen = [&](const std::string& name) { return std::find(variants.begin(), variants.end(), name) != variants.end(); };
  doc["variants"] = variants;
  if (doc.contains("baseline") && !chosen(doc["baseline"].get<std::string>())) doc.erase("baseline");
  std::string reference = doc.contains("reference") && doc["reference"].is_object() ? doc["reference"].value("variant", "") : "";
  if (doc.contains("variant_axes") && doc["variant_axes"].is_object())
    for (const auto& item : spec.raw["variant_axes"].items())
      if (!chosen(item.key())) doc["variant_axes"].erase(item.key());
  if (doc.contains("kernels") && doc["kernels"].is_object())  // a user kernel's: the reference's kernel stays
    for (const auto& item : spec.raw["kernels"].items())
      if (!chosen(item.key()) && item.key() != reference) doc["kernels"].erase(item.key());
  std::vector<std::string> dropped;
  if (doc.contains("axes") && doc["axes"].is_object())
    for (const auto& item : spec.raw["axes"].items())
      if (std::none_of(variants.begin(), variants.end(), [&](const std::string& name) {
            const Variant* v = family.find_variant(name);
            return v && v->find_axis(item.key());
          })) {
        doc["axes"].erase(item.key());
        dropped.push_back(item.key());
      }
  if (doc.contains("restrictions") && doc["restrictions"].is_array()) {
    json kept = json::array();
    for (std::size_t i = 0; i < spec.restrictions.size(); ++i)
      if (std::none_of(spec.restrictions[i].uses.begin(), spec.restrictions[i].uses.end(),
                       [&](const std::string& name) { return std::find(dropped.begin(), dropped.end(), name) != dropped.end(); }))
        kept.push_back(doc["restrictions"][i]);
    doc["restrictions"] = kept;
  }
  return doc;
}

}  // namespace

SweepSpec apply_selection(const SweepSpec& spec, const PointSelection& selection, const Registry& registry) {
  SweepSpec selected = spec;
  const Family* family = sweep_family(spec, registry);
  json doc = selection.variants.empty() ? spec.raw : chosen_variants_doc(spec, *family, selection.variants);
  if (!selection.variants.empty())
    selected = reparse(doc, spec, fmt::format("--variants {}", fmt::join(selection.variants, ",")), registry);
  for (std::size_t i = 0; i < selection.overrides.size(); ++i) {
    const auto& [axis, values] = selection.overrides[i];
    std::string flag = i < selection.flags.size() ? selection.flags[i] : "--set " + axis;
    std::vector<std::string> known = axis_names(family->size_axes);
    for (const auto& name : selected.variants)
      for (const auto& launch_axis : launch_axes_with_harness(*family->find_variant(name)))
        if (std::find(known.begin(), known.end(), launch_axis.name) == known.end()) known.push_back(launch_axis.name);
    if (std::find(known.begin(), known.end(), axis) == known.end())
      throw ConfigError(spec.source, flag,
                        fmt::format("unknown axis '{}'; expected a size axis of family '{}' or a launch axis of the sweep's "
                                    "variants: {}",
                                    axis, family->name, fmt::join(known, ", ")));
    if (family->find_size_axis(axis)) {
      doc["sizes"][axis] = values;
    } else {
      doc["axes"][axis] = values;  // replaces the shared list and every variant's own
      if (doc.contains("variant_axes") && doc["variant_axes"].is_object())
        for (auto& item : doc["variant_axes"].items()) item.value().erase(axis);
    }
    selected = reparse(doc, spec, flag, registry);
  }
  selected.selection = selection;
  if (!selection.filter.empty()) {
    std::string flag = "--filter " + selection.filter;
    try {
      IdFilter check(selection.filter);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(spec.source, flag, fmt::format("expected a regular expression (RE2 syntax): {}", e.what()));
    }
    check_listable(selected, registry);  // the check below lists every point
    if (expand_sweep(selected, registry).empty()) {
      SweepSpec unfiltered = selected;
      unfiltered.selection.filter.clear();
      auto all = expand_sweep(unfiltered, registry);
      throw ConfigError(spec.source, flag,
                        fmt::format("expected a regular expression matching at least one of the sweep's {} point ids, "
                                    "such as '{}'",
                                    all.size(), all.empty() ? "" : all.front().id));
    }
  }
  return selected;
}

json to_json(const PointSelection& selection) {
  if (selection.empty()) return nullptr;
  json set = json::object();
  for (const auto& [axis, values] : selection.overrides) set[axis] = values;
  json j{{"variants", selection.variants}, {"filter", selection.filter}, {"set", set}};
  if (selection.shard_count > 0) j["shard"] = fmt::format("{}/{}", selection.shard_index, selection.shard_count);
  return j;
}

}  // namespace occbench
