// occbench's command line: the app, its --version, the options several subcommands share, parsing
// and dispatch. Each subcommand lives in harness/command_<name>.cpp.
#include "harness/cli/cli.hpp"

#include "harness/cli/commands.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/records/best.hpp"
#include "harness/records/report.hpp"
#include "harness/sweep/selection.hpp"
#include "harness/sweep/shard.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>

namespace occbench {

std::string join_command(const std::vector<std::string>& argv) {
  std::string text;
  for (std::size_t i = 0; i < argv.size(); ++i) text += (i ? " " : "") + argv[i];
  return text;
}

std::string version_text() {
  ordered_json tool = tool_block();
  return fmt::format("occbench {} (git {})", tool.value("version", std::string("unknown")),
                     tool.value("git_commit", std::string("unknown")));
}

CLI::Validator finite_number(double min, bool min_exclusive, double max) {
  std::string bound = fmt::format("{} {}", min_exclusive ? "above" : "at least", min);
  if (max < std::numeric_limits<double>::infinity()) bound += fmt::format(" and at most {}", max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        double value = std::strtod(text.c_str(), &end);
        bool whole_text = !text.empty() && end == text.c_str() + text.size();
        if (!whole_text || errno == ERANGE || !std::isfinite(value) || (min_exclusive ? value <= min : value < min) || value > max)
          return fmt::format("expected a finite number {}, got '{}'", bound, text);
        return "";
      },
      "NUMBER " + bound);
}

CLI::Validator whole_number(std::int64_t min, std::int64_t max) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        long long value = std::strtoll(text.c_str(), &end, 10);
        bool digits = !text.empty() && text.find_first_not_of("+-0123456789") == std::string::npos;
        if (!digits || end != text.c_str() + text.size() || errno == ERANGE || value < min || value > max)
          return fmt::format("expected a whole number in [{}, {}], got '{}'", min, max, text);
        return "";
      },
      fmt::format("INT in [{}, {}]", min, max));
}

void check_objective(const Strategy& strategy, const SweepSpec& spec, const std::string& file, const std::string& path) {
  Objective objective;
  try {
    objective = parse_objective(strategy.objective);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(file, path, e.what());
  }
  // A section the run does not record would leave every point without a value.
  std::size_t dot = objective.field.find('.');
  std::string section = dot == std::string::npos ? "" : objective.field.substr(0, dot);
  bool recorded = section == "energy" ? spec.measurement.energy : section == "counters" ? spec.measurement.counters : true;
  if (strategy.is_adaptive() && !recorded)
    throw ConfigError(file, path, fmt::format("the run records no {} section: add --{} (or measurement.{}: true)", section, section, section));
}

void add_selection_options(CLI::App& subcommand, SelectionFlags& flags) {
  subcommand.add_option("--variants", flags.variants, "Only these of the config's variants (comma-separated)");
  subcommand.add_option("--filter", flags.filter,
                        "Only points whose id (family/variant/axis=value/...) matches this regular expression");
  subcommand.add_option("--set", flags.set, "Replace an axis's values: AXIS=V1,V2 (a size or launch axis; repeatable)");
  subcommand.add_option("--axis", flags.axis, "The same in nvbench's spelling: \"AXIS=[V1,V2]\" (repeatable)");
  subcommand.add_option("--shard", flags.shard,
                        "Only shard K of N (0-based) of the points, balanced by estimated cost; auto: from Slurm "
                        "(SLURM_ARRAY_TASK_ID/COUNT/MIN, else SLURM_PROCID/SLURM_NTASKS)");
}

std::vector<std::string> selection_arguments(const SelectionFlags& flags) {
  std::vector<std::string> args;
  if (!flags.variants.empty()) args.insert(args.end(), {"--variants", flags.variants});
  if (!flags.filter.empty()) args.insert(args.end(), {"--filter", flags.filter});
  for (const auto& text : flags.set) args.insert(args.end(), {"--set", text});
  for (const auto& text : flags.axis) args.insert(args.end(), {"--axis", text});
  if (!flags.shard.empty()) args.insert(args.end(), {"--shard", flags.shard});
  return args;
}

PointSelection selection_from_flags(const SelectionFlags& flags) {
  PointSelection selection;
  if (!flags.variants.empty()) add_variant_names(selection, flags.variants);
  selection.filter = flags.filter;
  for (const auto& text : flags.set) add_axis_override(selection, "--set", text);
  for (const auto& text : flags.axis) add_axis_override(selection, "--axis", text);
  if (!flags.shard.empty()) {
    ShardSpec shard = parse_shard(flags.shard);
    selection.shard_index = shard.index;
    selection.shard_count = shard.count;
  }
  return selection;
}

int cli_main(int argc, char** argv, const Registry& registry) {
  CLI::App app{"occbench: verified CUDA kernel timings with occupancy, CGMA and bandwidth, from a JSON sweep"};
  app.set_version_flag("--version", version_text(), "Print the version and git commit, and exit");
  app.require_subcommand(1);
  std::vector<Command> commands = {add_list_command(app, registry), add_validate_command(app, registry),
                                   add_run_command(app, registry),  add_plan_command(app, registry),
                                   add_report_command(app),         add_compare_command(app),
                                   add_merge_command(app, registry), add_doctor_command(app), add_best_command(app, registry),
                                   add_replay_command(app, registry)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }

  try {
    for (const auto& command : commands)
      if (*command.subcommand) return command.run(std::vector<std::string>(argv, argv + argc));
  } catch (const BadInput& e) {  // a config, a results file, a flag, a file given to read or write
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace occbench
