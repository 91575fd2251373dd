// occbench best RECORD: the best point of each variant and size, as a table, JSON and a C/C++
// header (harness/records/best.hpp).
#include "harness/cli/cli.hpp"
#include "harness/cli/commands.hpp"
#include "harness/core/files.hpp"
#include "harness/records/best.hpp"
#include "harness/records/report.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace occbench {

namespace {

struct BestFlags {
  std::string input, objective = "timing.median_ms", out;
};

int best_command(const BestFlags& flags, const Registry& registry) {
  Objective objective;
  try {
    objective = parse_objective(flags.objective);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: best: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (!flags.out.empty())
    for (const char* extension : {".json", ".h"})
      check_output_file_ours("best --out", flags.out + extension, {flags.input},
                             std::string(extension) == ".json" ? "\"occbench_best\"" : "measured by occbench (occbench best");
  ShardOutput input = read_shard_output(flags.input, &registry);  // a .jsonl read as run --resume reads it
  std::vector<BestPoint> best = best_points(input, objective);
  if (best.empty()) {
    std::cerr << fmt::format("error: best: no ok point of {} has a number at {}\n", flags.input, objective.field);
    return kExitBadInput;
  }
  std::cout << format_best(best, objective);
  if (flags.out.empty()) return kExitOk;
  write_text_file(flags.out + ".json", best_json(best, input, objective).dump(2) + "\n");
  write_text_file(flags.out + ".h", best_header(best, input, objective));
  std::cout << fmt::format("wrote {}.json\n      {}.h\n", flags.out, flags.out);
  return kExitOk;
}

}  // namespace

Command add_best_command(CLI::App& app, const Registry& registry) {
  auto flags = std::make_shared<BestFlags>();
  CLI::App* best = app.add_subcommand("best", "The best point of each variant and size of a run, as a table, JSON and a C/C++ header");
  best->add_option("record", flags->input, "A run's results: the .json document or the .jsonl (finished or not)")->required();
  best->add_option("--objective", flags->objective,
                   "FIELD[:min|:max] of the record, e.g. metrics.achieved_bandwidth_gbps:max or energy.joules_per_launch")
      ->capture_default_str();
  best->add_option("--out", flags->out, "Write OUT.json and OUT.h (#define OCCBENCH_<FAMILY>_<VARIANT>_<PARAM> value)");
  return {best, [&registry, flags](const std::vector<std::string>&) { return best_command(*flags, registry); }};
}

}  // namespace occbench
