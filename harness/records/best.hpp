#pragma once
// `occbench best RECORD`: the best point of each variant at each size of a run (a .json document
// or a .jsonl, finished or not), by an objective (the median time by default, or any numeric field
// of the record, to minimise or maximise), written as JSON and as a C/C++ header of #defines that
// a user's build can include, with the GPU, the sizes and the measured value in comments.
#include "harness/records/merge.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace occbench {

struct Objective {
  std::string field = "timing.median_ms";  // a dotted path into the record
  bool maximize = false;
  std::string text() const { return field + (maximize ? ":max" : ":min"); }
  bool better(double a, double b) const { return maximize ? a > b : a < b; }  // a value beats another
};
// "FIELD", "FIELD:min" or "FIELD:max"; throws std::invalid_argument saying what was expected.
Objective parse_objective(const std::string& text);
// The record's value of the objective's field, where the point is ok and the field a number.
std::optional<double> objective_value(const nlohmann::ordered_json& record, const Objective& objective);

// The names of the sizes of the run's config ("m", "n"): the params that are not launch axes.
std::vector<std::string> size_names(const ShardOutput& input);
// A record's params split into its sizes (`size_names`) and its launch and tuning axes, each in order.
struct SplitParams {
  nlohmann::ordered_json sizes = nlohmann::ordered_json::object(), axes = nlohmann::ordered_json::object();
};
SplitParams split_params(const nlohmann::ordered_json& record, const std::vector<std::string>& size_names);

struct BestPoint {
  std::string family, variant;
  nlohmann::ordered_json sizes, params;  // params: the launch and tuning axes (sizes left out)
  nlohmann::ordered_json record;
  double value = 0;
  int candidates = 0;  // points of the group with a value
};

// Per family, variant and sizes (the config's size names), in first-seen order.
std::vector<BestPoint> best_points(const ShardOutput& input, const Objective& objective);

nlohmann::ordered_json best_json(const std::vector<BestPoint>& best, const ShardOutput& input, const Objective& objective);
// #define OCCBENCH_<FAMILY>_<VARIANT>[_<SIZES>]_<PARAM> value, the sizes in the name only where the
// variant was measured at several.
std::string best_header(const std::vector<BestPoint>& best, const ShardOutput& input, const Objective& objective);
std::string format_best(const std::vector<BestPoint>& best, const Objective& objective);

}  // namespace occbench
