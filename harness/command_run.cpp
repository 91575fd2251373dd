// occbench run: run a sweep on the GPU (verify, time, write JSON, CSV and JSONL; harness/runner.hpp),
// resume an interrupted one from its .jsonl, or list its points with --dry-run.
#include "harness/cli.hpp"
#include "harness/commands.hpp"
#include "harness/device.hpp"
#include "harness/runner.hpp"
#include "harness/selection.hpp"
#include "harness/sweep.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace occbench {

namespace {

struct RunFlags {
  std::string config, out_dir = "results", resume_path;
  int device_ordinal = 0;
  bool dry_run = false;
  SelectionFlags selection;
};

// The points a run would measure, one id a line: no GPU needed.
int list_points(const SweepSpec& spec, const Registry& registry) {
  auto points = expand_sweep(spec, registry);
  std::cout << fmt::format("{}: sweep '{}', family {}: {} point(s) would run\n", spec.source, spec.name, spec.family,
                           points.size());
  for (const auto& point : points) std::cout << point.id << "\n";
  return kExitOk;
}

int run_command(const RunFlags& flags, const std::string& command_line, const Registry& registry) {
  if (flags.config.empty() && flags.resume_path.empty()) {
    std::cerr << "error: run needs a config file, or --resume FILE.jsonl\n";
    return kExitBadInput;
  }
  JsonlContents resumed;
  SweepSpec spec;
  RunOptions options;
  options.out_dir = flags.out_dir;
  options.device = flags.device_ordinal;
  options.command_line = command_line;
  const std::string& resume_path = flags.resume_path;
  if (!resume_path.empty()) {
    if (resume_path.size() < 6 || resume_path.substr(resume_path.size() - 6) != ".jsonl") {
      std::cerr << fmt::format("error: {}: --resume expects the .jsonl file of an earlier run\n", resume_path);
      return kExitBadInput;
    }
    resumed = read_jsonl(resume_path);
    std::string source = resumed.header.value("config_source", resume_path);
    spec = parse_sweep_json(resumed.header["config"], source + " (as stored in " + resume_path + ")", registry);
    options.resume = &resumed;
    options.resume_path = resume_path;
  } else {
    spec = parse_sweep_file(flags.config, registry);
  }
  spec = apply_selection(spec, selection_from_flags(flags.selection), registry);
  if (flags.dry_run) return list_points(spec, registry);
  if (auto reason = no_gpu_reason()) {
    std::cerr << fmt::format("occbench run: {}; timings need a GPU (validate, list, plan and run --dry-run work without one)\n",
                             *reason);
    return kExitNoGpu;
  }
  if (auto bad = device_choice_error(options.device)) {
    std::cerr << fmt::format("error: run --device: {}\n", *bad);
    return kExitBadInput;
  }
  RunSummary summary = run_sweep(spec, registry, options, std::cout);
  if (summary.failed > 0)
    std::cerr << fmt::format("occbench run: {} point(s) failed (wrong results or errors); see the table above\n",
                             summary.failed);
  return summary.exit_code;
}

}  // namespace

Command add_run_command(CLI::App& app, const Registry& registry) {
  auto flags = std::make_shared<RunFlags>();
  auto* run = app.add_subcommand("run", "Run a sweep on the GPU: verify, time, write JSON, CSV and JSONL");
  run->add_option("config", flags->config, "Sweep config (JSON); optional with --resume");
  run->add_option("--out", flags->out_dir, "Folder for the result files")->capture_default_str();
  run->add_option("--resume", flags->resume_path, "Finish an interrupted run from its .jsonl, keeping its finished points");
  run->add_option("--device", flags->device_ordinal, "CUDA device ordinal")->capture_default_str();
  run->add_flag("--dry-run", flags->dry_run, "List the points the run would measure and exit (no GPU needed)");
  add_selection_options(*run, flags->selection);
  return {run, [&registry, flags](const std::string& command_line) { return run_command(*flags, command_line, registry); }};
}

}  // namespace occbench
