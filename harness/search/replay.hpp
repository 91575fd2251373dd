#pragma once
// `occbench replay RECORD`: search strategies run against a space measured in full, with no GPU
// (Kernel Tuner's simulation mode): each strategy asks for points, and the recorded result of
// each is told back. Per budget (a share of the space's points), over many seeds, how close the
// best point found comes to the space's optimum, as a fraction (1: the optimum found), against
// random sampling. Each size of the record is its own space.
#include "harness/records/best.hpp"
#include "harness/records/merge.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace occbench {

// model_plan, in replay only: the model strategy fitted on each point's axes and on what plan knows
// of it before it runs (theoretical occupancy, resident blocks, registers, shared memory, grid
// size), read from the records: does that knowledge help the model?
struct ReplayOptions {
  std::vector<std::string> strategies = {"random", "local", "genetic", "model"};
  std::vector<double> budget_percents = {1, 2, 5, 10, 20};  // of the space's points
  std::optional<std::size_t> max_points;  // one budget in points instead
  // The strategies ask in batches of this many (Searcher::ask_batch), as run with compile workers;
  // 0: as wide as keeps the GPU busy (batch_width.hpp), from the compile and measuring times, as run does.
  std::size_t batch = 0;
  // The compile-cost model of a live search's wall (0: none): seconds to compile a point where its
  // record keeps no measured time (compile.nvrtc_ms), compilers at once.
  double compile_s = 0;
  double measure_s = 0;  // seconds to measure a point where its record keeps none (time_use.point_s)
  std::size_t cores = 1;
  int seeds = 50;
  std::uint64_t first_seed = 0;
  Objective objective;
};

// The fraction of the optimum found with `points` evaluations, over the seeds.
struct ReplayStep {
  std::size_t points = 0;
  double median = 0, lower_quartile = 0, upper_quartile = 0, worst = 0, mean = 0;
  double reached_95 = 0;  // the share of seeds within 95% of the optimum
  double time_share = 0;  // median over seeds: the measuring time of the points so far over the whole space's (time_use.point_s)
  double wall_s = 0;      // median over seeds: a live search's wall under the compile-cost model (ReplayOptions::compile_s)
  // At the budgets: each seed's fraction and modeled wall, in seed order (for tests of significance).
  std::vector<double> seed_fractions, seed_walls_s;
};

struct ReplayCurve {
  std::string strategy;
  std::vector<ReplayStep> steps;  // one per number of points, 1 .. the largest budget
};

struct ReplaySpace {
  std::string sizes;  // "m=20000 n=2475"
  std::size_t points = 0, with_value = 0;
  double optimum = 0;
  std::string optimum_point;
  std::vector<std::size_t> budgets;  // in points
  std::vector<ReplayCurve> curves;
};

// Throws std::invalid_argument where a strategy is unknown or a space has no point with a value.
std::vector<ReplaySpace> replay(const ShardOutput& input, const ReplayOptions& options);

std::string format_replay(const std::vector<ReplaySpace>& spaces, const ReplayOptions& options);
nlohmann::ordered_json replay_json(const std::vector<ReplaySpace>& spaces, const ShardOutput& input, const ReplayOptions& options);

}  // namespace occbench
