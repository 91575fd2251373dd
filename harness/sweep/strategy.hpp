#pragma once
// How a run chooses its points: every point (exhaustive), a random sample, or a search strategy
// that reads the results so far (harness/search), with its budget and seed.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

// How the points are chosen (run --strategy, --max-points, --time-limit, --seed, --objective, or
// the config's "search").
struct Strategy {
  std::string name = "exhaustive";        // one of strategy_names()
  std::optional<std::size_t> max_points;  // at most this many points (exhaustive: the first ones)
  std::uint64_t seed = 0;                 // random and the searches
  std::optional<double> time_limit_s;     // a search: stop once its points took this long (time_use.point_s)
  std::string objective = "timing.median_ms";  // a search: FIELD[:min|:max] of the record
  bool is_default() const { return name == "exhaustive" && !max_points && !time_limit_s; }
  // local, genetic, model, bayes: the next point depends on the results so far (harness/search).
  bool is_adaptive() const { return name != "exhaustive" && name != "random"; }
};
// The strategy names run --strategy takes: exhaustive, random, local, genetic, model, bayes.
const std::vector<std::string>& strategy_names();
// Checked: a known name; random with --max-points, a search with --max-points or --time-limit.
// Throws ConfigError naming `where` (the command line's flags, or a config path).
void check_strategy(const Strategy& strategy, const std::string& file = "command line", const std::string& where = "");
// For the run record and the .jsonl header ({"name", "max_points", "time_limit_s", "seed",
// "objective"}), and back (a header of an older run lacks the last ones).
nlohmann::ordered_json to_json(const Strategy& strategy);
Strategy strategy_from_json(const nlohmann::ordered_json& json, const std::string& source);

}  // namespace occbench
