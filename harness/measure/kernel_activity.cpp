#include "harness/measure/kernel_activity.hpp"

#include <cupti.h>
#include <fmt/format.h>

#include <cstdlib>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace occbench {

namespace {

constexpr std::size_t kBufferBytes = std::size_t(8) << 20;
constexpr CUpti_ExternalCorrelationKind kTagKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
// Kernel records not (yet) tied to a tag: the flush kernels of the session, mostly. Forgotten
// past this many, so a long session cannot grow without bound.
constexpr std::size_t kMaxUntagged = 1 << 16;

struct KernelSpan {
  std::uint32_t correlation_id;
  std::uint64_t start_ns, end_ns;
};

// What CUPTI's buffer callbacks (on CUPTI's thread, or the flushing one) hand over.
struct Store {
  std::mutex mutex;
  std::unordered_map<std::uint32_t, std::uint64_t> tag_of_correlation;
  std::vector<KernelSpan> kernels;
  std::once_flag registered;
  std::string register_error;
  std::string hardware_trace_error;  // "" where kernel timestamps come from the hardware (Blackwell on)
  bool session_open = false;
  std::uint64_t kernel_records = 0, correlation_records = 0;  // this session's, for a fallback's reason
  std::uint64_t last_tag = 0;
};

Store& store() {
  static Store s;
  return s;
}

std::string cupti_error(const char* call, CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return fmt::format("{} failed: {} ({})", call, text ? text : "unknown CUPTI error", int(result));
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid_bytes) {
  Store& s = store();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
        // The leading fields (start, end, correlationId) sit where they always have in every
        // version of the kernel record.
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        ++s.kernel_records;
        if (k->end > k->start) s.kernels.push_back({k->correlationId, k->start, k->end});
      } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
        const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
        if (e->externalKind == kTagKind) s.tag_of_correlation[e->correlationId] = e->externalId;
        ++s.correlation_records;
      }
    }
  }
  std::free(buffer);
}

// CUPTI writes an external correlation record only before an API activity record, so the
// runtime and driver API kinds must be on too (a library may launch through either); their own
// records are skipped. Host-side cost only, and only during a session.
constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_RUNTIME,
                                         CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};

void disable_kinds() {
  for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
}

}  // namespace

TimingSourceChoice timing_source_choice_from_env() {
  const char* value = std::getenv("OCCBENCH_TIMING_SOURCE");
  std::string name = value ? value : "";
  if (name.empty() || name == "auto") return TimingSourceChoice::automatic;
  if (name == "cupti") return TimingSourceChoice::cupti;
  if (name == "profiler") return TimingSourceChoice::profiler;
  if (name == "event") return TimingSourceChoice::event;
  throw std::invalid_argument("OCCBENCH_TIMING_SOURCE: expected auto, cupti, profiler or event, got '" + name + "'");
}

KernelActivitySession::KernelActivitySession() {
  TimingSourceChoice choice = timing_source_choice_from_env();
  if (choice == TimingSourceChoice::event || choice == TimingSourceChoice::profiler) {
    reason_ = choice == TimingSourceChoice::event ? "OCCBENCH_TIMING_SOURCE=event asks for the event pair"
                                                  : "OCCBENCH_TIMING_SOURCE=profiler asks for the range profiler";
    return;
  }
  Store& s = store();
  if (s.session_open) {
    reason_ = "another kernel-activity session is open in this process";
    return;
  }
  std::call_once(s.registered, [&] {
    CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) s.register_error = cupti_error("cuptiActivityRegisterCallbacks", r);
    r = cuptiActivityEnableHWTrace(1);
    if (r != CUPTI_SUCCESS) s.hardware_trace_error = cupti_error("cuptiActivityEnableHWTrace", r);
  });
  if (!s.register_error.empty()) {
    reason_ = s.register_error;
    return;
  }
  if (choice == TimingSourceChoice::automatic && !s.hardware_trace_error.empty()) {
    reason_ = fmt::format("CUPTI gives kernel timestamps on this GPU only by instrumenting the kernel ({}), which slowed "
                          "kernels by up to 8% on an H100; OCCBENCH_TIMING_SOURCE=cupti uses them anyway",
                          s.hardware_trace_error);
    return;
  }
  for (CUpti_ActivityKind kind : kKinds) {
    CUptiResult r = cuptiActivityEnable(kind);
    if (r != CUPTI_SUCCESS) {
      reason_ = cupti_error(fmt::format("cuptiActivityEnable(kind {})", int(kind)).c_str(), r);
      disable_kinds();
      return;
    }
  }
  s.session_open = true;
}

KernelActivitySession::~KernelActivitySession() { stop("the session ended"); }

void KernelActivitySession::stop(const std::string& reason) {
  if (!available()) return;
  // Forced: the buffers still held (even with an incomplete record) are handed back before the
  // kinds go off, so nothing of this session reaches a later one.
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  disable_kinds();
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.kernels.clear();
  s.tag_of_correlation.clear();
  s.kernel_records = s.correlation_records = 0;
  s.session_open = false;
  reason_ = reason;
}

std::uint64_t KernelActivitySession::push() {
  std::uint64_t tag = ++store().last_tag;
  CUptiResult r = cuptiActivityPushExternalCorrelationId(kTagKind, tag);
  if (r != CUPTI_SUCCESS) throw std::runtime_error(cupti_error("cuptiActivityPushExternalCorrelationId", r));
  return tag;
}

void KernelActivitySession::pop() {
  std::uint64_t last = 0;
  cuptiActivityPopExternalCorrelationId(kTagKind, &last);
}

std::string KernelActivitySession::records_seen() const {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  return fmt::format("{} kernel and {} external-correlation records this session", s.kernel_records, s.correlation_records);
}

std::map<std::uint64_t, double> KernelActivitySession::take_durations_ms() {
  std::map<std::uint64_t, double> durations;
  if (!available()) return durations;
  // Not forced: a forced flush hands over a buffer with an incomplete record too, and the record
  // would be lost; a default flush keeps such a buffer for the next call (the caller retries once).
  CUptiResult r = cuptiActivityFlushAll(0);
  if (r != CUPTI_SUCCESS) {
    stop(cupti_error("cuptiActivityFlushAll", r));  // the caller falls back to the event pair
    return durations;
  }
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::vector<KernelSpan> untagged;
  for (const KernelSpan& k : s.kernels) {
    auto it = s.tag_of_correlation.find(k.correlation_id);
    if (it == s.tag_of_correlation.end()) {
      untagged.push_back(k);
      continue;
    }
    durations[it->second] += double(k.end_ns - k.start_ns) * 1e-6;
  }
  if (untagged.size() > kMaxUntagged) untagged.clear();
  s.kernels = std::move(untagged);
  // A tag's kernels have all finished (the caller waited for the samples), so its ids can go.
  for (auto it = s.tag_of_correlation.begin(); it != s.tag_of_correlation.end();)
    it = durations.count(it->second) ? s.tag_of_correlation.erase(it) : std::next(it);
  return durations;
}

}  // namespace occbench
