#pragma once
// Kernel durations from CUPTI's activity API: the start and end timestamps of each kernel
// (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), meant to match Nsight Compute's gpu__time_duration
// without the ~2 us a cudaEvent pair adds around a launch (used by default only where the
// hardware takes them; see below).
//
// Which kernels belong to a timed sample: the sample's launch runs between push(tag) and pop(),
// which push a CUPTI external correlation id; CUPTI then emits, for every CUDA API call made in
// between, a record tying the call's correlation id to the tag (with runtime and driver API
// tracing on, which that needs), and each kernel record carries
// the correlation id of the call that launched it. So a sample is exactly the kernels its own
// launch enqueued (all of them: a cuBLAS call's several kernels are summed), and the L2 flush,
// the poisoning, the verification run and a memset that zeroes an output are not (the flush is
// launched outside push/pop; memsets are not kernel records at all). Chosen over a callback
// subscription (CUPTI allows one subscriber per process, which the counters' profiler may
// want) and over stream or time windows (the flush runs on the same stream, right before).
//
// Tracing is on only while a session lives (time_device's samples) and until stop(): the
// counters' replays, which run after the timing, are never traced.
//
// Only hardware timestamps by default. Before Blackwell, CUPTI takes a kernel's timestamps by
// instrumenting its code (cuptiActivityEnableHWTrace is refused), and on the H100 that made some
// kernels slower: adjacent difference global/shared at 256-1024 threads +6-8% at 16 M and 256 M
// floats, the event pair around the same samples slower alike, while the 128-thread and float4
// kernels did not move; the instrumented durations also came out 1-2 us under ncu's
// gpu__time_duration. So there, and wherever CUPTI cannot be used (no permission, a sandbox,
// another tool such as ncu owning CUPTI), available() is false with the reason and the caller
// times with the event pair. OCCBENCH_TIMING_SOURCE=cupti takes the instrumented timestamps
// anyway; =event never tries CUPTI.
#include <cstdint>
#include <map>
#include <string>

namespace occbench {

// The record's timing.source values.
inline constexpr const char* kSourceCuptiKernelActivity = "cupti_kernel_activity";
inline constexpr const char* kSourceCuptiRangeProfiler = "cupti_range_profiler";
inline constexpr const char* kSourceEventPair = "cuda_event_pair";
inline constexpr const char* kSourceHostClock = "host_clock";

// OCCBENCH_TIMING_SOURCE: auto (or unset: CUPTI's activity where its timestamps come from the
// hardware, else the event pair; the range profiler's gpu__time_duration where the config asks
// for measurement.profiled_samples), cupti (CUPTI's activity timestamps even where they
// instrument the kernel), profiler (the range profiler, 10 samples unless the config says how
// many), event. Throws std::invalid_argument on another value.
enum class TimingSourceChoice { automatic, cupti, profiler, event };
TimingSourceChoice timing_source_choice_from_env();

// Enables tracing for the session's lifetime (one at a time per process); available() says
// whether it worked.
class KernelActivitySession {
 public:
  KernelActivitySession();
  ~KernelActivitySession();
  KernelActivitySession(const KernelActivitySession&) = delete;
  KernelActivitySession& operator=(const KernelActivitySession&) = delete;
  bool available() const { return reason_.empty(); }
  const std::string& unavailable_reason() const { return reason_; }
  // A sample's launch runs between push(tag) and pop(); tags are unique in the process.
  std::uint64_t push();
  void pop();
  // Once the samples' work has finished on the GPU: flushes CUPTI's buffers and hands over the
  // summed kernel duration (ms) of every tag recorded since the last call. A tag whose launch
  // ran no kernel is absent.
  std::map<std::uint64_t, double> take_durations_ms();
  // "N kernel and M external-correlation records this session": for a fallback's reason.
  std::string records_seen() const;
  // Ends the tracing now (the rest of the point is timed with the event pair, untraced);
  // available() is false from here on, with `reason`.
  void stop(const std::string& reason);

 private:
  std::string reason_;
};

}  // namespace occbench
