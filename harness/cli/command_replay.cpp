// occbench replay RECORD: search strategies against a space measured in full, no GPU needed
// (harness/search/replay.hpp).
#include "harness/cli/cli.hpp"
#include "harness/cli/commands.hpp"
#include "harness/core/files.hpp"
#include "harness/search/replay.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <sstream>

namespace occbench {

namespace {

struct ReplayFlags {
  std::string input, strategies = "random,local,genetic,model", budgets = "1,2,5,10,20", objective = "timing.median_ms", out;
  std::size_t max_points = 0, batch = 0, cores = 1;
  double compile_s = 0, measure_s = 0;
  int seeds = 50;
  std::uint64_t seed = 0;
};

// A flag's comma-separated items; an empty item (--budgets 1,,2, --strategy '') is refused, not
// taken as "not given".
std::vector<std::string> split_list(const std::string& flag, const std::string& text, const char* expected) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');) out.push_back(item);
  if (!text.empty() && text.back() == ',') out.push_back("");
  if (out.empty() || std::find(out.begin(), out.end(), "") != out.end())
    throw BadInput(fmt::format("{} '{}': an empty item; expected a list of {}, comma-separated", flag, text, expected));
  return out;
}

// Throws std::invalid_argument naming the flag.
ReplayOptions replay_options(const ReplayFlags& flags) {
  ReplayOptions options;
  options.objective = parse_objective(flags.objective);
  options.strategies = split_list("--strategy", flags.strategies, "strategies (random, local, genetic, model, bayes, model_plan)");
  if (std::find(options.strategies.begin(), options.strategies.end(), "random") == options.strategies.end())
    options.strategies.insert(options.strategies.begin(), "random");  // the baseline of every table
  options.budget_percents.clear();
  for (const auto& item : split_list("--budgets", flags.budgets, "percentages of the space in (0, 100], e.g. 1,2,5,10,20")) {
    std::size_t used = 0;
    double percent = -1;
    try {
      percent = std::stod(item, &used);
    } catch (const std::exception&) {
    }
    if (used != item.size() || !(percent > 0 && percent <= 100))
      throw BadInput(fmt::format("--budgets {}: expected a list of percentages of the space in (0, 100], e.g. 1,2,5,10,20",
                                 flags.budgets));
    options.budget_percents.push_back(percent);
  }
  if (flags.max_points > 0) options.max_points = flags.max_points;
  options.seeds = flags.seeds;
  options.batch = flags.batch;
  options.compile_s = flags.compile_s;
  options.measure_s = flags.measure_s;
  options.cores = flags.cores;
  options.first_seed = flags.seed;
  return options;
}

int replay_command(const ReplayFlags& flags, const Registry& registry) {
  ReplayOptions options;
  std::vector<ReplaySpace> spaces;
  if (!flags.out.empty()) check_output_file("replay --out", flags.out, {flags.input});
  ShardOutput input = read_shard_output(flags.input, &registry);  // a .jsonl read as run --resume reads it
  try {
    options = replay_options(flags);
    spaces = replay(input, options);
  } catch (const std::invalid_argument& e) {
    std::cerr << fmt::format("error: replay {}: {}\n", flags.input, e.what());
    return kExitBadInput;
  }
  std::cout << format_replay(spaces, options);
  if (flags.out.empty()) return kExitOk;
  write_text_file(flags.out, replay_json(spaces, input, options).dump(1) + "\n");
  std::cout << fmt::format("wrote {}\n", flags.out);
  return kExitOk;
}

}  // namespace

Command add_replay_command(CLI::App& app, const Registry& registry) {
  auto flags = std::make_shared<ReplayFlags>();
  CLI::App* replay = app.add_subcommand("replay", "Search strategies against a run measured in full, without a GPU: how near "
                                                  "the optimum each gets per budget, against random sampling");
  replay->add_option("record", flags->input, "A run's results over the whole space: the .json document or the .jsonl")->required();
  replay->add_option("--strategy", flags->strategies, "Strategies, comma-separated: random, local, genetic, model, bayes, and model_plan (the model also fitted on each "
                     "point's occupancy, registers, shared memory and grid, as plan knows them; random is always added)")
      ->capture_default_str();
  replay->add_option("--budgets", flags->budgets, "Budgets as percentages of each space's points")->capture_default_str();
  replay->add_option("--max-points", flags->max_points, "One budget of N points instead of --budgets")
      ->check(whole_number(1, 1'000'000'000));
  replay->add_option("--seeds", flags->seeds, "Searches per strategy, seeds --seed, --seed+1, ...")
      ->check(whole_number(1, 100000))->capture_default_str();
  replay->add_option("--batch", flags->batch, "The strategies ask in batches of N (1: one point at a time); 0: as wide as keeps the GPU "
                     "busy, from the compile and measuring times (--compile-s, --measure-s, --cores), as run does")
      ->check(whole_number(0, 1024))
      ->capture_default_str();
  replay->add_option("--compile-s", flags->compile_s, "Model a live search's wall: seconds to compile a point whose record keeps no measured time (compile.nvrtc_ms; 0: no model)")
      ->check(finite_number(0, false, 3600))  // an hour a compile: more is no compile time
      ->capture_default_str();
  replay->add_option("--measure-s", flags->measure_s, "Seconds to measure a point whose record keeps no measured time (time_use.point_s), for the wall model and the batch width")
      ->check(finite_number(0, false, 3600))
      ->capture_default_str();
  replay->add_option("--cores", flags->cores, "Cores in the wall model: one measures, the others compile what the search is likely to ask next (as run's workers)")
      ->check(whole_number(1, 1024))
      ->capture_default_str();
  replay->add_option("--seed", flags->seed, "The first seed")->check(whole_number(0))->capture_default_str();
  replay->add_option("--objective", flags->objective, "FIELD[:min|:max] of the record, as run --objective")->capture_default_str();
  replay->add_option("--out", flags->out, "Write the curves (every budget from 1 point on) as JSON, for plots/occplot.py --kinds search");
  return {replay, [&registry, flags](const std::vector<std::string>&) { return replay_command(*flags, registry); }};
}

}  // namespace occbench
