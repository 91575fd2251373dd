#pragma once
// Sample statistics and the rule that decides when sampling stops. Pure CPU code.
#include "harness/measure/settings.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace occbench {

struct TimingStats {
  std::string mode;  // "cold" | "hot" | "batch" | "host"
  int samples = 0;
  double median_ms = 0, mean_ms = 0, min_ms = 0, max_ms = 0, stddev_ms = 0;
  double noise = 0;           // relative: stddev / mean
  double total_ms = 0;        // sum of the samples
  std::string stop_reason;    // "converged" | "max_samples" | "timeout"
  double sampling_wall_s = 0; // wall time of the sampling loop (warm-up, flushes, syncs included)
  // The first kKeptSamples samples, in the order they were taken (Kernel Tuner's "times"): each
  // sample is there to see, and a record stays small however many were taken.
  std::vector<double> samples_ms;
  static constexpr std::size_t kKeptSamples = 32;
  // Batch mode: each sample is launches_per_sample back-to-back launches (a CUDA graph of them,
  // or plain launches where capture fails) between one event pair; the figures above are per
  // launch, and cold_median_ms is the same point's cold median, measured first.
  int launches_per_sample = 1;
  std::string batch_method;   // "graph" | "stream" (batch mode only)
  double cold_median_ms = 0;
  std::string cold_source;    // batch mode: the timing source of cold_median_ms
  // Where the samples come from: "cupti_kernel_activity" (the GPU's start/end of the kernels the
  // launch ran, harness/measure/kernel_activity), "cupti_range_profiler" (gpu__time_duration of
  // profiled_samples cold samples taken after the event pair's, harness/measure/timer), "cuda_event_pair"
  // or "host_clock"; source_reason says why the event pair was used where CUPTI was tried.
  // event_median_ms: the event pair's median (device modes), of the same samples or, profiled,
  // of the event_samples taken before; stop_reason is then the event pair's sampling rule's.
  std::string source;
  std::string source_reason;
  double event_median_ms = 0;
  int event_samples = 0;        // profiled: the event pair's samples before the profiled ones
  double profiled_wall_s = 0;   // profiled: wall time of the profiler's collection
};

// Median, mean, min, max, sample stddev (n - 1) and relative noise of the samples (milliseconds).
TimingStats summarize(const std::vector<double>& samples_ms, const std::string& mode);

// Why sampling should stop now, or "" to go on. Converged: enough samples, enough measured time
// and noise under the target. Hard stops: max_samples, or the per-point timeout (after one sample).
std::string stop_reason(const TimingStats& so_far, double elapsed_wall_s, const MeasurementSettings& settings);

}  // namespace occbench
