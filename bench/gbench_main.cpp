// occbench_gbench: every registered variant x point of a sweep as a Google Benchmark, over the
// same registry and harness as `occbench run` (no kernel code of its own).
//
//   occbench_gbench [--config FILE]... [--device N] [--variants A,B] [--filter REGEX]
//                   [--set AXIS=V1,V2]... [--axis "AXIS=[V1,V2]"]... [--benchmark_* flags]
//
// Names read family/variant/param:value/..., so --benchmark_filter selects naturally; Google
// Benchmark appends /manual_time (device variants) or /real_time (host variants). Without
// --config, the benchmarks are each shipped config's (configs/*.json) points at its smallest
// sizes. Before timing, each point goes through the harness's prepare_point, as in `occbench
// run`: launch spec, resources, launch_blocker, dynamic shared-memory opt-in, occupancy, then
// poisoned outputs, one run and verification against the CPU reference (a wrong result is never
// timed). Device variants: the sweep's warm-up launches, then per iteration an L2 flush (cold
// mode, untimed) and one launch between two cudaEvents, reported with SetIterationTime. Host
// variants: Google Benchmark's own (real) time. Without a GPU the device benchmarks are skipped
// with "no CUDA device: ..." and the host ones run. Exit status: 0; 1 when a point failed
// verification; 2 for bad arguments or configs.
#include "harness/family/harness_axes.hpp"
#include "harness/sweep/config.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/measure/device.hpp"
#include "harness/model/metrics.hpp"
#include "harness/family/registry.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/measure/point.hpp"
#include "harness/sweep/selection.hpp"
#include "harness/measure/stats.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/measure/timer.hpp"
#include "harness/core/json.hpp"
#include "kernels/families.hpp"
#include "harness/core/files.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>


namespace occbench {
namespace {

// ---- which points -------------------------------------------------------------------------

struct BenchPoint {
  Point point;
  MeasurementSettings settings;
  std::string name;
};

// family/variant/n:16777216/block_size:256
std::string benchmark_name(const Point& point) {
  std::string name = point.family->name + "/" + point.variant->name;
  for (const auto& [axis, value] : point.params.items()) name += fmt::format("/{}:{}", axis, value);
  return name;
}

// The sweep with each size axis cut down to its smallest value, in its raw JSON too (which
// apply_selection parses again); an axis the selection sets keeps the selection's values.
SweepSpec smallest_sizes(SweepSpec spec, const PointSelection& selection) {
  for (auto& [axis, values] : spec.sizes) {
    bool overridden = std::any_of(selection.overrides.begin(), selection.overrides.end(),
                                  [&](const auto& o) { return o.first == axis; });
    if (values.empty() || overridden) continue;
    values = {*std::min_element(values.begin(), values.end())};
    if (spec.raw.contains("sizes")) spec.raw["sizes"][axis] = values;
  }
  return spec;
}

std::vector<std::string> shipped_configs(const std::filesystem::path& folder) {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".json" && entry.path().filename() != "schema.json") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

// ---- state shared by the benchmarks: the device, stream, flusher and the current problem ----

struct Session {
  int device_ordinal = 0;
  bool probed = false;
  std::optional<std::string> no_gpu;
  DeviceInfo device;
  cudaStream_t stream = nullptr;
  std::unique_ptr<L2Flusher> flusher;
  ProblemCache problems;  // one problem alive at a time, rebuilt when the sizes or seed change
  std::map<std::string, PreparedPoint> prepared;  // by point id: prepared and verified once
  std::set<std::string> failed;                    // point ids that failed verification
  std::string context_lost;                        // why nothing more can run on the GPU

  // Why device variants cannot run here, or nullopt; queries the device on first use.
  const std::optional<std::string>& gpu() {
    if (!probed) {
      probed = true;
      no_gpu = no_gpu_reason();
      if (!no_gpu) {
        try {
          device = query_device(device_ordinal);
          OCCBENCH_CUDA_CHECK(cudaStreamCreate(&stream));
        } catch (const std::exception& e) {
          no_gpu = fmt::format("no usable CUDA device {}: {}", device_ordinal, e.what());
        }
      }
    }
    return no_gpu;
  }

  // The point's problem, or nullptr with problems.skip_reason() where the device lacks the memory.
  // Without a GPU only host variants run, and the device's free memory is not asked.
  Problem* problem_for(const BenchPoint& b) {
    std::optional<std::size_t> reserved;
    if (!no_gpu) reserved = flusher ? flusher->bytes() : 0;
    return problems.get(b.point, b.settings.seed, reserved);
  }

  void close() {
    prepared.clear();
    problems.release();
    flusher.reset();
    if (stream) cudaStreamDestroy(stream);
    stream = nullptr;
  }
};

Session& session() {
  static Session s;
  return s;
}

// -1 where the record has no such number.
double number_at(const ordered_json& r, const char* object, const char* key) { return occbench::number_at(r, object, key, -1); }

void set_counters(benchmark::State& state, const BenchPoint& b, const PreparedPoint& prepared,
                  const std::vector<double>& samples_ms) {
  WorkModel work = b.point.variant->work ? b.point.variant->work(b.point.params) : WorkModel{};
  // Rates: Google Benchmark multiplies by the iterations and divides by the benchmark's time,
  // which is the manual (cudaEvent) time for device variants.
  state.SetBytesProcessed(std::int64_t(work.dram_bytes) * state.iterations());
  state.counters["flop_per_second"] = benchmark::Counter(work.flops, benchmark::Counter::kIsIterationInvariantRate);
  if (auto cgma = cgma_flop_per_byte(work)) state.counters["cgma"] = *cgma;
  const ordered_json& r = prepared.record;
  if (double occupancy = number_at(r, "occupancy", "theoretical"); occupancy >= 0) {
    state.counters["occupancy"] = occupancy;
    state.counters["active_blocks_per_sm"] = number_at(r, "occupancy", "active_blocks_per_sm");
    state.counters["thread_utilization"] = number_at(r, "occupancy", "thread_utilization");
    state.SetLabel("limiter: " + r["occupancy"].value("limiter", std::string("?")));
  }
  if (double registers = number_at(r, "resources", "registers_per_thread"); registers >= 0) state.counters["registers"] = registers;
  if (!samples_ms.empty()) {
    // The per-iteration statistics `occbench run` reports (median, stddev / mean), over this
    // run's iterations: cudaEvent times of single launches, or the host clock around the host code.
    TimingStats stats = summarize(samples_ms, "");
    state.counters["sample_median_us"] = stats.median_ms * 1e3;
    state.counters["sample_noise"] = stats.noise;
  }
}

void run_benchmark(benchmark::State& state, const BenchPoint& b) {
  Session& s = session();
  const Point& point = b.point;
  bool on_device = point.variant->executor == Executor::device;
  try {
    const auto& no_gpu = s.gpu();
    if (on_device && no_gpu) return state.SkipWithError(no_gpu->c_str());
    if (on_device && !s.context_lost.empty()) return state.SkipWithError(s.context_lost.c_str());
    if (on_device && b.settings.mode != "hot" && !s.flusher)
      s.flusher = std::make_unique<L2Flusher>(s.device.l2_bytes, s.device.sm_count);

    Problem* problem = s.problem_for(b);
    if (!problem) return state.SkipWithError(("skipped: " + s.problems.skip_reason()).c_str());
    auto it = s.prepared.find(point.id);
    if (it == s.prepared.end()) {
      PointContext context{&s.device, &b.settings, s.stream, s.flusher.get()};
      it = s.prepared.emplace(point.id, prepare_point(point, *problem, context)).first;
    }
    const PreparedPoint& prepared = it->second;
    if (!prepared.ready()) {
      std::string status = prepared.record.value("status", "");
      if (status == "failed") s.failed.insert(point.id);
      return state.SkipWithError((status + ": " + prepared.record.value("reason", "")).c_str());
    }

    std::vector<double> samples_ms;
    if (on_device) {
      bool cold = b.settings.mode == "cold";
      for (int i = 0; i < b.settings.warmup_runs; ++i) run_point_once(point, *problem, prepared.launch, s.stream);
      OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(s.stream));
      EventPair events;
      samples_ms.reserve(1024);
      for (auto _ : state) {
        if (cold) s.flusher->flush(s.stream);
        OCCBENCH_CUDA_CHECK(cudaEventRecord(events.start, s.stream));
        run_point_once(point, *problem, prepared.launch, s.stream);
        OCCBENCH_CUDA_CHECK(cudaEventRecord(events.stop, s.stream));
        OCCBENCH_CUDA_CHECK(cudaEventSynchronize(events.stop));
        float ms = 0;
        OCCBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
        state.SetIterationTime(ms / 1e3);
        samples_ms.push_back(ms);
      }
    } else {
      for (int i = 0; i < b.settings.warmup_runs; ++i) run_point_once(point, *problem, prepared.launch, s.stream);
      // Google Benchmark times the loop; the clock reads only feed the sample_* counters.
      samples_ms.reserve(1024);
      for (auto _ : state) {
        auto start = std::chrono::steady_clock::now();
        run_point_once(point, *problem, prepared.launch, s.stream);
        samples_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      }
    }
    set_counters(state, b, prepared, samples_ms);
  } catch (const CudaError& e) {
    if (is_sticky_cuda_error(e.code()))
      s.context_lost = fmt::format("not run: the CUDA context was lost at {} ({})", b.name, e.what());
    else
      cudaGetLastError();
    state.SkipWithError(e.what());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void print_help() {
  std::cout << "occbench_gbench: occbench's kernel variants as Google Benchmarks (GPU time from cudaEvents)\n\n"
               "  --config FILE   a sweep config (repeatable); default: every shipped config (configs/*.json)\n"
               "                  at its smallest sizes\n"
               "  --device N      CUDA device ordinal (default 0)\n"
               "  --variants A,B  only these variants; --filter REGEX: only points whose occbench id\n"
               "                  (family/variant/axis=value/...) matches; --set AXIS=V1,V2 or --axis \"AXIS=[V1,V2]\":\n"
               "                  replace an axis's values (repeatable). As for `occbench run`; without --config,\n"
               "                  shipped configs the selection does not fit are left out\n\n"
               "Benchmarks are named family/variant/param:value/... (+ /manual_time or /real_time).\n"
               "Counters: bytes_per_second (minimal DRAM bytes), flop_per_second, cgma (FLOP/B), occupancy,\n"
               "active_blocks_per_sm, thread_utilization, registers; sample_median_us and sample_noise are the\n"
               "median and stddev/mean of the single-launch times, as `occbench run` reports them.\n\n";
  benchmark::PrintDefaultHelp();
}

// The command line: occbench's own flags taken out, Google Benchmark's left for it.
struct Flags {
  std::vector<std::string> config_paths;
  PointSelection selection;  // --variants, --filter, --set, --axis: as for occbench run
};

// Exits 2 on a bad flag, naming it.
Flags parse_flags(int argc, char** argv) {
  Flags flags;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* flag) -> std::optional<std::string> {
      std::string prefix = std::string(flag) + "=";
      if (arg.rfind(prefix, 0) == 0) return arg.substr(prefix.size());
      if (arg == flag) {
        if (i + 1 >= argc) {
          std::cerr << "occbench_gbench: " << flag << " needs a value\n";
          std::exit(2);
        }
        return std::string(argv[++i]);
      }
      return std::nullopt;
    };
    try {
      if (auto v = value("--config")) flags.config_paths.push_back(*v);
      else if (auto d = value("--device")) session().device_ordinal = std::atoi(d->c_str());
      else if (auto names = value("--variants")) add_variant_names(flags.selection, *names);
      else if (auto regex = value("--filter")) flags.selection.filter = *regex;
      else if (auto set = value("--set")) add_axis_override(flags.selection, "--set", *set);
      else if (auto axis = value("--axis")) add_axis_override(flags.selection, "--axis", *axis);
      else rest.push_back(argv[i]);
    } catch (const ConfigError& e) {
      std::cerr << "error: " << e.what() << "\n";
      std::exit(2);
    }
  }
  if (benchmark::ReportUnrecognizedArguments(int(rest.size()), rest.data())) std::exit(2);
  return flags;
}

// Every point of the configs (each shipped config at its smallest sizes where none was given),
// once each. Throws ConfigError.
std::vector<BenchPoint> benchmark_points(const std::vector<std::string>& config_paths, const PointSelection& selection,
                                         bool smallest) {
  const Registry& registry = builtin_registry();
  std::vector<BenchPoint> points;
  std::set<std::string> names;
  // A config of the user's own kernels (--config examples/...) owns its family: kept alive with
  // the points that refer to it.
  static std::vector<std::shared_ptr<const Family>> source_families;
  for (const auto& path : config_paths) {
    SweepSpec spec = parse_sweep_file(path, registry);
    if (smallest) spec = smallest_sizes(spec, selection);
    try {
      spec = apply_selection(spec, selection, registry);
    } catch (const ConfigError& e) {
      if (!smallest) throw;
      continue;  // a shipped config the selection does not fit (another family's variants or axes)
    }
    if (spec.source_family) source_families.push_back(spec.source_family);
    for (auto& point : expand_sweep(spec, registry)) {
      // The SM clock is locked by occbench run's observer (harness/measure/sm_clock.hpp), which
      // this front end does not have: its points would run at the default clocks under another name.
      if (point.params.has(kSmClockAxis)) continue;
      std::string name = benchmark_name(point);
      if (!names.insert(name).second) continue;  // the same point from another config
      points.push_back({std::move(point), spec.measurement, name});
    }
  }
  return points;
}

void register_benchmarks(std::vector<BenchPoint> points) {
  // The points live as long as the benchmarks that refer to them.
  static std::vector<BenchPoint> registered;
  registered = std::move(points);
  for (const auto& b : registered) {
    auto* bench = benchmark::RegisterBenchmark(b.name.c_str(), [&b](benchmark::State& state) { run_benchmark(state, b); });
    bench->Unit(benchmark::kMicrosecond);
    bench->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
    bench->ComputeStatistics("max", [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); });
    if (b.point.variant->executor == Executor::device) bench->UseManualTime();
    else bench->UseRealTime();
  }
}

int gbench_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv, print_help);
  Flags flags = parse_flags(argc, argv);
  bool smallest = flags.config_paths.empty();
  if (smallest) {
    std::string data = data_dir();  // installed: <prefix>/share/occbench; built: the source tree
    if (data.empty()) {
      std::cerr << "occbench_gbench: no shipped configs found (OCCBENCH_DATA_DIR, <prefix>/share/occbench beside an "
                   "installed binary, or the source tree around a built one); pass --config FILE\n";
      return 2;
    }
    flags.config_paths = shipped_configs(std::filesystem::path(data) / "configs");
  }
  try {
    register_benchmarks(benchmark_points(flags.config_paths, flags.selection, smallest));
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  // Which build and which GPU, in Google Benchmark's context block (console and JSON).
  benchmark::AddCustomContext("occbench_commit", tool_block().value("git_commit", std::string("unknown")));
  if (const auto& no_gpu = session().gpu()) benchmark::AddCustomContext("occbench_device", *no_gpu);
  else benchmark::AddCustomContext("occbench_device", session().device.name);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  Session& s = session();
  std::size_t failed = s.failed.size();
  s.close();
  if (!failed) return 0;
  std::cerr << fmt::format("occbench_gbench: {} point(s) failed verification (wrong results):", failed);
  for (const auto& id : s.failed) std::cerr << " " << id;
  std::cerr << "\n";
  return 1;
}

}  // namespace
}  // namespace occbench

int main(int argc, char** argv) { return occbench::gbench_main(argc, argv); }
