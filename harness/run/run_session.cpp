#include "harness/run/run_session.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/model/metrics.hpp"
#include "harness/measure/sm_clock.hpp"
#include "harness/records/time_use.hpp"
#include "harness/run/clock_axis.hpp"
#include "harness/run/supervisor.hpp"
#include "harness/sweep/selection.hpp"

#include <fmt/format.h>

#include <ostream>

namespace occbench {

namespace {

// The energy meter learns the counter's period and the idle power with the GPU idle, before
// anything runs on it (harness/measure/energy/energy.hpp).
void open_energy_meter(RunSession& s, const MeasurementSettings& m, std::ostream& log) {
  if (!m.energy) return;
  EnergySettings settings;
  settings.window_s = m.energy_window_s;
  settings.second_window_s = second_window_s_from_environment();
  std::string why;
  std::unique_ptr<EnergyReadings> readings = nvml_energy_readings(s.device.pci_bus_id, why);
  s.energy = std::make_unique<EnergyMeter>(std::move(readings), settings, why);
  const EnergyMeter& e = *s.energy;
  log << (e.available() ? fmt::format("energy: NVML's counter updates every {:.1f} ms; idle {:.1f} W; windows of {} update(s)\n",
                                      e.calibration().period_s * 1e3, e.calibration().idle_w,
                                      counter_periods(settings.window_s, e.calibration().period_s))
                        : fmt::format("energy unavailable: {}; timings go on\n", e.unavailable_reason()));
}

// `resumed`: the resumed run's device record (null for a new run), whose ceilings are kept.
void open_device(RunSession& s, int ordinal, const MeasurementSettings& m, const ordered_json& resumed, std::ostream& log) {
  auto t0 = std::chrono::steady_clock::now();
  s.device = query_device(ordinal);
  // A run killed while it held the SM clock locked left a marker: the GPU gets its default back first.
  if (std::string restored = restore_left_sm_clock(s.device.pci_bus_id); !restored.empty()) log << restored << "\n";
  open_energy_meter(s, m, log);  // idle: before the ceilings' probes warm the GPU
  s.device.clocks_start = read_clocks(s.device);
  bool reused = reuse_ceilings(s.device, resumed);
  if (!reused) measure_ceilings(s.device);
  s.run_t0 = std::chrono::steady_clock::now();
  s.startup_s = std::chrono::duration<double>(s.run_t0 - t0).count();
  const DeviceInfo& d = s.device;
  log << fmt::format("device {}: {} (sm_{}{}), {} SMs, L2 {} MiB; copy bandwidth {:.0f} GB/s measured, {:.0f} GB/s peak; "
                     "DRAM latency {:.0f} ns measured\n",
                     ordinal, d.name, d.compute_major, d.compute_minor, d.sm_count, d.l2_bytes >> 20,
                     *d.measured_bandwidth_gbps, d.peak_bandwidth_gbps, *d.dram_latency_ns);
  log << fmt::format("measured L2 bandwidth {:.0f} GB/s, shared-memory bandwidth {:.0f} GB/s{}\n",
                     *d.measured_l2_bandwidth_gbps, *d.measured_smem_bandwidth_gbps,
                     reused ? " (the resumed run's, measured at its start)" : "");
}

void open_outputs(RunSession& s, const SweepSpec& spec, const RunOptions& options) {
  s.started_utc = utc_now_iso();
  std::string stem;
  if (options.resume) {
    stem = options.resume_path.substr(0, options.resume_path.size() - std::string(".jsonl").size());
    s.finished = records_by_point(*options.resume);
    std::string previous = options.resume->header["device"].value("name", "");
    if (previous != s.device.name)
      throw ConfigError(options.resume_path, "$.device.name",
                        fmt::format("the run was started on '{}' but this device is '{}'; results of two GPUs cannot be mixed",
                                    previous, s.device.name));
  } else {
    stem = output_stem(options.out_dir, spec.name, s.device.name, utc_now_compact());
  }
  s.jsonl_path = stem + ".jsonl";
  s.json_path = stem + ".json";
  s.csv_path = stem + ".csv";
  s.jsonl = std::make_unique<JsonlWriter>(s.jsonl_path, options.resume != nullptr);
  if (!options.resume) {
    ordered_json header = {{"occbench_jsonl", kJsonlVersion}, {"tool", tool_block()}, {"device", to_json(s.device)}, {"config", spec.raw},
                           {"config_source", spec.source}, {"started_utc", s.started_utc}};
    // A resumed shard stays that shard, and a resumed sample that sample.
    if (!spec.selection.empty()) header["selection"] = to_json(spec.selection);
    if (!options.strategy.is_default()) header["strategy"] = to_json(options.strategy);
    s.jsonl->write(header);
  }
  announce(options.supervisor_fd, "jsonl " + s.jsonl_path);
}

void log_profiler(const RunSession& s, bool profile_timing, std::ostream& log) {
  if (CounterSession* counters = s.context.counters)
    log << (counters->available() ? fmt::format("counters: CUPTI range profiler on {}, {} replays per launch, the L2 flushed before each {}\n",
                                                counters->chip(), counters->passes(), counters->flushes_per_kernel() ? "kernel" : "replay")
                                  : fmt::format("counters unavailable: {}; timings go on (occbench doctor checks this machine)\n",
                                              counters->unavailable_reason()));
  if (profile_timing)
    log << (s.profiler->durations_unavailable_reason().empty()
                ? std::string("timing: cold samples by CUPTI's range profiler (gpu__time_duration, as Nsight Compute)\n")
                : fmt::format("timing: cold samples by the event pair, the range profiler cannot time them: {}\n",
                              s.profiler->durations_unavailable_reason()));
}

void open_measurement(RunSession& s, const SweepSpec& spec, const RunOptions& options, std::ostream& log) {
  const MeasurementSettings& m = spec.measurement;
  // A blocking stream: it waits for the legacy default stream, where problems upload inputs and
  // poison outputs (cudaMemcpy, cudaMemset). A non-blocking one raced with the poisoning.
  OCCBENCH_CUDA_CHECK(cudaStreamCreate(&s.stream));
  s.device.timing_floor_ms = measure_timing_floor_ms(s.stream);
  // Read once the GPU has been busy (the copies and the floor above): the clock every point's
  // readings are judged against.
  s.device.clocks_start = read_clocks(s.device);
  // Counters flush the L2 before each replay too, as Nsight Compute does, so bytes per level are a cold launch's.
  if (m.mode == "cold" || m.mode == "batch" || m.counters) s.flusher = std::make_unique<L2Flusher>(s.device.l2_bytes, s.device.sm_count);
  if (s.flusher) s.flush_method = to_string(s.flusher->method());
  // One CUPTI range profiler for the run: it counts (--counters) and, asked to (profiled_samples,
  // OCCBENCH_TIMING_SOURCE=profiler), times cold samples by gpu__time_duration, as Nsight Compute does.
  bool profile_timing = s.flusher && m.mode != "hot" && profiled_sample_count(m) > 0;
  if (m.counters || profile_timing) s.profiler = CounterSession::open(options.device);
  CounterSession* counters = m.counters ? s.profiler.get() : nullptr;
  bool read_sweep = s.flusher && s.flusher->method() == FlushMethod::read;
  if (counters && m.counters_l2_flush == "per_kernel")
    counters->flush_before_each_kernel(read_sweep ? flush_and_wait(s.flusher.get(), s.stream) : std::function<void()>(),
                                       s.flusher ? double(s.flusher->bytes()) : 0);
  s.context = PointContext{&s.device, &spec.measurement, s.stream, s.flusher.get(), counters,
                           profile_timing ? s.profiler.get() : nullptr, &s.health, s.energy.get()};
  log_profiler(s, profile_timing, log);
}

}  // namespace

RunSession::~RunSession() { close_measurement(); }

void RunSession::close_measurement() {
  if (!stream) return;
  flusher.reset();
  cudaStreamDestroy(stream);
  stream = nullptr;
  context.flusher = nullptr;
  context.stream = nullptr;
  device.clocks_end = read_clocks(device);
}

std::unique_ptr<RunSession> open_run_session(const SweepSpec& spec, const RunOptions& options, std::ostream& log) {
  wait_until_clear();  // a standby that replaces a lost child: the GPU's idle power and clocks once that child is gone
  auto session = std::make_unique<RunSession>();
  open_device(*session, options.device, spec.measurement,
              options.resume ? options.resume->header.value("device", ordered_json()) : ordered_json(), log);
  if (uses_sm_clock_axis(spec)) log << check_sm_clocks(spec, local_sm_clocks(session->device.pci_bus_id), session->device.name);
  open_outputs(*session, spec, options);
  open_measurement(*session, spec, options, log);
  return session;
}

RunSummary finish_run(RunSession& s, const SweepSpec& spec, const RunOptions& options, std::vector<ordered_json>& results,
                      std::ostream& log) {
  s.close_measurement();
  RunSummary summary;
  summary.json_path = s.json_path;
  summary.csv_path = s.csv_path;
  summary.jsonl_path = s.jsonl_path;
  summary.reused = s.reused;
  assign_speedups(results, spec.baseline);
  std::vector<ordered_json> measured_here;  // a resumed run's kept records took their time before this process
  for (const auto& r : results)
    if (!s.finished.count(r.value("point_id", ""))) measured_here.push_back(r);
  RunTimeUse time_use = run_time_use(measured_here, seconds_since(s.run_t0));
  time_use.kept_points = results.size() - measured_here.size();
  for (const auto& r : results) {
    std::string status = r.value("status", "");
    summary.ok += status == "ok";
    summary.failed += status == "failed";
    summary.skipped += status == "skipped";
  }
  ordered_json run = {{"kind", "run"},
                      {"started_utc", options.resume ? options.resume->header.value("started_utc", s.started_utc) : s.started_utc},
                      {"finished_utc", utc_now_iso()},
                      {"command", options.command_line},
                      {"config_source", spec.source},
                      {"measurement", to_json(spec.measurement)},
                      {"resumed_points", summary.reused},
                      {"l2_flush", s.flush_method},
                      {"startup_s", s.startup_s},
                      {"wall_s", time_use.wall_s},
                      {"timed_s", time_use.timed_s},
                      {"timed_fraction", time_use.timed_fraction()},
                      {"time_use_s", to_json(time_use)}};
  if (!spec.selection.empty()) run["selection"] = to_json(spec.selection);  // --variants, --filter, --set
  if (!options.strategy.is_default()) run["strategy"] = to_json(options.strategy);
  if (s.energy) run["energy"] = s.energy->to_json();  // the counter's period, the idle power
  ordered_json document = make_document(run, to_json(s.device), spec.raw, results);
  write_text_file(summary.json_path, document.dump(2) + "\n");
  write_text_file(summary.csv_path, to_csv(results));

  log << "\n" << format_table(results);
  log << format_timing_flags(results, s.device.timing_floor_ms.value_or(0), time_use);
  log << fmt::format("\n{} ok, {} failed, {} skipped{}\nwrote {}\n      {}\n      {}\n", summary.ok, summary.failed,
                     summary.skipped, summary.reused ? fmt::format(" ({} kept from the resumed run)", summary.reused) : "",
                     summary.json_path, summary.csv_path, summary.jsonl_path);
  summary.exit_code = summary.failed > 0 ? 1 : 0;
  return summary;
}

}  // namespace occbench
