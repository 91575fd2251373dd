#include "harness/search/replay.hpp"

#include "harness/core/json.hpp"
#include "harness/core/parallel.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/records/time_use.hpp"
#include "harness/search/live_model.hpp"
#include "harness/search/search_walkers.hpp"
#include "harness/search/searcher.hpp"
#include "harness/sweep/strategy.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace occbench {

namespace {

using json = nlohmann::ordered_json;

// One size's records as candidates of a space, each with its objective value (none: failed,
// skipped or without the field).
struct RecordedSpace {
  std::string sizes;
  std::vector<Coordinates> candidates;
  std::vector<std::optional<double>> values;
  std::vector<std::string> ids;
  std::vector<std::vector<double>> plan_features;  // what plan knows of each point before it runs
  std::vector<double> seconds;                     // what measuring each took (time_use.point_s)
  std::vector<double> compile_s;                   // what compiling its kernel took (compile.nvrtc_ms), told as live
};

// Theoretical occupancy, resident blocks per SM, registers per thread, shared memory per block and
// log2 of the grid's blocks: known for every point before it runs (occbench plan), 0 where absent.
std::vector<double> plan_features(const json& record) {
  auto number = [&](const char* section, const char* field) { return number_at(record, section, field, 0.0); };
  double blocks = 1;
  const json& launch = record.value("launch", json::object());
  if (launch.is_object() && launch.contains("grid") && launch["grid"].is_array())
    for (const auto& d : launch["grid"]) blocks *= d.is_number() ? d.get<double>() : 1.0;
  return {number("occupancy", "theoretical"), number("occupancy", "active_blocks_per_sm"), number("resources", "registers_per_thread"),
          number("resources", "static_smem_bytes") + number("launch", "dynamic_smem_bytes"), std::log2(std::max(blocks, 1.0))};
}

std::vector<RecordedSpace> recorded_spaces(const ShardOutput& input, const Objective& objective) {
  std::vector<std::string> sizes = size_names(input);
  std::vector<RecordedSpace> spaces;
  std::map<std::string, std::size_t> space_of;
  std::set<std::string> seen;
  for (const auto& record : input.results) {
    std::string id = record.value("point_id", "");
    if (!seen.insert(id).second) continue;  // a merged document may hold a point per GPU: the first
    SplitParams split = split_params(record, sizes);
    std::string size_text = pairs_text(split.sizes);
    Coordinates coordinates = {{"variant", record.value("variant", "")}};
    for (const auto& item : split.axes.items()) coordinates.emplace_back(item.key(), item.value());
    auto [found, added] = space_of.emplace(size_text, spaces.size());
    if (added) spaces.push_back(RecordedSpace{size_text, {}, {}, {}, {}, {}, {}});
    RecordedSpace& space = spaces[found->second];
    space.candidates.push_back(std::move(coordinates));
    space.values.push_back(objective_value(record, objective));
    space.ids.push_back(id);
    space.plan_features.push_back(plan_features(record));
    space.seconds.push_back(number_at(record, "time_use", "point_s", 0.0));
    space.compile_s.push_back(kernel_compile_s(record));
  }
  return spaces;
}

// 1 where the best value found is the optimum, less the further it is from it.
double fraction_of_optimum(double found, double optimum, bool maximize) {
  if (found == 0 || optimum == 0) return found == optimum ? 1.0 : 0.0;
  return maximize ? found / optimum : optimum / found;
}

// One search after 1, 2, ... `steps` points: the fraction of the optimum found, and the share of
// the space's measuring time spent.
struct Trajectory {
  std::vector<double> reached, time_share, wall_s;
};


// The live run's compile workers: one per core but the measuring process's.
std::size_t compile_workers(const ReplayOptions& options) { return options.cores > 1 ? options.cores - 1 : 1; }

// What the live-search model reads of the recorded space: each candidate's cost as the strategy
// sees it (lower is better), compile time (the model's seconds where the record keeps none) and
// measuring time.
LiveCosts live_costs(const RecordedSpace& recorded, const ReplayOptions& options) {
  LiveCosts costs;
  for (std::size_t c = 0; c < recorded.values.size(); ++c) {
    std::optional<double> value = recorded.values[c];
    costs.cost.push_back(value && options.objective.maximize ? std::optional<double>(-*value) : value);
    double measured = recorded.compile_s[c];
    costs.compile_s.push_back(measured > 0 ? measured : options.compile_s);
    costs.measure_s.push_back(recorded.seconds[c] > 0 ? recorded.seconds[c] : options.measure_s);
  }
  return costs;
}

// Batches by the width rule (--batch 0), where compiling costs anything: with nothing to compile
// the rule asks one point at a time throughout, as --batch 1 does.
bool adaptive(const LiveCosts& costs, const ReplayOptions& options) {
  return options.batch == 0 && std::any_of(costs.compile_s.begin(), costs.compile_s.end(), [](double s) { return s > 0; });
}

// `run --strategy random` draws its whole sample before the run and measures it as a list, whose
// kernels compile ahead from the start: one batch of the budget, not batches that wait for results.
bool sampled_before_the_run(const std::string& strategy) { return strategy == "random"; }

// One search of the recorded space by `walkers` (SearchWalkers), simulated as run would measure it
// (live_model): its candidates in the order measured, and when.
LiveSearch live_search(const std::string& strategy, const SearchSpace& space, const LiveCosts& costs, std::uint64_t seed,
                       std::size_t steps, std::size_t walkers, const ReplayOptions& options) {
  if (adaptive(costs, options) && !sampled_before_the_run(strategy)) {
    SearchWalkers search(strategy, space, seed, steps, AdaptiveBatches{walkers, BatchWidthRule{compile_workers(options) + 1}});
    return simulate_live_search(search, costs, LiveModel{0, compile_workers(options)});
  }
  SearchWalkers search(strategy, space, seed, steps, walkers);
  std::size_t batch = sampled_before_the_run(strategy) ? steps : std::max<std::size_t>(1, options.batch);
  return simulate_live_search(search, costs, LiveModel{batch, compile_workers(options)});
}

// A search's trajectory: the points up to each budget are those of a search of that budget (its
// walkers share it: a longer search's first points are not what a shorter one measures, for the
// GPU measures walker 0's compiled points first; a random sample of a budget is measured
// compiled first). One walker's search is the same whatever its budget, but for its last batch, so
// one search of the largest budget serves every budget it walks.
Trajectory trajectory(const std::string& strategy, const SearchSpace& space, const RecordedSpace& recorded, const LiveCosts& costs,
                      double optimum, std::uint64_t seed, const std::vector<std::size_t>& budgets, const ReplayOptions& options) {
  const Objective& objective = options.objective;
  bool in_batches = options.batch > 1 || adaptive(costs, options);
  auto walkers_of = [&](std::size_t budget) { return in_batches ? walkers_for(strategy, budget) : std::size_t(1); };
  // The search a budget reads: its walkers and its points.
  auto search_of = [&](std::size_t budget) {
    std::size_t walkers = walkers_of(budget);
    bool own = walkers > 1 || sampled_before_the_run(strategy);
    return std::make_pair(walkers, own ? budget : budgets.back());
  };
  std::map<std::pair<std::size_t, std::size_t>, LiveSearch> searches;
  for (std::size_t b : budgets)
    if (auto key = search_of(b); !searches.count(key))
      searches.emplace(key, live_search(strategy, space, costs, seed, key.second, key.first, options));
  double total_s = 0, spent_s = 0, wall_s = 0;
  for (double s : recorded.seconds) total_s += s;
  const double worst = objective.maximize ? -HUGE_VAL : HUGE_VAL;  // what any value beats
  double best = worst;  // not a std::optional: GCC 12 warns, wrongly, that its value may be read unset here
  // The k-th point the search measured (past the end of the space the curve stays where it is).
  auto take = [&](const LiveSearch& search, std::size_t k) {
    if (k >= search.measured.size()) return;
    std::size_t c = search.measured[k];
    if (const std::optional<double>& value = recorded.values[c]; value && objective.better(*value, best)) best = *value;
    spent_s += recorded.seconds[c];
    wall_s = std::max(wall_s, search.measured_at_s[k]);
  };
  Trajectory out;
  const LiveSearch* current = nullptr;
  for (std::size_t k = 0; k < budgets.back(); ++k) {
    const LiveSearch& search = searches.at(search_of(*std::lower_bound(budgets.begin(), budgets.end(), k + 1)));
    if (&search != current) {  // the next budget's own search: its points before this one too
      current = &search, best = worst, spent_s = wall_s = 0;
      for (std::size_t j = 0; j < k; ++j) take(search, j);
    }
    take(search, k);
    out.reached.push_back(best != worst ? fraction_of_optimum(best, optimum, objective.maximize) : 0.0);
    out.time_share.push_back(total_s > 0 ? spent_s / total_s : 0.0);
    out.wall_s.push_back(wall_s);
  }
  return out;
}

double quantile(const std::vector<double>& sorted, double q) {
  double position = q * double(sorted.size() - 1);
  std::size_t below = std::size_t(std::floor(position));
  std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - double(below)) * (sorted[above] - sorted[below]);
}

ReplayStep summarize(std::vector<double> fractions, std::vector<double> time_shares, std::size_t points) {
  std::sort(fractions.begin(), fractions.end());
  std::sort(time_shares.begin(), time_shares.end());
  ReplayStep step;
  step.points = points;
  step.median = quantile(fractions, 0.5);
  step.lower_quartile = quantile(fractions, 0.25);
  step.upper_quartile = quantile(fractions, 0.75);
  step.worst = fractions.front();
  double sum = 0, near = 0;
  for (double f : fractions) sum += f, near += f >= 0.95;
  step.mean = sum / double(fractions.size());
  step.reached_95 = near / double(fractions.size());
  step.time_share = quantile(time_shares, 0.5);
  return step;
}

std::vector<std::size_t> budgets_in_points(const ReplayOptions& options, std::size_t points) {
  if (options.max_points) return {std::min(*options.max_points, points)};
  std::vector<std::size_t> out;
  for (double percent : options.budget_percents)
    out.push_back(std::clamp<std::size_t>(std::size_t(std::ceil(percent / 100.0 * double(points))), 1, points));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());  // small spaces round several to one
  return out;
}

// `planned`: the space with plan's features, which model_plan (the model strategy) is fitted on.
ReplayCurve replay_curve(const std::string& strategy, const SearchSpace& space, const SearchSpace& planned,
                         const RecordedSpace& recorded, const ReplayOptions& options, double optimum, const std::vector<std::size_t>& budgets) {
  std::size_t steps = budgets.back();
  std::vector<Trajectory> runs(std::size_t(options.seeds));
  bool with_plan = strategy == "model_plan";
  LiveCosts costs = live_costs(recorded, options);  // the same for every seed
  parallel_for(runs.size(), [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t s = begin; s < end; ++s)
      runs[s] = trajectory(with_plan ? "model" : strategy, with_plan ? planned : space, recorded, costs, optimum,
                           options.first_seed + s, budgets, options);
  }, 2);
  ReplayCurve curve{strategy, {}};
  for (std::size_t k = 0; k < steps; ++k) {
    std::vector<double> reached, time_share, wall_s;
    for (const auto& run : runs)
      reached.push_back(run.reached[k]), time_share.push_back(run.time_share[k]), wall_s.push_back(run.wall_s[k]);
    curve.steps.push_back(summarize(reached, time_share, k + 1));
    if (std::binary_search(budgets.begin(), budgets.end(), k + 1)) {  // in seed order, before wall_s is sorted
      curve.steps.back().seed_fractions = reached;
      curve.steps.back().seed_walls_s = wall_s;
    }
    std::sort(wall_s.begin(), wall_s.end());
    curve.steps.back().wall_s = quantile(wall_s, 0.5);
  }
  return curve;
}

ReplaySpace replay_space(const RecordedSpace& recorded, const ReplayOptions& options) {
  ReplaySpace out;
  out.sizes = recorded.sizes;
  out.points = recorded.candidates.size();
  std::optional<std::size_t> best;
  for (std::size_t c = 0; c < recorded.values.size(); ++c) {
    if (!recorded.values[c]) continue;
    ++out.with_value;
    double v = *recorded.values[c];
    if (!best || options.objective.better(v, *recorded.values[*best])) best = c;
  }
  if (!best)
    throw std::invalid_argument(fmt::format("no point of size {} has a number at {}", recorded.sizes.empty() ? "–" : recorded.sizes,
                                            options.objective.field));
  out.optimum = *recorded.values[*best];
  out.optimum_point = recorded.ids[*best];
  out.budgets = budgets_in_points(options, out.points);
  SearchSpace space(recorded.candidates), planned(recorded.candidates);
  planned.add_features(recorded.plan_features);
  for (const auto& strategy : options.strategies)
    out.curves.push_back(replay_curve(strategy, space, planned, recorded, options, out.optimum, out.budgets));
  return out;
}

// "| budget | points | random | local |" and its rule.
std::string header(const ReplaySpace& space) {
  std::string text = "| budget | points |";
  for (const auto& curve : space.curves) text += " " + curve.strategy + " |";
  text += "\n|---|---:|";
  for (std::size_t i = 0; i < space.curves.size(); ++i) text += "---|";
  return text + "\n";
}

std::string cell(const ReplayStep& s) {
  return fmt::format("{:.3f} [{:.3f}–{:.3f}]", s.median, s.lower_quartile, s.upper_quartile);
}

json step_json(const ReplayStep& s) {
  json out = {{"points", s.points}, {"median", s.median}, {"lower_quartile", s.lower_quartile}, {"upper_quartile", s.upper_quartile},
              {"worst", s.worst}, {"mean", s.mean}, {"reached_95", s.reached_95}, {"time_share", s.time_share}, {"wall_s", s.wall_s}};
  if (!s.seed_fractions.empty()) out["seed_fractions"] = s.seed_fractions, out["seed_walls_s"] = s.seed_walls_s;
  return out;
}

}  // namespace

std::vector<ReplaySpace> replay(const ShardOutput& input, const ReplayOptions& options) {
  // Every strategy run --strategy takes but exhaustive, and model_plan.
  std::vector<std::string> replayable;
  for (const auto& name : strategy_names())
    if (name != "exhaustive") replayable.push_back(name);
  replayable.push_back("model_plan");
  for (const auto& strategy : options.strategies)
    if (std::find(replayable.begin(), replayable.end(), strategy) == replayable.end())
      throw std::invalid_argument(fmt::format("--strategy {}: expected one of: {}", strategy, fmt::join(replayable, ", ")));
  std::vector<ReplaySpace> out;
  for (const auto& recorded : recorded_spaces(input, options.objective)) out.push_back(replay_space(recorded, options));
  return out;
}

// How the strategies ask: "one point at a time", "batches of 16", or by the width rule.
std::string batches_text(const ReplayOptions& options) {
  if (options.batch == 0) return fmt::format("batches as wide as keep the GPU busy (the width rule, at most {})", compile_workers(options) + 1);
  return options.batch > 1 ? fmt::format("batches of {}", options.batch) : std::string("one point at a time");
}

// The median wall a live search of each budget would take under the compile-cost model.
std::string modeled_wall_table(const ReplaySpace& space, const ReplayOptions& options) {
  std::string text = fmt::format("\nwall of a live search, modeled: each point's compile time as measured (compile.nvrtc_ms), "
                                 "else {} s, {} core(s) ({} compile worker(s) ahead of the GPU), {} (random: its whole "
                                 "sample, drawn before the run), median s\n",
                                 options.compile_s, options.cores, compile_workers(options), batches_text(options)) +
                     header(space);
  for (std::size_t b : space.budgets) {
    text += fmt::format("| {:.1f}% | {} |", 100.0 * double(b) / double(space.points), b);
    for (const auto& curve : space.curves) text += fmt::format(" {:.1f} |", curve.steps[b - 1].wall_s);
    text += "\n";
  }
  return text;
}

std::string format_replay(const std::vector<ReplaySpace>& spaces, const ReplayOptions& options) {
  std::string text;
  for (const auto& space : spaces) {
    text += fmt::format("space {}: {} points, {} with a value; optimum {:.6g} ({}) at {}\n", space.sizes.empty() ? "–" : space.sizes,
                        space.points, space.with_value, space.optimum, options.objective.text(), space.optimum_point);
    text += fmt::format("fraction of the optimum found, median [quartiles] of {} seeds, asked in {}\n", options.seeds,
                        batches_text(options)) + header(space);
    for (std::size_t b : space.budgets) {
      text += fmt::format("| {:.1f}% | {} |", 100.0 * double(b) / double(space.points), b);
      for (const auto& curve : space.curves) text += " " + cell(curve.steps[b - 1]) + " |";
      text += "\n";
    }
    // What a live search of that many points would have spent of the full sweep's measuring time.
    text += "\nshare of the whole space's measuring time (time_use.point_s) its points took, median\n" + header(space);
    for (std::size_t b : space.budgets) {
      text += fmt::format("| {:.1f}% | {} |", 100.0 * double(b) / double(space.points), b);
      for (const auto& curve : space.curves) text += fmt::format(" {:.1f}% |", 100.0 * curve.steps[b - 1].time_share);
      text += "\n";
    }
    if (options.compile_s > 0) text += modeled_wall_table(space, options);
    text += "\n";
  }
  return text;
}

json replay_json(const std::vector<ReplaySpace>& spaces, const ShardOutput& input, const ReplayOptions& options) {
  json out = {{"replay_of", input.path}, {"objective", options.objective.text()}, {"seeds", options.seeds}, {"batch", options.batch},
              {"first_seed", options.first_seed}, {"spaces", json::array()}};
  if (!input.devices.empty()) out["device"] = input.devices.front().value("name", "");
  for (const auto& space : spaces) {
    json s = {{"sizes", space.sizes}, {"points", space.points}, {"with_value", space.with_value}, {"optimum", space.optimum},
              {"optimum_point", space.optimum_point}, {"budgets", space.budgets}, {"strategies", json::array()}};
    for (const auto& curve : space.curves) {
      json steps = json::array();
      for (const auto& step : curve.steps) steps.push_back(step_json(step));
      s["strategies"].push_back({{"name", curve.strategy}, {"steps", std::move(steps)}});
    }
    out["spaces"].push_back(std::move(s));
  }
  return out;
}

}  // namespace occbench
