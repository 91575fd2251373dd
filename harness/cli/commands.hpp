#pragma once
// The subcommands of `occbench`, one file each (harness/command_<name>.cpp): each adds its
// subcommand and options to the app, and returns what runs when the user chose it. cli.cpp sets
// up the app, parses and dispatches.
#include "harness/sweep/spec.hpp"
#include "harness/sweep/strategy.hpp"
#include "harness/family/registry.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace occbench {

struct Command {
  CLI::App* subcommand = nullptr;
  // Given the whole command line (argv[0] first); returns the exit code (harness/cli/cli.hpp).
  std::function<int(const std::vector<std::string>& argv)> run;
};

Command add_list_command(CLI::App& app, const Registry& registry);
Command add_validate_command(CLI::App& app, const Registry& registry);
Command add_run_command(CLI::App& app, const Registry& registry);
Command add_plan_command(CLI::App& app, const Registry& registry);
Command add_report_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_merge_command(CLI::App& app, const Registry& registry);
Command add_doctor_command(CLI::App& app);
Command add_best_command(CLI::App& app, const Registry& registry);
Command add_replay_command(CLI::App& app, const Registry& registry);

// --variants, --filter, --set and --axis as typed, shared by run and plan.
struct SelectionFlags {
  std::string variants, filter;
  std::vector<std::string> set, axis;
  std::string shard;  // --shard K/N or auto (harness/sweep/shard.hpp)
};
void add_selection_options(CLI::App& subcommand, SelectionFlags& flags);
// The same flags as arguments, for a child process that must select the same points.
std::vector<std::string> selection_arguments(const SelectionFlags& flags);
// Numeric flags, checked on the text as typed (CLI11's own checks let "nan" through, and an
// unsigned option took "-1" as 2^64-1): a finite number above `min` (or at least it), and a whole
// number in [min, max] written as digits.
CLI::Validator finite_number(double min, bool min_exclusive, double max = std::numeric_limits<double>::infinity());
CLI::Validator whole_number(std::int64_t min, std::int64_t max = std::numeric_limits<std::int64_t>::max());

// The search's objective: FIELD[:min|:max] of a section the run records (energy and counters only
// where measurement asks for them). Throws ConfigError(file, path, ...): run and validate refuse alike.
void check_objective(const Strategy& strategy, const SweepSpec& spec, const std::string& file, const std::string& path);

// The command line as one string, for the run record.
std::string join_command(const std::vector<std::string>& argv);
// Checked into a PointSelection; throws ConfigError naming the flag.
PointSelection selection_from_flags(const SelectionFlags& flags);

}  // namespace occbench
