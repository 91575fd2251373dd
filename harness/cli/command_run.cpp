// occbench run: run a sweep on the GPU (verify, time, write JSON, CSV and JSONL; harness/run/runner.hpp),
// resume an interrupted one from its .jsonl, or list its points with --dry-run.
#include "harness/cli/cli.hpp"
#include "harness/cli/commands.hpp"
#include "harness/measure/counters/counters.hpp"
#include "harness/run/clock_axis.hpp"
#include "harness/run/compile_queue.hpp"
#include "harness/run/compile_workers.hpp"
#include "harness/model/gpu_table.hpp"
#include "harness/measure/device.hpp"
#include "harness/measure/energy/energy.hpp"
#include "harness/measure/kernel_activity.hpp"
#include "harness/run/multi_device.hpp"
#include "harness/run/runner.hpp"
#include "harness/sweep/selection.hpp"
#include "harness/family/host_hooks.hpp"
#include "harness/run/supervisor.hpp"
#include "harness/records/best.hpp"
#include "harness/records/run_log.hpp"
#include "harness/search/search_source.hpp"
#include "harness/sweep/counted_sweep.hpp"
#include "harness/sweep/point_source.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/measure/timer.hpp"
#include "harness/sweep/config.hpp"
#include "harness/measure/point.hpp"
#include "harness/core/files.hpp"

#include <fmt/format.h>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <memory>
#include <unistd.h>

namespace occbench {

namespace {

struct RunFlags {
  std::string config, out_dir = "results", resume_path;
  int device_ordinal = 0;
  std::string devices;       // --devices 0,1|all: one worker per GPU (harness/run/multi_device)
  bool each_device = false;  // with --devices: the whole sweep on each
  std::string claim_dir;     // a worker of --devices: measure only the points it claims
  bool dry_run = false;
  double watchdog_s = 120;
  bool no_supervisor = false;
  bool counters = false;
  bool energy = false;
  SelectionFlags selection;
  // How the points are chosen; each overrides the config's "search" where given.
  std::string strategy, objective;  // "": not given
  std::size_t max_points = 0;       // 0: not given
  double time_limit_s = 0;          // 0: not given
  std::uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;
};

// The strategy of the flags over `base` (the config's "search", or a resumed run's).
Strategy apply_strategy_flags(const RunFlags& flags, Strategy strategy) {
  if (!flags.strategy.empty()) strategy.name = flags.strategy;
  if (flags.max_points > 0) strategy.max_points = flags.max_points;
  if (flags.time_limit_s > 0) strategy.time_limit_s = flags.time_limit_s;
  if (flags.seed_option && flags.seed_option->count() > 0) strategy.seed = flags.seed;
  if (!flags.objective.empty()) strategy.objective = flags.objective;
  return strategy;
}

// The same strategy as arguments, for a child process that must choose the same points.
std::vector<std::string> strategy_arguments(const Strategy& strategy) {
  if (strategy.is_default()) return {};
  std::vector<std::string> args = {"--strategy", strategy.name, "--seed", std::to_string(strategy.seed), "--objective", strategy.objective};
  if (strategy.max_points) args.insert(args.end(), {"--max-points", std::to_string(*strategy.max_points)});
  if (strategy.time_limit_s) args.insert(args.end(), {"--time-limit", fmt::format("{}", *strategy.time_limit_s)});
  return args;
}

// The point a search measures next: the recorded points told in the order it asks for them, as
// the run loop keeps them on --resume; "" where it proposes nothing more.
std::string next_search_point(SearchSource& search, const JsonlContents& resumed) {
  std::map<std::string, nlohmann::ordered_json> recorded = records_by_point(resumed);
  while (const Point* point = search.next()) {
    auto found = recorded.find(point->id);
    if (found == recorded.end()) return point->id;
    search.tell(*point, found->second);
  }
  return "";
}

// A search chooses its points while it runs: its space and budget, and the point it measures next
// (the first, or after the records of a run it resumes).
int describe_search(const SweepSpec& spec, const Registry& registry, const Strategy& strategy, const JsonlContents& resumed) {
  SearchSource search(search_candidates(spec, registry, strategy), strategy);
  std::cout << fmt::format("{}: sweep '{}', family {}: a '{}' search over {} point(s) in {} space(s) (one per size), at most {} "
                           "point(s){}; seed {}, objective {}; the points are chosen as results come in\n",
                           spec.source, spec.name, spec.family, strategy.name, search.candidates(), search.spaces(), search.planned(),
                           strategy.time_limit_s ? fmt::format(" or {} s of points", *strategy.time_limit_s) : "", strategy.seed,
                           strategy.objective);
  if (std::uint64_t valid = count_sweep(spec, registry); valid > search.candidates())
    std::cout << fmt::format("the sweep has {} valid point(s); the search chooses among a uniform sample of {} of them (seed {})\n",
                             valid, search.candidates(), strategy.seed);
  std::string next = next_search_point(search, resumed);
  std::cout << fmt::format("{} point(s) recorded; next: {}\n", resumed.results.size(), next.empty() ? "none (the search is done)" : next);
  std::cout << restrictions_summary(spec, registry);
  return kExitOk;
}

constexpr std::uint64_t kListedAtMost = 1000;

// A whole sweep too large to list: its count and its first points (true), or false where the
// sweep is listed in full (small enough, or a sample, --max-points, a shard or --filter narrows it).
bool list_counted_points(const SweepSpec& spec, const Registry& registry, const Strategy& strategy) {
  if (strategy.name == "random" || strategy.max_points || spec.selection.shard_count > 0 || !CountedSweep::is_countable(spec))
    return false;
  CountedSweep counted(spec, registry);
  if (counted.size() <= kExpandedUpTo) return false;
  std::cout << fmt::format("{}: sweep '{}', family {}: {} point(s) would run; the first {}:\n", spec.source, spec.name, spec.family,
                           counted.size(), kListedAtMost);
  for (const auto& point : counted.first(kListedAtMost)) std::cout << point.id << "\n";
  std::cout << fmt::format("... and {} more (--max-points N or --strategy random|local|genetic|model measures fewer)\n",
                           counted.size() - kListedAtMost);
  std::cout << restrictions_summary(spec, registry);
  return true;
}

// The points a run would measure, one id a line: no GPU needed.
int list_points(const SweepSpec& spec, const Registry& registry, const Strategy& strategy, const JsonlContents& resumed) {
  if (strategy.is_adaptive()) return describe_search(spec, registry, strategy, resumed);
  if (list_counted_points(spec, registry, strategy)) return kExitOk;
  auto points = make_point_source(spec, registry, strategy)->points();
  std::cout << fmt::format("{}: sweep '{}', family {}: {} point(s) would run\n", spec.source, spec.name, spec.family,
                           points.size());
  for (const auto& point : points) std::cout << point.id << "\n";
  std::cout << restrictions_summary(spec, registry);
  if (uses_sm_clock_axis(spec)) std::cout << check_sm_clocks(spec, first_gpu_sm_clocks(), "this machine's GPU");
  return kExitOk;
}

// The arguments every worker of run --devices gets besides its device, config and output.
std::vector<std::string> worker_arguments(const RunFlags& flags, const Strategy& strategy) {
  std::vector<std::string> args = selection_arguments(flags.selection);
  for (auto& arg : strategy_arguments(strategy)) args.push_back(std::move(arg));
  args.insert(args.end(), {"--watchdog", fmt::format("{}", flags.watchdog_s)});
  if (flags.no_supervisor) args.push_back("--no-supervisor");
  if (flags.counters) args.push_back("--counters");  // the workers read the config file, not the flag
  if (flags.energy) args.push_back("--energy");
  return args;
}

// The environment's switches are input like the config: a value none of them knows stops the run
// before anything runs (exit 2), not at its first point.
void check_environment_switches() {
  try {
    flush_method_from_env();
    timing_source_choice_from_env();
    counters_configure_once_from_env();
    counters_enable_per_point_from_env();
    second_window_s_from_environment();
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();  // "VARIABLE: expected ..."
    auto colon = what.find(": ");
    throw ConfigError("environment", what.substr(0, colon), colon == std::string::npos ? what : what.substr(colon + 2));
  }
}

bool is_jsonl_path(const std::string& path) { return path.size() >= 6 && path.substr(path.size() - 6) == ".jsonl"; }

int no_gpu(const std::string& reason) {
  std::cerr << fmt::format("occbench run: {}; timings need a GPU (validate, list, plan and run --dry-run work without one; "
                           "occbench doctor says what this machine can do)\n",
                           reason);
  return kExitNoGpu;
}

// A run --devices resumed: each worker resumes its part.
int resume_on_devices(const JsonlContents& resumed, const std::string& resume_path, const std::vector<std::string>& argv,
                      const Registry& registry) {
  if (auto reason = no_gpu_reason()) return no_gpu(*reason);
  MultiDeviceRun multi;
  multi.resume_path = resume_path;
  multi.resume_header = resumed.header;
  multi.command_line = join_command(argv);
  return run_on_devices(multi, registry, std::cerr);
}

// The selection a .jsonl header stores ({variants, filter, set, shard}, as selection.cpp's to_json
// writes it), as the flags that made it; checked first (exit 2 naming the line and field).
SelectionFlags stored_selection(const ordered_json& stored, const std::string& path) {
  check_stored_selection(stored, path);
  SelectionFlags flags;
  for (const auto& name : stored.value("variants", ordered_json::array()))
    flags.variants += (flags.variants.empty() ? "" : ",") + name.get<std::string>();
  flags.filter = stored.value("filter", std::string());
  flags.shard = stored.value("shard", std::string());
  const ordered_json set = stored.value("set", ordered_json::object());  // kept: items() of a temporary would dangle
  for (const auto& axis : set.items()) {
    std::string values;
    for (const auto& value : axis.value()) values += (values.empty() ? "" : ",") + value.dump();
    flags.set.push_back(axis.key() + "=" + values);
  }
  return flags;
}

// A resumed run measures the points it was choosing: the same selection, restored into the flags
// (the selection reads them), and the same sample (run_strategy). A --shard given now replaces
// the stored one; --variants, --filter, --set or --axis given now replace the stored three.
void restore_selection(RunFlags& flags, const ordered_json& header, const std::string& path) {
  if (!header.contains("selection") || !header["selection"].is_object()) return;
  SelectionFlags stored = stored_selection(header["selection"], path);
  SelectionFlags& given = flags.selection;
  if (given.shard.empty()) given.shard = stored.shard;
  if (!given.variants.empty() || !given.filter.empty() || !given.set.empty() || !given.axis.empty()) return;
  given.variants = stored.variants;
  given.filter = stored.filter;
  given.set = stored.set;
}

// The strategy: a resumed run's own, else the config's "search", with the flags given over it;
// checked (exit 2 naming the flag or the field).
Strategy run_strategy(const RunFlags& flags, const SweepSpec& spec, const JsonlContents& resumed) {
  Strategy base = spec.search.value_or(Strategy{});
  if (resumed.header.contains("strategy")) base = strategy_from_json(resumed.header["strategy"], flags.resume_path);
  Strategy strategy = apply_strategy_flags(flags, base);
  check_strategy(strategy);
  check_objective(strategy, spec, "command line", "--objective " + strategy.objective + " (or search.objective)");
  if (strategy.is_adaptive() && (flags.each_device || !flags.selection.shard.empty()))
    throw ConfigError("command line", "--strategy " + strategy.name,
                      "a search runs over the whole sweep, on one GPU or shared by --devices: not with --each-device or --shard");
  return strategy;
}

// The sweep: the config file, or the one stored in the resumed .jsonl; the selection and --counters applied.
SweepSpec load_spec(const RunFlags& flags, const JsonlContents& resumed, const Registry& registry) {
  SweepSpec spec;
  if (!flags.resume_path.empty()) {
    spec = check_run_log(resumed, flags.resume_path, registry);  // as merge, best and replay read a log
  } else {
    spec = parse_sweep_file(flags.config, registry);
  }
  spec = apply_selection(spec, selection_from_flags(flags.selection), registry);
  if (flags.counters) spec.measurement.counters = true;
  if (flags.energy) spec.measurement.energy = true;
  return spec;
}

int run_on_several_devices(const RunFlags& flags, const SweepSpec& spec, const Strategy& strategy,
                           const std::vector<std::string>& argv, const Registry& registry) {
  MultiDeviceRun multi;
  multi.devices = local_device_list(flags.devices);
  multi.each_device = flags.each_device;
  multi.config_path = flags.config;
  multi.sweep_name = spec.name;
  multi.out_dir = flags.out_dir;
  multi.worker_args = worker_arguments(flags, strategy);
  multi.command_line = join_command(argv);
  return run_on_devices(multi, registry, std::cerr);
}

// A sweep of the user's own kernels runs in a supervised child process: a fault or a hang fails
// its point and the sweep goes on (harness/run/supervisor).
int supervise(const RunFlags& flags, const SweepSpec& spec, const Strategy& strategy, const std::vector<std::string>& argv,
              const Registry& registry) {
  SupervisorOptions supervised;
  supervised.first_args.assign(argv.begin() + 1, argv.end());
  supervised.resume_args = {"--device", std::to_string(flags.device_ordinal), "--watchdog", fmt::format("{}", flags.watchdog_s)};
  if (!flags.claim_dir.empty()) supervised.resume_args.insert(supervised.resume_args.end(), {"--claim-dir", flags.claim_dir});
  for (auto& arg : selection_arguments(flags.selection)) supervised.resume_args.push_back(std::move(arg));
  for (auto& arg : strategy_arguments(strategy)) supervised.resume_args.push_back(std::move(arg));
  if (flags.counters) supervised.resume_args.push_back("--counters");
  if (flags.energy) supervised.resume_args.push_back("--energy");
  supervised.watchdog_s = flags.watchdog_s;
  supervised.failed_record = [&spec, &registry](const std::string& id, const std::string& reason) {
    if (auto point = point_with_id(spec, registry, id)) return unrun_record(*point, "failed", reason);
    return ordered_json{{"point_id", id}, {"status", "failed"}, {"reason", reason}};
  };
  return supervise_run(supervised, std::cerr);
}

// The config file the compile workers plan: the one given, or a resumed run's where it still exists.
std::string config_to_compile(const RunFlags& flags, const JsonlContents& resumed) {
  if (!flags.config.empty() || flags.resume_path.empty()) return flags.config;
  std::string source = resumed.header.value("config_source", std::string());
  std::error_code ec;
  return !source.empty() && std::filesystem::is_regular_file(source, ec) ? source : std::string();
}

// Compiling ahead: the workers and, for a search, the queue file through which the measuring
// process names the points they compile (removed when the run ends).
struct CompileAhead {
  std::unique_ptr<CompileWorkers> workers;
  std::string queue_path;
  ~CompileAhead() {
    workers.reset();
    if (!queue_path.empty()) std::remove(queue_path.c_str());
  }
};

// A sweep of the user's own kernels, or a sample of it: worker processes compile its kernels
// ahead of the points while this process measures (harness/run/compile_workers.hpp), for the GPU
// of the table that is this one; for a resumed run, the points its record lacks; for a search, the
// points it is likely to ask for next, named as it goes (harness/run/compile_queue.hpp); a --devices
// worker too, with its share of the cores (harness/run/multi_device.cpp). None for a shard, a
// supervised child (its parent has them), a GPU the table lacks, or with OCCBENCH_COMPILE_AHEAD=0;
// and none where this is not the occbench command (a test).
void compile_ahead_of_run(const RunFlags& flags, const SweepSpec& spec, const Strategy& strategy, const JsonlContents& resumed,
                          CompileAhead& ahead) {
  const char* wanted = std::getenv("OCCBENCH_COMPILE_AHEAD");
  bool search = strategy.is_adaptive();
  std::string config = config_to_compile(flags, resumed);
  if (!spec.source_family || config.empty() || spec.selection.shard_count != 0 ||
      (wanted && std::string(wanted) == "0") || supervisor_fd_from_environment() >= 0 || !running_as_occbench())
    return;
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, flags.device_ordinal) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  const GpuSpec* gpu = find_gpu(properties.name);
  if (!gpu) return;
  std::vector<std::string> plan_argv = {"occbench", "plan", config, "--gpu", gpu->key};
  for (auto& arg : selection_arguments(flags.selection)) plan_argv.push_back(std::move(arg));
  if (search) {  // the measuring process (this one, or its supervised child) finds the queue in the environment
    ahead.queue_path = (std::filesystem::temp_directory_path() / fmt::format("occbench-compile-queue-{}", getpid())).string();
    std::ofstream(ahead.queue_path, std::ios::trunc);
    setenv(kCompileQueueVariable, ahead.queue_path.c_str(), 1);
    plan_argv.insert(plan_argv.end(), {"--compile-queue", ahead.queue_path});
  } else if (strategy.max_points) {  // a sample (random) or the first N points: the workers compile those
    plan_argv.insert(plan_argv.end(), {"--compile-sample", fmt::format("{}:{}:{}", strategy.name, *strategy.max_points, strategy.seed)});
  }
  if (!flags.resume_path.empty() && !search) plan_argv.insert(plan_argv.end(), {"--compile-skip", flags.resume_path});
  ahead.workers = std::make_unique<CompileWorkers>(plan_argv, compile_worker_count(1), /*hide_gpus=*/true);
}

int run_here(const RunFlags& flags, const SweepSpec& spec, const Strategy& strategy, const JsonlContents& resumed,
             const std::vector<std::string>& argv, const Registry& registry) {
  RunOptions options;
  options.out_dir = flags.out_dir;
  options.device = flags.device_ordinal;
  options.command_line = join_command(argv);
  if (!flags.resume_path.empty()) {
    options.resume = &resumed;
    options.resume_path = flags.resume_path;
  }
  options.claim_dir = flags.claim_dir;
  options.strategy = strategy;
  options.supervisor_fd = supervisor_fd_from_environment();
  CompileAhead compiling;
  compile_ahead_of_run(flags, spec, strategy, resumed, compiling);
  if (compiling.workers)
    std::cerr << fmt::format("compiling {} kernels ahead in {} worker process(es)\n",
                             compiling.queue_path.empty() ? "the sweep's" : "the search's likely next", compiling.workers->count());
  if (spec.source_family && options.supervisor_fd < 0 && !flags.no_supervisor) return supervise(flags, spec, strategy, argv, registry);
  host_hooks().keep_cuda_out = false;  // this process measures
  RunSummary summary = run_sweep(spec, registry, options, std::cout);
  if (summary.failed > 0)
    std::cerr << fmt::format("occbench run: {} point(s) failed (wrong results or errors); see the table above\n",
                             summary.failed);
  return summary.exit_code;
}

int run_command(RunFlags flags, const std::vector<std::string>& argv, const Registry& registry) {
  if (!wait_while_standby(flags.device_ordinal)) return 0;  // a supervisor's standby, let go unused
  check_environment_switches();
  if (!flags.config.empty()) flags.config = shipped_config_path(flags.config);
  if (flags.config.empty() && flags.resume_path.empty()) {
    std::cerr << "error: run needs a config file, or --resume FILE.jsonl\n";
    return kExitBadInput;
  }
  JsonlContents resumed;
  if (!flags.resume_path.empty()) {
    if (!is_jsonl_path(flags.resume_path)) {
      std::cerr << fmt::format("error: {}: --resume expects the .jsonl file of an earlier run\n", flags.resume_path);
      return kExitBadInput;
    }
    resumed = read_jsonl(flags.resume_path);
    if (resumed.header.contains("multi_device")) return resume_on_devices(resumed, flags.resume_path, argv, registry);
    restore_selection(flags, resumed.header, flags.resume_path);
  }
  SweepSpec spec = load_spec(flags, resumed, registry);
  Strategy strategy = run_strategy(flags, spec, resumed);
  if (flags.dry_run) return list_points(spec, registry, strategy, resumed);
  check_output_folder("run --out", flags.out_dir);  // before anything is measured
  // A process that forks the children that measure (the Python package) must not touch CUDA: the
  // driver does not survive a fork. The children check the GPU.
  bool supervised_by_fork = host_hooks().keep_cuda_out && spec.source_family && !flags.no_supervisor;
  if (!supervised_by_fork)
    if (auto reason = no_gpu_reason()) return no_gpu(*reason);
  if (!flags.devices.empty()) return run_on_several_devices(flags, spec, strategy, argv, registry);
  if (flags.each_device) {
    std::cerr << "error: run --each-device needs --devices (the GPUs to run the whole sweep on)\n";
    return kExitBadInput;
  }
  if (auto bad = supervised_by_fork ? std::nullopt : device_choice_error(flags.device_ordinal)) {
    std::cerr << fmt::format("error: run --device: {}\n", *bad);
    return kExitBadInput;
  }
  return run_here(flags, spec, strategy, resumed, argv, registry);
}

}  // namespace

Command add_run_command(CLI::App& app, const Registry& registry) {
  auto flags = std::make_shared<RunFlags>();
  auto* run = app.add_subcommand("run", "Run a sweep on the GPU: verify, time, write JSON, CSV and JSONL");
  run->add_option("config", flags->config, "Sweep config (JSON), or a shipped one's name (adjacent_difference); optional with --resume");
  run->add_option("--out", flags->out_dir, "Folder for the result files")->capture_default_str();
  run->add_option("--resume", flags->resume_path, "Finish an interrupted run from its .jsonl, keeping its finished points");
  run->add_option("--device", flags->device_ordinal, "CUDA device ordinal")->check(whole_number(0, 1023))->capture_default_str();
  run->add_option("--watchdog", flags->watchdog_s,
                  "Sweeps of your own kernels: a point running longer (seconds) is stopped and recorded failed")
      ->check(finite_number(0, true))->capture_default_str();
  run->add_flag("--no-supervisor", flags->no_supervisor,
                "Sweeps of your own kernels: run in this process (no watchdog, no restart after a fault)");
  run->add_option("--devices", flags->devices,
                  "Run on several GPUs of this machine at once (0,1 or all): one worker per GPU, points handed out "
                  "as GPUs free up, one results document");
  run->add_flag("--each-device", flags->each_device,
                "With --devices: run the whole sweep on each listed GPU, one results file per GPU (to compare GPUs)");
  run->add_option("--claim-dir", flags->claim_dir, "Internal: a --devices worker's shared folder of point claims")
      ->group("");
  run->add_flag("--counters", flags->counters,
                "Hardware counters for every device point after its timing (CUPTI): achieved occupancy, bytes per "
                "memory level, bank conflicts (as measurement.counters: true)");
  run->add_flag("--energy", flags->energy,
                "Energy for every device point after its timing (NVML's energy counter over a window of back-to-back "
                "launches): joules per launch, watts, GFLOP/J, GB/J (as measurement.energy: true)");
  run->add_flag("--dry-run", flags->dry_run, "List the points the run would measure and exit (no GPU needed)");
  add_selection_options(*run, flags->selection);
  run->add_option("--strategy", flags->strategy,
                  "How the points are chosen: exhaustive (every point, the default), random (a sample of --max-points), or "
                  "a search that picks each point from the results so far: local, genetic, model, bayes (docs/search.md)");
  run->add_option("--max-points", flags->max_points, "Measure at most N points (random: the sample's size; a search: its budget)")
      ->check(whole_number(1));
  run->add_option("--time-limit", flags->time_limit_s,
                  "A search: stop once its points took S seconds (their time_use.point_s, so a resumed search counts its earlier ones)")
      ->check(finite_number(0, true));
  flags->seed_option = run->add_option("--seed", flags->seed, "The seed of the random sample or the search (default 0)")
                           ->check(whole_number(0));
  run->add_option("--objective", flags->objective,
                  "A search: FIELD[:min|:max] of the record to optimise (default timing.median_ms), e.g. "
                  "metrics.achieved_bandwidth_gbps:max or energy.joules_per_launch");
  return {run, [&registry, flags](const std::vector<std::string>& argv) { return run_command(*flags, argv, registry); }};
}

}  // namespace occbench
