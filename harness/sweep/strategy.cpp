#include "harness/sweep/strategy.hpp"

#include "harness/sweep/spec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace occbench {

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {"exhaustive", "random", "local", "genetic", "model", "bayes"};
  return names;
}

void check_strategy(const Strategy& strategy, const std::string& file, const std::string& where) {
  auto path = [&](const std::string& flag, const std::string& field) { return where.empty() ? flag : where + "." + field; };
  const auto& names = strategy_names();
  if (std::find(names.begin(), names.end(), strategy.name) == names.end())
    throw ConfigError(file, path("--strategy " + strategy.name, "strategy"), fmt::format("expected one of: {}", fmt::join(names, ", ")));
  if (strategy.name == "random" && !strategy.max_points && !strategy.time_limit_s)
    throw ConfigError(file, path("--strategy random", "max_points"),
                      "expected --max-points N (max_points): how many points to sample, and/or --time-limit S (time_limit_s)");
  if (strategy.is_adaptive() && !strategy.max_points && !strategy.time_limit_s)
    throw ConfigError(file, path("--strategy " + strategy.name, "max_points"),
                      "expected a budget: --max-points N and/or --time-limit S (max_points, time_limit_s)");
  if (strategy.max_points && *strategy.max_points == 0)
    throw ConfigError(file, path("--max-points 0", "max_points"), "expected at least 1 point");
  if (strategy.time_limit_s && !(*strategy.time_limit_s > 0))
    throw ConfigError(file, path(fmt::format("--time-limit {}", *strategy.time_limit_s), "time_limit_s"), "expected seconds > 0");
}

nlohmann::ordered_json to_json(const Strategy& strategy) {
  nlohmann::ordered_json j = {{"name", strategy.name}, {"max_points", nullptr}, {"time_limit_s", nullptr},
                              {"seed", strategy.seed}, {"objective", strategy.objective}};
  if (strategy.max_points) j["max_points"] = *strategy.max_points;
  if (strategy.time_limit_s) j["time_limit_s"] = *strategy.time_limit_s;
  return j;
}

Strategy strategy_from_json(const nlohmann::ordered_json& json, const std::string& source) {
  Strategy strategy;
  try {
    strategy.name = json.at("name").get<std::string>();
    if (!json.at("max_points").is_null()) strategy.max_points = json.at("max_points").get<std::size_t>();
    if (json.contains("time_limit_s") && !json["time_limit_s"].is_null()) strategy.time_limit_s = json["time_limit_s"].get<double>();
    strategy.seed = json.at("seed").get<std::uint64_t>();
    strategy.objective = json.value("objective", strategy.objective);
  } catch (const nlohmann::json::exception&) {  // nlohmann's words name neither the file nor the field
    throw ConfigError(source, "strategy", "expected {\"name\": a strategy name, \"max_points\": a whole number or null, "
                                          "\"seed\": a whole number of at least 0, \"objective\": a field name}");
  }
  return strategy;
}

}  // namespace occbench
