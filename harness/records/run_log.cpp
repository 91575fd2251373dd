#include "harness/records/run_log.hpp"

#include "harness/records/report.hpp"
#include "harness/sweep/config.hpp"
#include "harness/sweep/strategy.hpp"
#include "harness/sweep/sweep.hpp"

#include <fmt/format.h>

namespace occbench {

void check_stored_selection(const ordered_json& stored, const std::string& path) {
  auto refuse = [&](const std::string& field, const char* expected) {
    throw ResultsFileError(fmt::format("{}: line 1: $.selection.{}: expected {}", path, field, expected));
  };
  if (!stored.is_object()) refuse("", "an object");
  if (stored.contains("variants")) {
    if (!stored["variants"].is_array()) refuse("variants", "a list of variant names");
    for (const auto& name : stored["variants"])
      if (!name.is_string()) refuse("variants", "a list of variant names");
  }
  for (const char* key : {"filter", "shard"})
    if (stored.contains(key) && !stored[key].is_string()) refuse(key, "a string");
  if (!stored.contains("set")) return;
  if (!stored["set"].is_object()) refuse("set", "an object of axes and their values");
  for (const auto& axis : stored["set"].items()) {
    if (!axis.value().is_array()) refuse("set." + axis.key(), "a list of whole numbers");
    for (const auto& value : axis.value())
      if (!value.is_number_integer()) refuse("set." + axis.key(), "a list of whole numbers");
  }
}

SweepSpec check_run_log(const JsonlContents& log, const std::string& path, const Registry& registry) {
  if (!log.header.contains("config") || !log.header["config"].is_object())
    throw ResultsFileError(fmt::format("{}: line 1: no config in the header; expected the log of an occbench run", path));
  std::string source = log.header.value("config_source", path);
  if (!log.header.contains("config_source") || !log.header["config_source"].is_string()) source = path;
  SweepSpec spec = parse_sweep_json(log.header["config"], source + " (as stored in " + path + ")", registry);
  if (log.header.contains("strategy")) strategy_from_json(log.header["strategy"], path);
  if (log.header.contains("selection")) check_stored_selection(log.header["selection"], path);
  for (std::size_t i = 0; i < log.results.size(); ++i)
    if (std::string id = record_point_id(log.results[i]); !point_with_id(spec, registry, id))
      throw ResultsFileError(fmt::format("{}: record {}: point {} is not a point of the sweep its header stores; expected one "
                                         "sweep's log", path, i + 1, id));
  return spec;
}

}  // namespace occbench
