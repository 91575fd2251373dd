#pragma once
// Measured hardware counters of one point (`occbench run --counters`), through CUPTI's range
// profiler and profiler host API (CUDA 13): after the point's timing, never during it, the same
// launch is replayed (user replay, the L2 flushed before each pass as Nsight Compute does) until
// every metric is collected; each kernel of the launch is one auto range, summed over kernels.
// The profiler is enabled for the run but started only around a point's replays. CUPTI's profiler
// entry points are loaded at run time (dlopen; the timing's activity code links libcupti itself);
// where counters cannot be read the point's `counters` section says why and the run goes on.
#include "harness/registry.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

// How the values of several kernels of one launch (e.g. cuBLAS) combine into the point's value.
enum class CounterCombine { sum, duration_weighted };

struct CounterMetric {
  const char* field;   // name in the record's counters section
  const char* metric;  // CUPTI / Nsight Compute metric name
  const char* unit;    // the record's units block
  CounterCombine combine;
  double scale;        // record value = metric value x scale (a percentage of peak becomes a fraction)
};

// Every metric collected, in record order (Hopper names; the same on Ampere, Ada and Blackwell).
const std::vector<CounterMetric>& counter_metrics();

// The metric values of one launch, in counter_metrics() order, already combined over its kernels.
struct CounterReading {
  std::vector<double> values;
  int kernels = 0;      // auto ranges (kernels) the launch made
  int passes = 0;       // replays of the launch CUPTI needed
  double added_s = 0;   // wall time the counters added to this point
  double setup_s = 0;   // of which enabling and configuring the profiler
  double replay_s = 0;  // of which the passes: the L2 flushes, the launches and CUPTI's start/stop
  double flush_s = 0;   // of replay_s: the L2 flushes before the passes (and their syncs)
  double launch_s = 0;  // of replay_s: the launches (and their syncs)
  double start_s = 0;   // of replay_s: cuptiRangeProfilerStart, all passes
  double stop_s = 0;    // of replay_s: cuptiRangeProfilerStop, all passes
  double decode_s = 0;  // of which decoding the counter data and evaluating the metrics
};

// Combines per-kernel metric values (one vector per kernel, counter_metrics() order): sums, or
// averages weighted by each kernel's gpu__time_duration. Pure, for tests.
std::vector<double> combine_kernels(const std::vector<std::vector<double>>& per_kernel);

// A point's `counters` section with its derived figures: measured arithmetic intensity at DRAM,
// L2 and L1 (work.flops / bytes at that level), measured DRAM bytes / work.dram_bytes, achieved /
// theoretical occupancy, bank conflicts per shared-memory instruction, bandwidth per level.
// Pure, for tests.
nlohmann::ordered_json measured_counters_json(const CounterReading& reading, const WorkModel& work,
                                              std::optional<double> theoretical_occupancy);
// The section of a point whose counters could not be read: status "unavailable" and the reason.
nlohmann::ordered_json unavailable_counters_json(const std::string& reason);

// The record's units of the counters section ("counters.dram_read_bytes": "bytes", ...).
nlohmann::ordered_json counters_units();

// The counters' environment switches (README, Hardware counters): OCCBENCH_COUNTERS_CONFIG=point|run
// and OCCBENCH_COUNTERS_ENABLE=run|point. Each throws std::invalid_argument naming the variable
// on a value it does not know.
bool counters_configure_once_from_env();
bool counters_enable_per_point_from_env();

// Why counters are unavailable, in words, for a failed CUPTI call: no permission
// (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), an unsupported GPU, a virtualized one... Pure, for tests.
std::string cupti_failure_reason(int cupti_result, const std::string& call, const std::string& cupti_text);

// Replays of a launch CUPTI needs to collect counter_metrics() on `chip` ("GH100", as
// cuptiDeviceGetChipName names it), from the profiler host API alone: no GPU needed. Throws
// std::runtime_error when libcupti cannot be loaded or does not know the chip.
int counter_passes(const std::string& chip);

// One CUPTI profiling session for a run: the config image is built once; each point is measured
// by replaying its launch. open() never throws: when CUPTI cannot be loaded or refuses this GPU,
// the session is unavailable with a reason and every point says so.
class CounterSession {
 public:
  static std::unique_ptr<CounterSession> open(int device_ordinal);
  ~CounterSession();
  CounterSession(const CounterSession&) = delete;
  CounterSession& operator=(const CounterSession&) = delete;

  bool available() const { return unavailable_reason_.empty(); }
  const std::string& unavailable_reason() const { return unavailable_reason_; }
  const std::string& chip() const { return chip_; }
  int passes() const { return passes_; }  // replays per launch, as the host API estimates them

  // Replays `launch_once` (which launches the point and waits for it) once per pass, running
  // `between_passes` (the L2 flush) outside the profiled range before each pass. Throws
  // std::runtime_error with the reason when a CUPTI call fails.
  CounterReading measure(const std::function<void()>& launch_once, const std::function<void()>& between_passes);

  struct State;

 private:
  CounterSession() = default;
  std::unique_ptr<State> state_;
  // After a failed point: a run-wide profiler is disabled (a pass left started or a half-used
  // counter image cannot reach the next point) and the next measure() enables it again.
  void drop_run_wide_profiler(bool enabled_here);
  std::string unavailable_reason_;
  std::string chip_;
  int passes_ = 0;
};

}  // namespace occbench

namespace occbench {

// A device point's `counters` section: measured through `session`, or unavailable with the
// reason when the session cannot count or a CUPTI call fails.
nlohmann::ordered_json collect_counters(CounterSession& session, const WorkModel& work,
                                        std::optional<double> theoretical_occupancy,
                                        const std::function<void()>& launch_once,
                                        const std::function<void()>& between_passes);

}  // namespace occbench
