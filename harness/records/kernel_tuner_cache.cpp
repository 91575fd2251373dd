#include "harness/records/kernel_tuner_cache.hpp"
#include "harness/core/json.hpp"

#include "harness/records/report.hpp"

#include <fmt/format.h>

#include <cmath>

namespace occbench {

bool is_kernel_tuner_cache(const ordered_json& doc) {
  return doc.is_object() && doc.contains("cache") && doc["cache"].is_object() && doc.contains("tune_params_keys") &&
         doc["tune_params_keys"].is_array();
}

std::string closed_kernel_tuner_cache(const std::string& text) {
  std::string t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
  if (t.size() < 3 || t.find("\"tune_params_keys\"") == std::string::npos) return text;
  std::string end = t.substr(t.size() - 3);
  if (end == "}\n}" || end == "}}}" || t.substr(t.size() - 2) == "}}") return text;
  if (t.back() == ',') t.pop_back();
  return t + "}\n}";
}

namespace {

ResultsFileError cache_error(const std::string& path, const std::string& where, const std::string& expected) {
  return ResultsFileError(path, where, expected);
}

// One cached configuration as a record: its parameters, its time or its error.
ordered_json cache_record(const std::string& path, const std::string& key, const ordered_json& entry,
                          const std::vector<std::string>& names, const std::string& kernel) {
  std::string where = fmt::format("cache[\"{}\"]", key);
  if (!entry.is_object()) throw cache_error(path, where, "expected an object of the parameters and the time");
  ordered_json params = ordered_json::object();
  std::string id = "kernel_tuner/" + kernel;
  for (const auto& name : names) {
    // Kernel Tuner's values of every type: integers, floats, strings, booleans (labelled axes to
    // occbench: a string or boolean is categorical to the search).
    if (!entry.contains(name) || !(entry[name].is_number() || entry[name].is_string() || entry[name].is_boolean()))
      throw cache_error(path, where + "." + name,
                        fmt::format("expected a number, a string or true/false, got {}", entry.contains(name) ? entry[name].dump() : "nothing"));
    params[name] = entry[name];
    id += fmt::format("/{}={}", name, value_text(entry[name]));
  }
  ordered_json r = {{"point_id", id}, {"family", "kernel_tuner"}, {"variant", kernel}, {"params", params}, {"device", 0}};
  const ordered_json time = entry.value("time", ordered_json(nullptr));
  if (time.is_number() && std::isfinite(time.get<double>()) && time.get<double>() >= 0) {
    r["status"] = "ok";
    r["reason"] = "";
    r["timing"] = {{"median_ms", time.get<double>()}};
  } else {
    r["status"] = "failed";
    r["reason"] = time.is_string() ? time.get<std::string>() : "no time in Kernel Tuner's cache";
  }
  return r;
}

}  // namespace

ShardOutput kernel_tuner_cache_output(const ordered_json& doc, const std::string& path) {
  ShardOutput out;
  out.path = path;
  std::vector<std::string> names;
  for (const auto& key : doc["tune_params_keys"]) {
    if (!key.is_string()) throw cache_error(path, "tune_params_keys", "expected the parameters' names");
    names.push_back(key.get<std::string>());
  }
  std::string kernel = doc.value("kernel_name", ordered_json("kernel")).is_string() ? doc.value("kernel_name", "kernel") : "kernel";
  out.tool = {{"name", "kernel_tuner"}, {"version", "cache"}, {"git_commit", ""}};
  out.config = {{"name", kernel}, {"description", "a Kernel Tuner cache file"}, {"sizes", ordered_json::object()}};
  out.run = nullptr;
  std::string device = doc.value("device_name", ordered_json("")).is_string() ? doc.value("device_name", "") : "";
  out.devices = {{{"name", device}}};
  for (const auto& item : doc["cache"].items()) out.results.push_back(cache_record(path, item.key(), item.value(), names, kernel));
  if (out.results.empty()) throw cache_error(path, "cache", "expected at least one cached configuration");
  return out;
}

}  // namespace occbench
