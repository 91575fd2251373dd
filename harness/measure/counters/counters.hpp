#pragma once
// Measured hardware counters of one point (`occbench run --counters`), through CUPTI's range
// profiler and profiler host API (CUDA 13): after the point's timing, never during it, the same
// launch is replayed (user replay, the L2 flushed before each pass, or before each kernel as Nsight
// Compute does: measurement.counters_l2_flush) until every metric is collected; each kernel of the
// launch is one auto range, summed over kernels.
// The profiler is enabled for the run but started only around a point's replays. CUPTI's profiler
// entry points are loaded at run time (dlopen; the timing's activity code links libcupti itself);
// where counters cannot be read the point's `counters` section says why and the run goes on.
#include "harness/family/registry.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct CUpti_RangeProfiler_Object;

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

// Every metric the range profiler collects, in record order (Hopper names; the same on Ampere, Ada
// and Blackwell). Shared-memory wavefronts and bank conflicts come from instrumentation instead
// (SharedAccessCounts).
const std::vector<CounterMetric>& counter_metrics();
// The place of a field ("dram_read_bytes") in counter_metrics(); std::logic_error for none.
std::size_t counter_index(const char* field);

// A launch's shared-memory accesses counted by SASS instrumentation (CUPTI's SASS metrics API: the
// launch runs once more with its shared-memory instructions patched to count). These are exact
// counts of what the warps' addresses ask of the 32 banks, the same in every run and equal to
// Nsight Compute's instrumented figures ("L1 Wavefronts Shared", "... Ideal", "... Excessive"). The
// L1's own bank-conflict counter (the range profiler's l1tex__data_bank_conflicts_*) also counts
// arbitration, e.g. a shared access meeting an L1 fill in the same bank, so it moves from run to run.
struct SharedAccessCounts {
  double load_instructions = 0, store_instructions = 0;     // warp instructions: LDS/LD, STS/ST
  double load_wavefronts = 0, load_ideal_wavefronts = 0;    // of LDS/LD
  double store_wavefronts = 0, store_ideal_wavefronts = 0;  // of STS/ST
  double wavefronts = 0, ideal_wavefronts = 0;              // of every shared instruction (LDSM, atomics, ... too)
};
// One patched instruction's counts: the warp instructions it executed as a shared load or store
// (at most one of the two is non-zero) and its wavefronts, actual and ideal.
struct InstructionSharedCounts {
  double load_instructions = 0, store_instructions = 0, wavefronts = 0, ideal_wavefronts = 0;
};
// Sums the instructions of a launch, the loads' and stores' apart. Pure, for tests.
SharedAccessCounts sum_shared_accesses(const std::vector<InstructionSharedCounts>& instructions);
// Why a point is not instrumented ("" where it is): its kernel's timed median over
// `max_kernel_ms` (measurement.instrumented_max_kernel_ms), or instrumentation off (0). Pure, for tests.
std::string instrumentation_skip_reason(double kernel_ms, double max_kernel_ms);

// Why the instrumented counts cannot stand beside the range profiler's ("" where they can): the
// instrumented shared load and store warp instructions can be fewer than the hardware's (it counts
// instructions run with every thread's predicate off too), never more, and none only where the
// hardware counted none (an unpatched launch reports nothing). Pure, for tests.
std::string shared_access_mismatch(const SharedAccessCounts& counts, double hardware_load_instructions,
                                   double hardware_store_instructions);

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
  double decode_s = 0;  // of which decoding the counter data and evaluating the metrics
  double start_s = 0;   // of replay_s: cuptiRangeProfilerStart, all passes
  double stop_s = 0;    // of replay_s: cuptiRangeProfilerStop, all passes
  int batch_launches = 1;  // launches (points) counted in the same collection; the times above are this one's share
  bool l2_flush_per_kernel = false;  // the L2 flushed before each kernel of the launch, not only before each pass
  std::optional<SharedAccessCounts> shared_access;  // instrumented, or empty with the reason below
  std::string shared_access_reason;
  double instrumented_s = 0;  // of added_s: the instrumented launch (patching, the launch, reading the counts)
};

// A batch collection (CounterSession::measure_batch) runs each launch after its L2 flush, whose
// read sweep is a range of its own. CUPTI names auto ranges by number only, so a flush range is
// told by what it did: L1 global loads of the flush buffer's size (within 1%) and no stores.
bool is_flush_range(double l1_global_load_bytes, double l1_global_store_bytes, double flush_read_bytes);
// Splits the ranges, in launch order, into each launch's (the flush ranges left out). Throws
// std::runtime_error when they do not split into `launches` launches of at least one kernel each,
// a flush first. Pure, for tests.
std::vector<std::vector<std::size_t>> split_ranges_at_flushes(const std::vector<bool>& flush_ranges, std::size_t launches);

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

// The counters' environment switches (docs/counters.md): OCCBENCH_COUNTERS_CONFIG=point|run
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
  // Why batches of points are not counted together in this run ("" while they are).
  const std::string& batch_unusable_reason() const { return batch_unusable_reason_; }
  void mark_batch_unusable(const std::string& reason) { batch_unusable_reason_ = reason; }

  // From now on the L2 is flushed before every kernel of a counted launch too, not only before
  // each pass (measurement.counters_l2_flush "per_kernel"), as Nsight Compute flushes before every
  // kernel it profiles: a launch's memset or first kernel no longer leaves its lines in the L2 for
  // the next kernel. A CUPTI callback on each kernel launch waits for the launch's earlier work and
  // runs `flush` (the read sweep of `flush_read_bytes`, waited for); its ranges are told apart as a
  // batch's flushes are (is_flush_range) and left out, and points are counted one by one. Where
  // CUPTI's callback API cannot be had (another subscriber, such as a tool the run is under), the
  // session becomes unavailable, saying why: counts flushed per launch would not be what was asked.
  void flush_before_each_kernel(std::function<void()> flush, double flush_read_bytes);
  bool flushes_per_kernel() const;

  // Replays `launch_once` (which launches the point and waits for it) once per pass, running
  // `between_passes` (the L2 flush) outside the profiled range before each pass. Throws
  // std::runtime_error with the reason when a CUPTI call fails.
  // `skip_instrumentation`: why the launch is not instrumented ("" where it is).
  CounterReading measure(const std::function<void()>& launch_once, const std::function<void()>& between_passes,
                         const std::string& skip_instrumentation = "");

  // Several points' launches counted in one collection, in the same passes: CUPTI's start of a
  // collection (~37 ms on the H100, most of a point's cost) is paid once for all of them. Each
  // launch runs after `flush` inside the pass; each kernel is one range, and the flush kernels'
  // ranges mark where each launch's begin (split_ranges_at_flushes). The flush must launch only
  // the read sweep, of `flush_read_bytes`. Throws std::runtime_error as measure() does.
  std::vector<CounterReading> measure_batch(const std::vector<std::function<void()>>& launches,
                                            const std::function<void()>& flush, double flush_read_bytes,
                                            const std::vector<std::string>& skip_instrumentation = {});

  // Cold samples timed as Nsight Compute times a kernel: `count` samples, each `flush` (the read
  // sweep of `flush_read_bytes`) then `timed` (the launch, not waited for), in one collection of
  // gpu__time_duration, each kernel one range; returns each sample's summed kernel duration in ms.
  // The same ranges split as measure_batch's. Throws std::runtime_error with the reason when the
  // durations cannot be had (durations_unavailable_reason(), a CUPTI failure, ranges that do not
  // split into `count` samples).
  std::vector<double> measure_durations_ms(int count, const std::function<void()>& flush, const std::function<void()>& timed,
                                           double flush_read_bytes);
  // Why measure_durations_ms cannot be used ("" where it can): the session's reason, or the
  // durations' metric set needing more than one pass on this chip.
  std::string durations_unavailable_reason() const {
    return available() ? durations_unavailable_reason_ : unavailable_reason_;
  }

  // Its parts' shared state and one collection's (harness/measure/counters/counters_cupti.hpp, counters_session.cpp).
  struct State;
  struct Collection;

 private:
  CounterSession() = default;
  // flush_read_bytes > 0: a batch (measure_batch); 0: one launch, flushed before each pass.
  // `durations`: the durations' metric set (measure_durations_ms), else counter_metrics().
  std::vector<CounterReading> collect(const std::vector<std::function<void()>>& launches, const std::function<void()>& flush,
                                      double flush_read_bytes, bool durations = false,
                                      const std::vector<std::string>& skip_instrumentation = {});
  // The range profiler for a collection: the run's, or one enabled for it (`enabled_here`).
  CUpti_RangeProfiler_Object* enable_for_collection(bool& enabled_here);
  // Configures, replays the launches pass by pass and decodes each range's values; on a failure
  // the run-wide profiler is dropped and the error rethrown.
  std::vector<std::vector<double>> replay(CUpti_RangeProfiler_Object* profiler, Collection& c, bool durations,
                                          bool enabled_here);
  // One whole collection around an empty kernel: CUPTI's first collection after an enable leaves
  // ~21 MB of dirty L2 lines of its own, which the next point's DRAM writes would count.
  void prime();
  std::unique_ptr<State> state_;
  // After a failed point: a run-wide profiler is disabled (a pass left started or a half-used
  // counter image cannot reach the next point) and the next measure() enables it again.
  void drop_run_wide_profiler(bool enabled_here);
  std::string unavailable_reason_;
  std::string batch_unusable_reason_;
  std::string durations_unavailable_reason_;
  std::string chip_;
  int passes_ = 0;
};

}  // namespace occbench
