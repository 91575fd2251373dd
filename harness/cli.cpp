#include "harness/cli.hpp"

#include "harness/compare.hpp"
#include "harness/config.hpp"
#include "harness/device.hpp"
#include "harness/plan.hpp"
#include "harness/report.hpp"
#include "harness/runner.hpp"
#include "harness/summary.hpp"
#include "harness/supervisor.hpp"
#include "harness/sweep.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

namespace occbench {

namespace {

std::string join_command(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) text += (i ? " " : "") + std::string(argv[i]);
  return text;
}

int list_families(const Registry& registry, bool as_json) {
  if (as_json) {
    ordered_json out = ordered_json::array();
    auto axes_json = [](const std::vector<Axis>& axes) {
      ordered_json list = ordered_json::array();
      for (const auto& a : axes)
        list.push_back({{"name", a.name}, {"legal", a.describe_legal()}, {"description", a.description},
                        {"default", a.default_value ? ordered_json(*a.default_value) : ordered_json(nullptr)}});
      return list;
    };
    for (const auto& f : registry.families()) {
      ordered_json variants = ordered_json::array();
      for (const auto& v : f.variants)
        variants.push_back({{"name", v.name}, {"executor", v.executor == Executor::host ? "host" : "device"},
                            {"description", v.description}, {"axes", axes_json(v.axes)}});
      out.push_back({{"family", f.name}, {"description", f.description}, {"size_axes", axes_json(f.size_axes)},
                     {"variants", variants}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  auto print_axes = [](const std::vector<Axis>& axes, const char* indent) {
    for (const auto& a : axes)
      std::cout << fmt::format("{}{:<12} {}{}{}\n", indent, a.name, a.describe_legal(),
                               a.default_value ? fmt::format(" (default {})", *a.default_value) : "",
                               a.description.empty() ? "" : " - " + a.description);
  };
  for (const auto& f : registry.families()) {
    std::cout << fmt::format("{}: {}\n  sizes:\n", f.name, f.description);
    print_axes(f.size_axes, "    ");
    std::cout << "  variants:\n";
    for (const auto& v : f.variants) {
      std::cout << fmt::format("    {:<16} [{}] {}\n", v.name, v.executor == Executor::host ? "host" : "device", v.description);
      print_axes(v.axes, "        ");
    }
    std::cout << "\n";
  }
  return kExitOk;
}

int validate_configs(const Registry& registry, const std::vector<std::string>& paths) {
  int code = kExitOk;
  for (const auto& path : paths) {
    try {
      SweepSpec spec = parse_sweep_file(path, registry);
      auto points = expand_sweep(spec, registry);
      std::cout << fmt::format("{}: ok: sweep '{}', family {}, {} variants, {} points\n", path, spec.name, spec.family,
                               spec.variants.size(), points.size());
    } catch (const ConfigError& e) {
      std::cerr << "error: " << e.what() << "\n";
      code = kExitBadInput;
    }
  }
  return code;
}

// occbench report: read every file first, so one bad file stops it before anything is written.
int report_command(const std::vector<std::string>& paths, const std::string& format, const std::string& out_path) {
  std::vector<ResultsFile> files;
  for (const auto& path : paths) files.push_back(load_results_file(path));
  assign_labels(files);
  ReportFormat kind = format == "csv" ? ReportFormat::csv : format == "json" ? ReportFormat::json : ReportFormat::markdown;
  std::string text = render_report(files, kind);
  if (out_path.empty()) std::cout << text;
  else write_text_file(out_path, text);
  return kExitOk;
}

// occbench compare: exit 1 only for a regression under --fail-on-regression.
int compare_command(const std::string& base_path, const std::string& new_path, const CompareOptions& options) {
  ResultsFile base = load_results_file(base_path), next = load_results_file(new_path);
  Comparison comparison = compare_runs(base, next, options);
  std::cout << format_comparison(comparison, base, next, options);
  return comparison_exit_code(comparison, options);
}

}  // namespace

int cli_main(int argc, char** argv, const Registry& registry) {
  CLI::App app{"occbench: verified CUDA kernel timings with occupancy, CGMA and bandwidth, from a JSON sweep"};
  app.require_subcommand(1);

  bool list_json = false;
  auto* list = app.add_subcommand("list", "Show every kernel family, its variants and the axes each accepts");
  list->add_flag("--json", list_json, "Print as JSON");

  std::vector<std::string> validate_paths;
  auto* validate = app.add_subcommand("validate", "Check sweep configs without running them");
  validate->add_option("config", validate_paths, "Sweep config files (JSON)")->required();

  std::string run_config, out_dir = "results", resume_path;
  int device_ordinal = 0;
  auto* run = app.add_subcommand("run", "Run a sweep on the GPU: verify, time, write JSON, CSV and JSONL");
  run->add_option("config", run_config, "Sweep config (JSON); optional with --resume");
  run->add_option("--out", out_dir, "Folder for the result files")->capture_default_str();
  run->add_option("--resume", resume_path, "Finish an interrupted run from its .jsonl, keeping its finished points");
  run->add_option("--device", device_ordinal, "CUDA device ordinal")->capture_default_str();
  double watchdog_s = 120;
  bool no_supervisor = false;
  run->add_option("--watchdog", watchdog_s, "Sweeps of your own kernels: a point running longer (seconds) is stopped and recorded failed")
      ->check(CLI::PositiveNumber)->capture_default_str();
  run->add_flag("--no-supervisor", no_supervisor, "Sweeps of your own kernels: run in this process (no watchdog, no restart after a fault)");

  // plan: occupancy and work for any GPU of the table, no GPU needed (harness/plan.hpp).
  PlanOptions plan_options;
  auto* plan = app.add_subcommand("plan", "Occupancy, resources and work of a sweep for a GPU of the built-in table, without running it");
  plan->add_option("config", plan_options.config, "Sweep config (JSON)");
  plan->add_option("--gpu", plan_options.gpu, "GPU key from --list-gpus (default: this machine's GPU, else h100)");
  plan->add_option("--out", plan_options.out_dir, "Folder for the result files")->capture_default_str();
  plan->add_flag("--list-gpus", plan_options.list_gpus, "Show the built-in GPU table and exit");

  std::vector<std::string> report_paths;
  std::string report_format = "md", report_out;
  auto* report = app.add_subcommand("report", "Summarize results files: a markdown table, or CSV/JSON; several files side by side");
  report->add_option("results", report_paths, "Results files (.json written by run)")->required();
  report->add_option("--format", report_format, "md, csv or json")
      ->check(CLI::IsMember({"md", "csv", "json"}))->capture_default_str();
  report->add_option("--out", report_out, "Write to this file instead of standard output");

  std::string compare_base, compare_new;
  double fail_on_regression = -1, noise_factor = 1.0;
  auto* compare = app.add_subcommand("compare", "Compare two runs point by point: time ratios, noise-aware verdicts, a summary");
  compare->add_option("base", compare_base, "Results of the reference run (.json)")->required();
  compare->add_option("new", compare_new, "Results of the run to judge (.json)")->required();
  compare->add_option("--fail-on-regression", fail_on_regression,
                      "Exit 1 when a point is slower by more than PCT percent, beyond the runs' noise")
      ->check(CLI::NonNegativeNumber);
  compare->add_option("--noise-factor", noise_factor, "A change counts beyond this many times the combined noise")
      ->check(CLI::PositiveNumber)->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }

  try {
    if (*list) return list_families(registry, list_json);
    if (*validate) return validate_configs(registry, validate_paths);
    if (*plan) {
      plan_options.command_line = join_command(argc, argv);
      return plan_main(plan_options, registry, std::cout, std::cerr);
    }
    if (*report) return report_command(report_paths, report_format, report_out);
    if (*compare) {
      CompareOptions options;
      options.noise_factor = noise_factor;
      if (fail_on_regression >= 0) options.fail_on_regression_pct = fail_on_regression;
      return compare_command(compare_base, compare_new, options);
    }
    if (*run) {
      if (run_config.empty() && resume_path.empty()) {
        std::cerr << "error: run needs a config file, or --resume FILE.jsonl\n";
        return kExitBadInput;
      }
      JsonlContents resumed;
      SweepSpec spec;
      RunOptions options;
      options.out_dir = out_dir;
      options.device = device_ordinal;
      options.command_line = join_command(argc, argv);
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
        spec = parse_sweep_file(run_config, registry);
      }
      if (auto reason = no_gpu_reason()) {
        std::cerr << fmt::format("occbench run: {}; timings need a GPU (validate and list work without one)\n", *reason);
        return kExitNoGpu;
      }
      // A sweep of the user's own kernels runs in a supervised child process: a fault or a hang
      // fails its point and the sweep goes on (harness/supervisor).
      options.supervisor_fd = supervisor_fd_from_environment();
      if (spec.source_family && options.supervisor_fd < 0 && !no_supervisor) {
        SupervisorOptions supervised;
        supervised.first_args.assign(argv + 1, argv + argc);
        supervised.resume_args = {"--device", std::to_string(device_ordinal), "--watchdog", fmt::format("{}", watchdog_s)};
        supervised.watchdog_s = watchdog_s;
        auto points = expand_sweep(spec, registry);
        supervised.failed_record = [&points](const std::string& id, const std::string& reason) {
          for (const auto& point : points)
            if (point.id == id) return unrun_record(point, "failed", reason);
          return ordered_json{{"point_id", id}, {"status", "failed"}, {"reason", reason}};
        };
        return supervise_run(supervised, std::cerr);
      }
      RunSummary summary = run_sweep(spec, registry, options, std::cout);
      if (summary.failed > 0)
        std::cerr << fmt::format("occbench run: {} point(s) failed (wrong results or errors); see the table above\n",
                                 summary.failed);
      return summary.exit_code;
    }
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const ResultsFileError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace occbench
