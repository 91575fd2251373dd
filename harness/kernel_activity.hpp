#pragma once
// Kernel durations from CUPTI's activity API: the GPU's own start and end timestamps of each
// kernel (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), which is what Nsight Compute's
// gpu__time_duration measures, without the ~2 us a cudaEvent pair adds around a launch.
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
// Tracing is on only while a Session lives (time_device's samples): the counters' range
// profiler, which runs after timing, never sees activity tracing. Where CUPTI cannot be used
// (no GPU, no permission, a sandbox, another tool such as ncu owning CUPTI, or
// OCCBENCH_TIMING_SOURCE=event), available() is false with the reason, and the caller times with
// the event pair instead.
#include <cstdint>
#include <map>
#include <string>

namespace occbench {

// The record's timing.source values.
inline constexpr const char* kSourceCuptiKernelActivity = "cupti_kernel_activity";
inline constexpr const char* kSourceEventPair = "cuda_event_pair";
inline constexpr const char* kSourceHostClock = "host_clock";

// Why the event pair must be used although CUPTI could be: OCCBENCH_TIMING_SOURCE=event, or ""
// (cupti or unset: CUPTI where it works). Throws std::invalid_argument on another value.
std::string timing_source_override_from_env();

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

 private:
  std::string reason_;
};

}  // namespace occbench
