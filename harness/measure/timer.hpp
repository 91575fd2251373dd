#pragma once
// Times a callable: cudaEvents around each device sample, the host clock for host code. Knows
// nothing of kernels; the caller's callable launches whatever it launches.
#include "harness/measure/settings.hpp"
#include "harness/measure/stats.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace occbench {

// How a cold sample's L2 is prepared. The chosen one is `read`: a read-only sweep of a scratch
// buffer twice the L2's size. It evicts every line (the previous sample's dirty output is written
// back during the sweep, before the start event) and leaves only clean scratch lines, so the timed
// kernel neither finds its data in the L2 nor pays for anybody's write-backs. `write` (a memset
// of 2x L2, what nvbench does and occbench did) leaves the L2 full of dirty lines whose write-back
// competes with the timed kernel. Measured on the H100 against ncu's gpu__time_duration
// (results/reference/h100/ncu_agreement.md): adjacent difference at 16 M floats, `write` +6 to
// +9 us (+10% to +21%), `read` and `write_read` (memset, then the sweep) +1.6 to +2.6 us and within
// 0.2 us of each other; matmul 1024^3 (compute-bound) +1.8 us with all three. `read` does the job
// with half of write_read's traffic. The ~2 us left is the event pair's own cost.
// `read_discard` follows the sweep with `discard.global.L2` over the scratch buffer (sm_80 on):
// the L2 is left holding no valid line at all, as after Nsight Compute's flush-and-invalidate,
// instead of full of clean scratch lines. Measured on the H100 it changed neither the cold medians
// nor the counted DRAM writes of outputs that leave the L2; those of an output that stays in the
// L2 moved a third of the way to ncu's (results/reference/h100/counters/agreement_runs/summary.md).
// `read` stays the default.
// OCCBENCH_L2_FLUSH=write|write_read|read|read_discard picks one (scripts/ncu/ncu_agreement.py --methods).
enum class FlushMethod { read, write, write_read, read_discard };
FlushMethod flush_method_from_env();  // OCCBENCH_L2_FLUSH, default read; throws on an unknown value
const char* to_string(FlushMethod method);

class L2Flusher {
 public:
  L2Flusher(std::size_t l2_bytes, int sm_count, FlushMethod method = flush_method_from_env());
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  void flush(cudaStream_t stream);
  std::size_t bytes() const { return bytes_; }
  FlushMethod method() const { return method_; }

 private:
  void* buffer_ = nullptr;
  float* sink_ = nullptr;
  std::size_t bytes_ = 0;
  int sm_count_ = 0;
  FlushMethod method_;
  unsigned counter_ = 0;
};

// The L2 flush before a counters pass (or a batch's launch), waited for; with no flusher, the wait.
std::function<void()> flush_and_wait(L2Flusher* flusher, cudaStream_t stream);

// A start and a stop event, created and destroyed together.
struct EventPair {
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start{}, stop{};
};

// Called between samples (outside the timed interval), e.g. to read the clocks.
using BetweenSamples = std::function<void()>;

// Cold samples timed by a profiler instead of the event pair (the runner passes
// CounterSession::measure_durations_ms): runs `count` samples, each `flush` then `timed`, and
// returns each sample's kernel duration in ms, Nsight Compute's gpu__time_duration. Throws
// std::runtime_error with the reason when it cannot; the samples are then timed by the event pair.
using ProfiledSamples =
    std::function<std::vector<double>(int count, const std::function<void()>& flush, const std::function<void()>& timed)>;

// Cold samples the range profiler times per point (0: none): measurement.profiled_samples, or 10
// under OCCBENCH_TIMING_SOURCE=profiler where the config sets none; none under =event or =cupti.
int profiled_sample_count(const MeasurementSettings& settings);

// Warm-up launches, then samples until stop_reason() says so. `flusher` is used before every
// sample in cold and batch mode and may be null in hot mode. Batch mode first measures the cold
// median, then times launches_per_sample back-to-back launches per event pair (enough for about
// kBatchSampleMs of kernel time) and reports the time per launch.
constexpr double kBatchSampleMs = 2.0;
// Where the cold samples' times come from (timing.source, docs/timing.md): CUPTI's kernel
// activity where the hardware takes its timestamps (Blackwell on); else the event pair, followed
// by profiled_sample_count() samples through `profiled` where that is above 0, `profiled` is given
// and the profiler can be used. OCCBENCH_TIMING_SOURCE overrides the choice.
TimingStats time_device(const std::function<void(cudaStream_t)>& launch, const MeasurementSettings& settings,
                        cudaStream_t stream, L2Flusher* flusher, const BetweenSamples& between = {},
                        const ProfiledSamples& profiled = {});

TimingStats time_host(const std::function<void()>& work, const MeasurementSettings& settings,
                      const BetweenSamples& between = {});

// The timing floor: median event-pair time around an empty kernel on `stream`, in ms. A kernel
// whose median is within a few times of it is mostly launch and event overhead.
double measure_timing_floor_ms(cudaStream_t stream, int repetitions = 200);

// How close to the floor a point may come before it is flagged (median < factor x floor).
constexpr double kNearFloorFactor = 5.0;
bool near_timing_floor(double median_ms, double floor_ms);

}  // namespace occbench
