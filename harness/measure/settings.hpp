#pragma once
// How a run measures each point: the timing mode and sampling rule, the inputs' seed, and the
// optional counters. Parsed from a config's `measurement` block (harness/sweep/config.hpp) and
// echoed in the run record.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace occbench {

struct MeasurementSettings {
  // "cold": L2 swept clean before every sample; "hot": not; "batch": the cold median, then many
  // back-to-back launches per event pair, timed per launch (harness/measure/timer.hpp)
  std::string mode = "cold";
  int warmup_runs = 1;          // untimed launches before sampling
  int min_samples = 10;
  int max_samples = 1000;
  double target_noise = 0.01;   // stop once stddev / mean is under this ...
  double min_time_s = 0.02;     // ... and at least this much kernel time was measured
  double timeout_s = 2.0;       // per point: stop sampling after this much wall time
  std::uint64_t seed = 42;      // random inputs
  bool counters = false;        // hardware counters after each point's timing (harness/measure/counters/counters.hpp)
  // Cold samples timed after the event pair's by CUPTI's range profiler (gpu__time_duration, as
  // Nsight Compute), whose median becomes the point's (harness/measure/timer.hpp); 0: the event pair only
  // (the default: a profiled sample costs ~5 ms, ~8x the wall time of a sweep of short kernels).
  int profiled_samples = 0;
  // Shared-memory wavefronts and bank conflicts (run --counters) come from one more launch with its
  // shared instructions instrumented, which runs ~30-350x longer than the kernel (H100): points
  // whose timed median is over this many ms are not instrumented (their section says so); 0: none.
  double instrumented_max_kernel_ms = 2.0;
  // With counters, when the L2 is flushed during a counted replay: "per_launch" before each replay
  // of the point's launch (its later kernels find what its earlier operations, a memset or a first
  // kernel, left in the L2, as when the launch runs), or "per_kernel" before each of its kernels
  // too, as Nsight Compute flushes before every kernel it profiles (--cache-control all).
  std::string counters_l2_flush = "per_launch";
  // Energy per device point (run --energy, harness/measure/energy/energy.hpp): NVML's energy counter over
  // a window of back-to-back launches after the timing, of about energy_window_s (whole updates
  // of the counter).
  bool energy = false;
  double energy_window_s = 0.2;
};

nlohmann::ordered_json to_json(const MeasurementSettings& settings);

}  // namespace occbench
