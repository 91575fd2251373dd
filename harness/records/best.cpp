#include "harness/records/best.hpp"

#include "harness/core/format.hpp"
#include "harness/core/json.hpp"
#include "harness/records/record_writer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vector>
#include <algorithm>

#include <cctype>
#include <map>
#include <stdexcept>

namespace occbench {

namespace {

using json = nlohmann::ordered_json;

std::string macro_part(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? char(std::toupper(static_cast<unsigned char>(c))) : '_';
  return out;
}

std::string device_name(const ShardOutput& input) {
  return input.devices.empty() ? "unknown GPU" : input.devices.front().value("name", "unknown GPU");
}

}  // namespace

SplitParams split_params(const json& record, const std::vector<std::string>& size_names) {
  SplitParams split;
  const json params = record.value("params", json::object());  // kept: items() of a temporary would dangle
  for (const auto& item : params.items())
    (std::find(size_names.begin(), size_names.end(), item.key()) != size_names.end() ? split.sizes : split.axes)[item.key()] = item.value();
  return split;
}

std::vector<std::string> size_names(const ShardOutput& input) {
  std::vector<std::string> names;
  if (input.config.contains("sizes") && input.config["sizes"].is_object())
    for (const auto& item : input.config["sizes"].items()) names.push_back(item.key());
  return names;
}

namespace {

// The record's sections whose numbers are fixed (docs/record.md), and those whose fields vary
// (a counter's name, an observer's key): a misspelt field ("timing.median") is refused, not
// searched for at every point and found nowhere.
const std::map<std::string, std::vector<std::string>> kFixedSections = {
    {"timing", {"median_ms", "mean_ms", "min_ms", "max_ms", "stddev_ms", "noise", "total_ms", "samples", "sampling_wall_s",
                "cold_median_ms", "event_median_ms"}},
    {"metrics", {"achieved_bandwidth_gbps", "gflops", "gflops_equivalent", "pct_of_measured_bandwidth", "pct_of_peak_bandwidth",
                 "speedup_vs_baseline"}},
    {"occupancy", {"theoretical", "thread_utilization", "active_blocks_per_sm", "active_warps_per_sm"}},
    {"work", {"flops", "equivalent_flops", "global_bytes", "dram_bytes", "cgma_flop_per_byte"}},
    {"resources", {"registers_per_thread", "static_smem_bytes", "local_bytes_per_thread"}},
    {"compile", {"compile_ms", "nvrtc_ms"}},
    {"time_use", {"point_s", "verify_s", "problem_s", "compiler_wait_s", "search_s"}}};
const char* const kOpenSections[] = {"energy", "counters", "observers", "params", "clocks", "littles_law"};

std::string objective_field_problem(const std::string& field) {
  std::size_t dot = field.find('.');
  std::string section = field.substr(0, dot);
  std::string key = dot == std::string::npos ? "" : field.substr(dot + 1);
  for (const char* open : kOpenSections)
    if (section == open) return key.empty() ? fmt::format("expected a field of {}, such as {}.NAME", section, section) : "";
  auto fixed = kFixedSections.find(section);
  if (fixed == kFixedSections.end())
    return fmt::format("'{}' is no section of the record; expected one of timing, metrics, occupancy, work, resources, compile, "
                       "time_use, energy, counters, observers, params (e.g. timing.median_ms)", section);
  if (std::find(fixed->second.begin(), fixed->second.end(), key) == fixed->second.end())
    return fmt::format("'{}' is no field of {}; expected one of {}", key, section, fmt::join(fixed->second, ", "));
  return "";
}

}  // namespace

Objective parse_objective(const std::string& text) {
  Objective o;
  std::string field = text;
  if (auto colon = text.rfind(':'); colon != std::string::npos) {
    std::string direction = text.substr(colon + 1);
    if (direction != "min" && direction != "max")
      throw std::invalid_argument(fmt::format("--objective {}: expected FIELD, FIELD:min or FIELD:max, e.g. "
                                              "metrics.achieved_bandwidth_gbps:max", text));
    o.maximize = direction == "max";
    field = text.substr(0, colon);
  }
  if (field.empty()) throw std::invalid_argument(fmt::format("--objective {}: expected a field of the record, e.g. timing.median_ms", text));
  if (std::string problem = objective_field_problem(field); !problem.empty())
    throw std::invalid_argument(fmt::format("--objective {}: {}", text, problem));
  o.field = field;
  return o;
}

std::optional<double> objective_value(const json& record, const Objective& objective) {
  if (record.value("status", "") != "ok") return std::nullopt;
  const json* node = &record;
  std::size_t start = 0;
  while (start <= objective.field.size()) {
    std::size_t dot = objective.field.find('.', start);
    std::string key = objective.field.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object() || !node->contains(key)) return std::nullopt;
    node = &(*node)[key];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node->is_number() ? std::optional<double>(node->get<double>()) : std::nullopt;
}

std::vector<BestPoint> best_points(const ShardOutput& input, const Objective& objective) {
  std::vector<std::string> sizes = size_names(input);
  std::vector<BestPoint> best;
  std::map<std::string, std::size_t> group_index;
  for (const auto& r : input.results) {
    std::optional<double> value = objective_value(r, objective);
    if (!value) continue;
    SplitParams split = split_params(r, sizes);
    BestPoint candidate{r.value("family", ""), r.value("variant", ""), split.sizes, split.axes, r, *value, 1};
    std::string key = candidate.family + "/" + candidate.variant + "/" + candidate.sizes.dump();
    auto found = group_index.find(key);
    if (found == group_index.end()) {
      group_index[key] = best.size();
      best.push_back(candidate);
      continue;
    }
    BestPoint& current = best[found->second];
    int seen = current.candidates + 1;
    if (objective.better(*value, current.value)) current = candidate;
    current.candidates = seen;
  }
  return best;
}

json best_json(const std::vector<BestPoint>& best, const ShardOutput& input, const Objective& objective) {
  json points = json::array();
  for (const auto& b : best)
    points.push_back({{"family", b.family}, {"variant", b.variant}, {"sizes", b.sizes}, {"params", b.params},
                      {"objective_value", b.value}, {"candidates", b.candidates}, {"point_id", b.record.value("point_id", "")},
                      {"median_ms", b.record.contains("timing") ? b.record["timing"].value("median_ms", json()) : json()}});
  return {{"occbench_best", 1}, {"source", input.path}, {"device", device_name(input)}, {"tool", input.tool},
          {"objective", objective.text()}, {"best", points}};
}

std::string best_header(const std::vector<BestPoint>& best, const ShardOutput& input, const Objective& objective) {
  std::map<std::string, int> groups_per_variant;
  for (const auto& b : best) ++groups_per_variant[b.family + "/" + b.variant];
  std::string text = fmt::format("// The best point of each variant measured by occbench (occbench best {}, objective {}).\n"
                                 "// GPU: {}; occbench {}.\n#pragma once\n",
                                 input.path, objective.text(), device_name(input), input.tool.value("git_commit", "?"));
  for (const auto& b : best) {
    std::string stem = "OCCBENCH_" + macro_part(b.family) + "_" + macro_part(b.variant);
    if (groups_per_variant[b.family + "/" + b.variant] > 1)
      for (const auto& item : b.sizes.items()) stem += "_" + macro_part(item.key()) + macro_part(item.value().dump());
    text += fmt::format("\n// {} {} at {}: {} {} = {:.6g}; median {} (of {} point(s))\n", b.family, b.variant,
                        pairs_text(b.sizes, " "), objective.maximize ? "max" : "min", objective.field, b.value,
                        format_duration_ms(b.record.contains("timing") ? b.record["timing"].value("median_ms", 0.0) : 0.0),
                        b.candidates);
    for (const auto& item : b.params.items())  // a string as it is: "float_type": "double" -> #define ..._FLOAT_TYPE double
      text += fmt::format("#define {}_{} {}\n", stem, macro_part(item.key()), value_text(item.value()));
  }
  return text;
}

std::string format_best(const std::vector<BestPoint>& best, const Objective& objective) {
  std::string text = fmt::format("| family | variant | sizes | best params | {} ({}) | median | points |\n|---|---|---|---|---:|---:|---:|\n",
                                 objective.field, objective.maximize ? "max" : "min");
  for (const auto& b : best)
    text += fmt::format("| {} | {} | {} | {} | {:.6g} | {} | {} |\n", b.family, b.variant, pairs_text(b.sizes, " "),
                        b.params.empty() ? "–" : pairs_text(b.params, " "), b.value,
                        format_duration_ms(b.record.contains("timing") ? b.record["timing"].value("median_ms", 0.0) : 0.0),
                        b.candidates);
  return text;
}

}  // namespace occbench
