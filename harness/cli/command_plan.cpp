// occbench plan: occupancy, resources and work of a sweep for any GPU of the built-in table, no
// GPU needed (the logic is harness/run/plan.hpp).
#include "harness/cli/cli.hpp"
#include "harness/cli/commands.hpp"
#include "harness/run/plan.hpp"
#include "harness/core/files.hpp"

#include <iostream>
#include <memory>

namespace occbench {

namespace {

struct PlanFlags {
  PlanOptions options;
  SelectionFlags selection;
};

}  // namespace

Command add_plan_command(CLI::App& app, const Registry& registry) {
  auto flags = std::make_shared<PlanFlags>();
  PlanOptions& options = flags->options;
  auto* plan = app.add_subcommand("plan", "Occupancy, resources and work of a sweep for a GPU of the built-in table, without running it");
  plan->add_option("config", options.config, "Sweep config (JSON), or a shipped one's name (adjacent_difference)");
  plan->add_option("--gpu", options.gpu, "GPU key from --list-gpus (default: this machine's GPU, else h100)");
  plan->add_option("--out", options.out_dir, "Folder for the result files")->capture_default_str();
  plan->add_flag("--list-gpus", options.list_gpus, "Show the built-in GPU table and exit");
  add_selection_options(*plan, flags->selection);
  plan->add_option("--compile-share", options.compile_share, "Internal: compile, as worker W of N, the user kernel's instantiations no other worker has taken")
      ->group("");
  plan->add_option("--compile-sample", options.compile_sample, "Internal: with --compile-share, the run's sample NAME:N:SEED")
      ->group("");
  plan->add_option("--compile-skip", options.compile_skip, "Internal: with --compile-share, a resumed run's .jsonl (its finished points)")
      ->group("");
  plan->add_option("--compile-queue", options.compile_queue, "Internal: a search's queue file of points to compile as they are named")
      ->group("");
  return {plan, [&registry, flags](const std::vector<std::string>& argv) {
            flags->options.command_line = join_command(argv);
            flags->options.argv = argv;
            if (!flags->options.config.empty()) flags->options.config = shipped_config_path(flags->options.config);
            flags->options.selection = selection_from_flags(flags->selection);
            return plan_main(flags->options, registry, std::cout, std::cerr);
          }};
}

}  // namespace occbench
