#include "harness/records/record_checks.hpp"

#include "harness/records/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace occbench {

std::string json_type_name(const ordered_json& v) {
  if (v.is_null()) return "null";
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  return "a number";
}

namespace {


const char* const kSections[] = {"launch", "resources", "occupancy", "timing", "work", "metrics", "verification",
                                 "time_use", "energy", "counters", "compile", "conditions", "search"};
// The text fields read from records: top-level, then section.key.
const char* const kTextFields[] = {"point_id", "family", "variant", "status", "reason"};
const std::pair<const char*, const char*> kSectionTexts[] = {
    {"timing", "mode"}, {"timing", "source"}, {"timing", "stop_reason"}, {"occupancy", "limiter"},
    {"verification", "status"}, {"energy", "status"}, {"counters", "status"}};
// Times, spreads and durations: numbers where they are there (null is not a time), never negative.
const std::pair<const char*, const char*> kDurationFields[] = {
    {"timing", "median_ms"}, {"timing", "mean_ms"},     {"timing", "min_ms"},   {"timing", "max_ms"},
    {"timing", "stddev_ms"}, {"timing", "noise"},       {"timing", "total_ms"}, {"timing", "samples"},
    {"timing", "sampling_wall_s"}, {"time_use", "problem_s"}, {"time_use", "verify_s"}, {"time_use", "compiler_wait_s"},
    {"time_use", "point_s"}, {"time_use", "search_s"}};

std::string section_problem(const ordered_json& r, const char* section) {
  if (!r.contains(section)) return "";
  const ordered_json& s = r[section];
  if (!s.is_object() && !s.is_null()) return fmt::format(".{}: expected an object or null, got {}", section, json_type_name(s));
  for (const auto& [name, key] : kSectionTexts)
    if (std::string(name) == section && s.is_object() && s.contains(key) && !s[key].is_string() && !s[key].is_null())
      return fmt::format(".{}.{}: expected a string, got {}", section, key, json_type_name(s[key]));
  return "";
}

std::string timing_problem(const ordered_json& r) {
  for (const auto& [section, key] : kDurationFields) {
    if (!r.contains(section) || !r[section].is_object() || !r[section].contains(key)) continue;
    const ordered_json& v = r[section][key];
    if (!v.is_number()) return fmt::format(".{}.{}: expected a number, got {}", section, key, json_type_name(v));
    if (v.get<double>() < 0) return fmt::format(".{}.{}: expected a time or spread of at least 0, got {}", section, key, v.dump());
  }
  if (!r.contains("timing") || !r["timing"].is_object()) return "";
  const ordered_json& t = r["timing"];
  // A count, read as an int (compare, the report): a fraction or 2^63 samples is no run's.
  if (t.contains("samples") && (t["samples"].get<double>() > std::numeric_limits<int>::max() ||
                                t["samples"].get<double>() != std::floor(t["samples"].get<double>())))
    return fmt::format(".timing.samples: expected a whole number of samples up to {}, got {}", std::numeric_limits<int>::max(),
                       t["samples"].dump());
  if (t.contains("near_timing_floor") && !t["near_timing_floor"].is_boolean() && !t["near_timing_floor"].is_null())
    return fmt::format(".timing.near_timing_floor: expected true or false, got {}", json_type_name(t["near_timing_floor"]));
  return "";
}


enum class Kind { text, number, object, list };

bool is_kind(const ordered_json& v, Kind kind) {
  switch (kind) {
    case Kind::text: return v.is_string();
    case Kind::number: return v.is_number();
    case Kind::object: return v.is_object();
    default: return v.is_array();
  }
}

const char* kind_name(Kind kind) {
  return kind == Kind::text ? "a string" : kind == Kind::number ? "a number" : kind == Kind::object ? "an object" : "a list";
}

// The fields of a document's (or a .jsonl header's) blocks that commands read: where they are
// there (null too, where a type is read), of their type.
struct Field {
  const char* block;  // "" for the document itself
  const char* key;
  Kind kind;
};
const Field kDocumentFields[] = {
    {"", "tool", Kind::object}, {"", "run", Kind::object}, {"", "device", Kind::object}, {"", "config", Kind::object},
    {"", "units", Kind::object}, {"", "devices", Kind::list}, {"", "config_source", Kind::text}, {"", "started_utc", Kind::text},
    {"tool", "name", Kind::text}, {"tool", "version", Kind::text}, {"tool", "git_commit", Kind::text},
    {"run", "kind", Kind::text}, {"run", "command", Kind::text}, {"run", "config_source", Kind::text},
    {"run", "started_utc", Kind::text}, {"run", "finished_utc", Kind::text}, {"run", "wall_s", Kind::number},
    {"run", "timed_s", Kind::number}, {"run", "measurement", Kind::object}, {"run", "strategy", Kind::object},
    {"run", "runs", Kind::list}, {"device", "name", Kind::text}, {"device", "pci_bus_id", Kind::text},
    {"device", "compute_capability", Kind::text}, {"config", "name", Kind::text}, {"config", "family", Kind::text},
    {"config", "baseline", Kind::text}, {"run.strategy", "name", Kind::text}, {"run.strategy", "seed", Kind::number}};

std::string fields_problem(const ordered_json& doc, const char* only_block = nullptr) {
  for (const Field& f : kDocumentFields) {
    if (only_block && std::string(f.block) != only_block) continue;
    const ordered_json* holder = &doc;
    std::string block = f.block;
    for (std::size_t begin = 0; holder && begin < block.size();) {  // "run.strategy": doc["run"]["strategy"]
      std::size_t end = std::min(block.find('.', begin), block.size());
      std::string part = block.substr(begin, end - begin);
      holder = holder->contains(part) && (*holder)[part].is_object() ? &(*holder)[part] : nullptr;
      begin = end + 1;
    }
    if (!holder) continue;
    if (holder->contains(f.key) && !is_kind((*holder)[f.key], f.kind) && !((*holder)[f.key].is_null() && f.kind == Kind::object))
      return fmt::format("$.{}{}{}: expected {}, got {}", f.block, *f.block ? "." : "", f.key, kind_name(f.kind),
                         json_type_name((*holder)[f.key]));
  }
  return "";
}

}  // namespace

std::string document_problem(const ordered_json& doc) {
  if (!doc.is_object()) return fmt::format("$: expected an object, got {}", json_type_name(doc));
  if (std::string problem = fields_problem(doc); !problem.empty()) return problem;
  // A merged document keeps each input's device and run block: each is read as one.
  auto items_problem = [](const ordered_json* items, const char* path, const char* block) -> std::string {
    if (!items || !items->is_array()) return "";
    for (std::size_t i = 0; i < items->size(); ++i) {
      std::string problem = fields_problem(ordered_json{{block, (*items)[i]}}, block);
      if (!(*items)[i].is_object()) problem = fmt::format("$.{}: expected an object, got {}", block, json_type_name((*items)[i]));
      if (!problem.empty()) return fmt::format("{}[{}]{}", path, i, problem.substr(2 + std::string(block).size()));
    }
    return "";
  };
  const ordered_json* runs = doc.contains("run") && doc["run"].is_object() && doc["run"].contains("runs") ? &doc["run"]["runs"] : nullptr;
  if (std::string problem = items_problem(doc.contains("devices") ? &doc["devices"] : nullptr, "$.devices", "device"); !problem.empty())
    return problem;
  return items_problem(runs, "$.run.runs", "run");
}

std::string record_problem(const ordered_json& r) {
  if (!r.is_object()) return fmt::format(": expected a point's record (an object), got {}", json_type_name(r));
  for (const char* key : kTextFields)
    if (r.contains(key) && !r[key].is_string()) return fmt::format(".{}: expected a string, got {}", key, json_type_name(r[key]));
  if (r.contains("params")) {
    if (!r["params"].is_object()) return fmt::format(".params: expected an object, got {}", json_type_name(r["params"]));
    for (const auto& item : r["params"].items())
      if (!item.value().is_number() && !item.value().is_string() && !item.value().is_boolean())  // a labelled axis's value
        return fmt::format(".params.{}: expected a number, a string or true/false, got {}", item.key(), json_type_name(item.value()));
  }
  for (const char* section : kSections)
    if (std::string problem = section_problem(r, section); !problem.empty()) return problem;
  if (r.contains("energy") && r["energy"].is_object() && r["energy"].contains("at_power_limit") &&
      !r["energy"]["at_power_limit"].is_boolean())
    return fmt::format(".energy.at_power_limit: expected true or false, got {}", json_type_name(r["energy"]["at_power_limit"]));
  if (r.contains("device") && !(r["device"].is_number_integer() && r["device"].get<long long>() >= 0) && !r["device"].is_object())
    return fmt::format(".device: expected a device index (a whole number of at least 0), got {}", r["device"].dump());
  if (record_point_id(r).empty()) return ": no point_id (nor family, variant and params to rebuild it)";
  return timing_problem(r);
}

}  // namespace occbench
