#include "harness/records/merge.hpp"
#include "harness/records/run_log.hpp"

#include "harness/records/kernel_tuner_cache.hpp"
#include "harness/core/files.hpp"
#include "harness/core/json.hpp"

#include "harness/model/metrics.hpp"
#include "harness/records/record_checks.hpp"
#include "harness/records/report.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/sweep/config.hpp"

#include <fmt/format.h>

#include <map>

namespace occbench {

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

ResultsFileError input_error(const std::string& path, const std::string& what) {
  return ResultsFileError(fmt::format("{}: {}", path, what));
}

std::string tool_text(const ordered_json& tool) {
  return fmt::format("occbench {} (git {})", tool.value("version", std::string("?")), tool.value("git_commit", std::string("?")));
}

// A Kernel Tuner cache left open by the run that wrote it (closed here), or null.
ordered_json open_kernel_tuner_cache(const std::string& path) {
  std::optional<std::string> text = read_file(path);
  if (!text) return nullptr;
  try {
    ordered_json doc = parse_json(closed_kernel_tuner_cache(*text), path);
    return is_kernel_tuner_cache(doc) ? doc : ordered_json(nullptr);
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

ShardOutput read_shard_output(const std::string& path, const Registry* registry) {
  ShardOutput out;
  out.path = path;
  ordered_json source;
  if (ends_with(path, ".jsonl")) {
    JsonlContents contents = read_jsonl(path);  // throws ResultsFileError naming the file and line
    if (registry) check_run_log(contents, path, *registry);
    source = contents.header;
    out.results = contents.results;
    // A point recorded twice in one .jsonl (a supervisor's failed record, then a resumed run's) keeps the last.
    std::map<std::string, std::size_t> last;
    for (std::size_t i = 0; i < out.results.size(); ++i) last[record_point_id(out.results[i])] = i;
    std::vector<ordered_json> kept;
    for (std::size_t i = 0; i < out.results.size(); ++i)
      if (last[record_point_id(out.results[i])] == i) kept.push_back(out.results[i]);
    out.results = std::move(kept);
    out.run = nullptr;
  } else {
    try {
      source = read_json_file(path);
    } catch (const std::exception&) {
      source = open_kernel_tuner_cache(path);  // else null: load_results_file below says what is wrong
    }
    if (is_kernel_tuner_cache(source)) return kernel_tuner_cache_output(source, path);
    // A shard that was given no points (more shards than points) has an empty results list.
    bool empty_shard = source.is_object() && source.contains("schema_version") && source["schema_version"] == kSchemaVersion &&
                       source.contains("results") && source["results"].is_array() && source["results"].empty();
    if (!empty_shard) source = load_results_file(path).document;
    else if (std::string problem = document_problem(source); !problem.empty()) throw input_error(path, problem);
    out.results = source["results"].get<std::vector<ordered_json>>();
    out.run = source.value("run", ordered_json(nullptr));
  }
  if (source.contains("multi_device") && !source.contains("device"))
    throw input_error(path, "the header of a run --devices that has not finished; finish it with run --resume first");
  for (const char* key : {"tool", "config"})
    if (!source.contains(key) || !source[key].is_object())
      throw input_error(path, fmt::format("expected a results file of occbench run (JSON document or .jsonl) with a '{}' object", key));
  out.tool = source["tool"];
  out.config = source["config"];
  out.config_source = source.value("config_source", out.run.is_object() ? out.run.value("config_source", "") : "");
  if (source.contains("devices") && source["devices"].is_array() && !source["devices"].empty()) {
    out.devices = source["devices"].get<std::vector<ordered_json>>();
  } else if (source.contains("device") && source["device"].is_object()) {
    out.devices = {source["device"]};
    for (auto& r : out.results) r["device"] = 0;
  } else {
    throw input_error(path, "expected a 'device' object (the GPU the points were measured on)");
  }
  for (auto& r : out.results)
    if (!r.contains("device") || !r["device"].is_number_integer() || r["device"].get<std::size_t>() >= out.devices.size())
      throw input_error(path, fmt::format("point {}: expected 'device' to index the file's {} device record(s)",
                                          record_point_id(r), out.devices.size()));
  return out;
}

MergedResults merge_shard_outputs(const std::vector<ShardOutput>& inputs, const Registry& registry) {
  if (inputs.empty()) throw ResultsFileError("merge: expected at least one input file");
  const ShardOutput& first = inputs.front();
  MergedResults merged;
  merged.tool = first.tool;
  merged.config = first.config;
  merged.config_source = first.config_source;
  std::map<std::string, std::string> owner;  // point id -> the input that holds it
  for (const auto& input : inputs) {
    if (input.config != first.config)
      throw input_error(input.path, fmt::format("its config differs from {}'s; merge joins the shards of one sweep "
                                                "(the same config, as echoed in each file)", first.path));
    if (input.tool.value("version", "") != first.tool.value("version", "") ||
        input.tool.value("git_commit", "") != first.tool.value("git_commit", ""))
      throw input_error(input.path, fmt::format("written by {}, but {} by {}; shards must come from one build",
                                                tool_text(input.tool), first.path, tool_text(first.tool)));
    std::size_t offset = merged.devices.size();
    merged.devices.insert(merged.devices.end(), input.devices.begin(), input.devices.end());
    for (auto record : input.results) {
      std::string id = record_point_id(record);
      if (auto [it, fresh] = owner.emplace(id, input.path); !fresh)
        throw input_error(input.path, fmt::format("point {} is also in {}; each point must be in one input only", id, it->second));
      record["device"] = offset + record["device"].get<std::size_t>();
      merged.results.push_back(std::move(record));
    }
    if (input.run.is_object()) {
      ordered_json run = input.run;
      run["file"] = input.path;
      merged.runs.push_back(std::move(run));
    }
  }
  // The sweep's own order where the config can be expanded (sizes outermost, so a reader sees
  // what a single-GPU run writes); points it does not list keep their input order at the end.
  try {
    SweepSpec spec = parse_sweep_json(merged.config, merged.config_source, registry);
    std::map<std::string, std::size_t> position;
    for (const auto& point : expand_sweep(spec, registry)) position.emplace(point.id, point.index);
    auto rank = [&](const ordered_json& r) {
      auto it = position.find(record_point_id(r));
      return it == position.end() ? position.size() : it->second;
    };
    std::stable_sort(merged.results.begin(), merged.results.end(),
                     [&](const ordered_json& a, const ordered_json& b) { return rank(a) < rank(b); });
  } catch (const std::exception&) {
    // e.g. a user kernel's source not found from here: the inputs' order is kept.
  }
  assign_speedups(merged.results, merged.config.value("baseline", ""));
  return merged;
}

ordered_json merged_document(const MergedResults& merged, const ordered_json& run) {
  ordered_json base = make_document(run, merged.devices.front(), merged.config, merged.results);
  base["tool"] = merged.tool;  // the inputs' build, checked equal
  ordered_json doc;
  for (const auto& [key, value] : base.items()) {
    doc[key] = value;
    if (key == "device") doc["devices"] = merged.devices;
  }
  return doc;
}

std::string merged_jsonl(const MergedResults& merged, const ordered_json& header_extra) {
  ordered_json header = {{"occbench_jsonl", kJsonlVersion},       {"tool", merged.tool},    {"device", merged.devices.front()},
                         {"devices", merged.devices}, {"config", merged.config}, {"config_source", merged.config_source}};
  for (const auto& [key, value] : header_extra.items()) header[key] = value;
  std::string text = header.dump() + "\n";
  for (const auto& r : merged.results) text += r.dump() + "\n";
  return text;
}

}  // namespace occbench
