#pragma once
// Inside the counters (not for other layers' use): CUPTI's entry points, loaded from libcupti at
// run time, and the state of one CounterSession, shared by its parts: the session and its passes
// (counters_session.cpp), the flush ranges (counters_ranges.cpp) and the instrumented shared-memory
// counts (counters_sass.cpp).
#include "harness/measure/counters/counters.hpp"

#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace occbench {

// The CUPTI entry points used, resolved from libcupti at run time.
#define OCCBENCH_CUPTI_FUNCTIONS(X)                                                                       \
  X(cuptiGetResultString) X(cuptiProfilerInitialize) X(cuptiDeviceGetChipName)                            \
  X(cuptiProfilerGetCounterAvailability) X(cuptiProfilerHostInitialize) X(cuptiProfilerHostDeinitialize) \
  X(cuptiProfilerHostConfigAddMetrics) X(cuptiProfilerHostGetConfigImageSize)                             \
  X(cuptiProfilerHostGetConfigImage) X(cuptiProfilerHostGetNumOfPasses)                                   \
  X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable) X(cuptiRangeProfilerDisable)       \
  X(cuptiRangeProfilerGetCounterDataSize) X(cuptiRangeProfilerCounterDataImageInitialize)                 \
  X(cuptiRangeProfilerSetConfig) X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop)                     \
  X(cuptiRangeProfilerDecodeData) X(cuptiRangeProfilerGetCounterDataInfo)

// The SASS metrics API (instrumented shared-memory counts), resolved apart: a libcupti without it
// still counts everything else.
#define OCCBENCH_CUPTI_SASS_FUNCTIONS(X)                                                       \
  X(cuptiSassMetricsGetProperties) X(cuptiSassMetricsSetConfig) X(cuptiSassMetricsEnable) \
  X(cuptiSassMetricsDisable) X(cuptiSassMetricsGetDataProperties) X(cuptiSassMetricsFlushData)

// The callback API (the L2 flush before each kernel, measurement.counters_l2_flush "per_kernel"), resolved apart too.
#define OCCBENCH_CUPTI_CALLBACK_FUNCTIONS(X) X(cuptiSubscribe_v2) X(cuptiUnsubscribe) X(cuptiEnableCallback)

struct Cupti {
#define OCCBENCH_CUPTI_POINTER(name) decltype(&::name) name = nullptr;
  OCCBENCH_CUPTI_FUNCTIONS(OCCBENCH_CUPTI_POINTER)
  OCCBENCH_CUPTI_SASS_FUNCTIONS(OCCBENCH_CUPTI_POINTER)
  OCCBENCH_CUPTI_CALLBACK_FUNCTIONS(OCCBENCH_CUPTI_POINTER)
#undef OCCBENCH_CUPTI_POINTER
  void* library = nullptr;
  std::string sass_missing;      // the SASS metrics entry points libcupti lacks
  std::string callback_missing;  // the callback API's
};

// libcupti from the loader's path (LD_LIBRARY_PATH), else from the CUDA toolkit, with every entry
// point resolved; "" or why it cannot be used.
std::string load_cupti(Cupti& api);

struct CuptiFailure : std::runtime_error {
  CuptiFailure(int code, std::string reason) : std::runtime_error(std::move(reason)), code(code) {}
  int code;
};

// Errors after which no later point can count either.
bool is_permanent(int code);

// A CUPTI parameter block: zeroed, with its size set (CUPTI checks the size for its version).
template <typename Params>
Params cupti_params(std::size_t struct_size) {
  Params params{};
  params.structSize = struct_size;
  return params;
}

// The most kernels one launch may make (cuBLAS makes a few); more are reported, not dropped silently.
constexpr std::size_t kMaxKernelsPerLaunch = 64;
// A batch of points in one collection: their flushes and kernels, each one range.
constexpr std::size_t kMaxBatchRanges = 512;
// A launch that still is not fully collected after this many passes is an error, not a hang.
constexpr int kMaxPasses = 500;

// The range profiler's metric names: counter_metrics()', and those that time cold samples.
std::vector<const char*> counter_metric_names();
// A cold sample's duration is Nsight Compute's gpu__time_duration of its kernels; the L1 global
// load and store bytes tell the flush's range from the sample's own (is_flush_range).
constexpr std::size_t kDuration = 0, kLoadBytes = 1, kStoreBytes = 2;  // in duration_metric_names()
std::vector<const char*> duration_metric_names();

struct CounterSession::State {
  Cupti api;
  CUcontext context = nullptr;
  CUpti_RangeProfiler_Object* profiler = nullptr;  // enabled for the whole run, or nullptr: per point
  // The metrics a collection evaluates, with the host object that knows them and their config image.
  struct MetricSet {
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<const char*> names;
    std::vector<uint8_t> config_image;
  };
  MetricSet counters;   // counter_metrics(): a point's counters section
  MetricSet durations;  // duration_metrics(): cold samples timed by gpu__time_duration
  std::vector<uint8_t> counter_data;  // the counter data image of the point being measured
  // The SASS metrics (instrumented shared-memory counts): configured once for the device, or the reason they cannot be.
  struct Sass {
    bool configured = false;
    std::string unavailable_reason;
    uint64_t load_instructions = 0, store_instructions = 0, wavefronts = 0, ideal_wavefronts = 0;  // metric ids
  } sass;
  // The L2 flush before each kernel of a counted launch (measurement.counters_l2_flush
  // "per_kernel"): a CUPTI callback on every kernel launch, armed only during a counters pass.
  struct KernelFlush {
    CUpti_SubscriberHandle subscriber = nullptr;  // null: the L2 is flushed per launch only
    std::function<void()> flush;                  // the read sweep, waited for
    double read_bytes = 0;                        // its L1 global loads, which tell its ranges apart
    bool armed = false;
    bool needed = true;         // no flush since the last kernel launch (or the pass's start)
    int flushes = 0;            // in the pass being made
    double flush_s = 0;         // their wall time
    std::exception_ptr error;   // thrown by a flush, rethrown after the launch
  } kernel_flush;
  static void CUPTIAPI on_kernel_launch(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  // Subscribes on_kernel_launch to every kernel launch entry point; "" or why it cannot.
  std::string subscribe_kernel_flush();

  int device_index = 0;
  bool configure_once = false;        // OCCBENCH_COUNTERS_CONFIG=run
  bool configured = false;            // the range profiler holds the counters' config and image (configure once)
  std::size_t configured_ranges = 0;  // the ranges that image was sized for

  void check(CUptiResult result, const char* call) const {
    if (result == CUPTI_SUCCESS) return;
    const char* text = nullptr;
    if (api.cuptiGetResultString) api.cuptiGetResultString(result, &text);
    throw CuptiFailure(int(result), cupti_failure_reason(int(result), call, text ? text : ""));
  }

  // `set`'s host object for `chip` with `metrics` added, and their config image; the
  // availability image (of a live context) may be null where no GPU is.
  void configure_host(MetricSet& set, const std::vector<const char*>& metrics, const std::string& chip,
                      const uint8_t* availability_image);
  // Replays of a launch the config image needs (the host API's estimate; the passes actually made are counted).
  int config_passes(const MetricSet& set) const;

  void release_host() {
    for (MetricSet* set : {&counters, &durations}) {
      if (!set->host || !api.cuptiProfilerHostDeinitialize) continue;
      auto params = cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
      params.pHostObject = set->host;
      api.cuptiProfilerHostDeinitialize(&params);
      set->host = nullptr;
    }
  }

  // Sets the SASS metrics' config for the device; where it cannot, sass.unavailable_reason says why.
  void configure_sass(const std::string& chip);
  // Runs each launch once more, instrumented, while the range profiler is enabled (measured on the
  // H100: with it disabled, CUPTI patched the kernels of the first enable only, and later ones ran
  // unpatched and reported nothing). Each reading gets its launch's counts or the reason.
  void count_shared_accesses(const std::vector<std::function<void()>>& launches, std::vector<CounterReading>& readings,
                             const std::vector<std::string>& skip_instrumentation);

  void disable(CUpti_RangeProfiler_Object* object) const {
    auto params = cupti_params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    params.pRangeProfilerObject = object;
    api.cuptiRangeProfilerDisable(&params);
  }
  void stop(CUpti_RangeProfiler_Object* object) const {
    auto params = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    params.pRangeProfilerObject = object;
    api.cuptiRangeProfilerStop(&params);
  }
};

#define OCCBENCH_CUPTI(state, name, params) (state).check((state).api.name(&(params)), #name)

// Which of a collection's ranges are the L2 flushes' and which kernels are whose. CUPTI names
// auto ranges by number only, so a flush is told by what it did: it read exactly the flush buffer
// and stored nothing (is_flush_range).
struct FlushRanges {
  std::size_t load_column = 0, store_column = 0;  // the L1 global load and store bytes in a range's values
  double read_bytes = 0;                          // the flush's reads
  bool batched = false;     // a flush before each launch: split at them (split_ranges_at_flushes)
  bool per_kernel = false;  // a flush before each kernel of the one launch
  int flushes_per_pass = 0; // per_kernel: the flushes made in each pass
};
// Each launch's kernel ranges, in launch order; std::runtime_error where they do not add up.
std::vector<std::vector<std::size_t>> ranges_of_launches(const std::vector<std::vector<double>>& per_range,
                                                         const FlushRanges& flushes, std::size_t launches);

}  // namespace occbench
