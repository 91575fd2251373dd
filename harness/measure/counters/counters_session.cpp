#include "harness/measure/counters/counters_cupti.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/driver_api.hpp"
#include "harness/measure/timer_kernels.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>

namespace occbench {

std::unique_ptr<CounterSession> CounterSession::open(int device_ordinal) {
  std::unique_ptr<CounterSession> session(new CounterSession());
  session->state_ = std::make_unique<State>();
  State& s = *session->state_;
  s.configure_once = counters_configure_once_from_env();  // a bad value stops the run before any point
  std::string load_error = load_cupti(s.api);
  if (!load_error.empty()) {
    session->unavailable_reason_ = load_error;
    return session;
  }
  try {
    if (cudaSetDevice(device_ordinal) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
      session->unavailable_reason_ = fmt::format("no GPU: device {} cannot be opened", device_ordinal);
      return session;
    }
    // The runtime's primary context, through the driver entry point (the binary links no libcuda).
    auto get_current = driver_function<decltype(cuCtxGetCurrent)>("cuCtxGetCurrent");
    if (!get_current || get_current(&s.context) != CUDA_SUCCESS || !s.context) {
      session->unavailable_reason_ = "no GPU: no current CUDA context for CUPTI";
      return session;
    }
    auto initialize = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    OCCBENCH_CUPTI(s, cuptiProfilerInitialize, initialize);
    auto chip = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = std::size_t(device_ordinal);
    OCCBENCH_CUPTI(s, cuptiDeviceGetChipName, chip);
    session->chip_ = chip.pChipName ? chip.pChipName : "";

    auto availability = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    availability.ctx = s.context;
    OCCBENCH_CUPTI(s, cuptiProfilerGetCounterAvailability, availability);
    std::vector<uint8_t> availability_image(availability.counterAvailabilityImageSize);
    availability.pCounterAvailabilityImage = availability_image.data();
    OCCBENCH_CUPTI(s, cuptiProfilerGetCounterAvailability, availability);

    s.device_index = device_ordinal;
    s.configure_sass(session->chip_);
    s.configure_host(s.counters, counter_metric_names(), session->chip_, availability_image.data());
    session->passes_ = s.config_passes(s.counters);
    // The durations' set must fit one pass: a cold sample is launched once, never replayed.
    s.configure_host(s.durations, duration_metric_names(), session->chip_, availability_image.data());
    if (int passes = s.config_passes(s.durations); passes != 1)
      session->durations_unavailable_reason_ = fmt::format("gpu__time_duration and the flush's marks need {} passes on {}, not 1",
                                                           passes, session->chip_);
    // The profiler stays enabled from here to the end of the run, started only around a point's
    // replays, never while one is timed: on the H100 this halved the counters' cost per point
    // (the first start after an enable is slow) and left the timed medians unchanged (median ratio
    // 0.999 over 228 points). OCCBENCH_COUNTERS_ENABLE=point enables and disables it per point;
    // then each range also counts the write-back of up to ~21 MB of the launch's own dirty L2
    // lines, which ncu does not (results/reference/h100/counters/ncu_counters_agreement.md).
    if (!counters_enable_per_point_from_env()) {
      auto enable = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
      enable.ctx = s.context;
      OCCBENCH_CUPTI(s, cuptiRangeProfilerEnable, enable);
      s.profiler = enable.pRangeProfilerObject;
      // One whole collection around an empty kernel before any point: CUPTI's first collection
      // of a run leaves ~21 MB of dirty L2 lines of its own that the L2 flush before a pass does
      // not reach, and the first point's DRAM writes counted them (measured on the H100: every
      // config's first point +21 MB against ncu, no later point).
      session->prime();
    }
  } catch (const CuptiFailure& e) {
    session->unavailable_reason_ = e.what();
  } catch (const std::exception& e) {
    session->unavailable_reason_ = fmt::format("CUPTI's first collection (an empty kernel) failed: {}", e.what());
  }
  return session;
}

CounterSession::~CounterSession() {
  if (state_ && state_->profiler) state_->disable(state_->profiler);
  if (state_ && state_->kernel_flush.subscriber) state_->api.cuptiUnsubscribe(state_->kernel_flush.subscriber);
  if (state_) state_->release_host();
  // libcupti stays loaded: unloading a profiler library under a live context is not safe.
}

CounterReading CounterSession::measure(const std::function<void()>& launch_once,
                                       const std::function<void()>& between_passes, const std::string& skip_instrumentation) {
  return collect({launch_once}, between_passes, 0, false, {skip_instrumentation}).front();
}

std::vector<CounterReading> CounterSession::measure_batch(const std::vector<std::function<void()>>& launches,
                                                          const std::function<void()>& flush, double flush_read_bytes,
                                                          const std::vector<std::string>& skip_instrumentation) {
  if (launches.empty()) return {};
  return collect(launches, flush, flush_read_bytes, false, skip_instrumentation);
}

std::vector<double> CounterSession::measure_durations_ms(int count, const std::function<void()>& flush,
                                                        const std::function<void()>& timed, double flush_read_bytes) {
  std::string reason = durations_unavailable_reason();
  if (!reason.empty()) throw std::runtime_error(reason);
  if (count < 1) return {};
  if (flush_read_bytes <= 0 || !flush) throw std::logic_error("timed samples need the read-sweep flush that delimits them");
  std::vector<double> ms;
  for (const CounterReading& r : collect(std::vector<std::function<void()>>(std::size_t(count), timed), flush, flush_read_bytes, true))
    ms.push_back(r.values.at(0) * 1e-6);
  return ms;
}

namespace {

using State = CounterSession::State;

}  // namespace

// One collection: what it replays and what it gathered.
struct CounterSession::Collection {
  Collection(const std::vector<std::function<void()>>& l, const std::function<void()>& f)
      : launches(l), flush(f), readings(l.size()) {}
  const std::vector<std::function<void()>>& launches;
  const std::function<void()>& flush;
  bool batched = false;     // a flush before each launch, inside the passes (measure_batch)
  bool per_kernel = false;  // the L2 flushed before each kernel by the callback
  std::size_t max_ranges = 0;
  CounterReading total;     // the collection's times, shared out among its launches at the end
  std::vector<CounterReading> readings;
  int flushes_per_pass = -1;  // per_kernel: the flushes of the first pass, the same in every pass
};

namespace {

using Collection = CounterSession::Collection;

// The counter data image sized for `max_ranges` and the profiler set to `set`'s config, or, where
// configured once for the run (OCCBENCH_COUNTERS_CONFIG=run), only the image reset.
// OCCBENCH_COUNTERS_CONFIG=run saves the ~45 ms per point that cuptiRangeProfilerSetConfig and the
// image take on the H100. CUPTI does not document reusing a configuration after DecodeData, so it
// is opt-in until measured, and a point whose replays differ from the host API's pass count fails
// its counters rather than giving partial ones.
void configure_collection(State& s, CUpti_RangeProfiler_Object* profiler, const State::MetricSet& set,
                          std::size_t max_ranges, bool configure_once) {
  std::vector<uint8_t>& counter_data = s.counter_data;
  auto init = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = profiler;
  if (configure_once && s.configured && s.configured_ranges == max_ranges) {
    init.counterDataSize = counter_data.size();
    init.pCounterData = counter_data.data();
    OCCBENCH_CUPTI(s, cuptiRangeProfilerCounterDataImageInitialize, init);
    return;
  }
  s.configured = false;
  auto size = cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = profiler;
  size.pMetricNames = const_cast<const char**>(set.names.data());
  size.numMetrics = set.names.size();
  size.maxNumOfRanges = max_ranges;
  size.maxNumRangeTreeNodes = max_ranges;
  OCCBENCH_CUPTI(s, cuptiRangeProfilerGetCounterDataSize, size);
  counter_data.assign(size.counterDataSize, 0);
  init.counterDataSize = counter_data.size();
  init.pCounterData = counter_data.data();
  OCCBENCH_CUPTI(s, cuptiRangeProfilerCounterDataImageInitialize, init);

  auto config = cupti_params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  config.pRangeProfilerObject = profiler;
  config.configSize = set.config_image.size();
  config.pConfig = set.config_image.data();
  config.counterDataImageSize = counter_data.size();
  config.pCounterDataImage = counter_data.data();
  config.range = CUPTI_AutoRange;  // one range per kernel: a library call's kernels are counted apart
  // User replay, not CUPTI's kernel replay: measured on the H100 it cost the same per point
  // and its save and restore of the launch's memory added ~20 MB to every point's DRAM writes.
  config.replayMode = CUPTI_UserReplay;
  config.maxRangesPerPass = max_ranges;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  OCCBENCH_CUPTI(s, cuptiRangeProfilerSetConfig, config);
  s.configured = configure_once;
  s.configured_ranges = max_ranges;
}

// The launches of one pass, between its start and its stop; true when CUPTI has every pass.
bool run_pass(State& s, CUpti_RangeProfiler_Object* profiler, Collection& c) {
  State::KernelFlush& kernel_flush = s.kernel_flush;
  // One launch: the flush before the pass, outside it (per_kernel: the callback flushes inside
  // the pass, before each kernel, the first one too). A batch: a flush before each launch,
  // inside the pass, where its kernel is a range of its own that marks where a launch begins.
  auto t_flush = std::chrono::steady_clock::now();
  if (!c.batched && !c.per_kernel && c.flush) c.flush();
  c.total.flush_s += seconds_since(t_flush);
  auto start = cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = profiler;
  auto t_start = std::chrono::steady_clock::now();
  OCCBENCH_CUPTI(s, cuptiRangeProfilerStart, start);
  c.total.start_s += seconds_since(t_start);
  // A pass left started (the launch threw) would profile every later kernel, the next points'
  // timed samples too: stopped on every path.
  struct StopIfStarted {
    const State& s;
    CUpti_RangeProfiler_Object* profiler;
    bool started = true;
    ~StopIfStarted() {
      if (started) s.stop(profiler);
    }
  } stop_at_exit{s, profiler};
  // Armed for this pass's launches only (not the instrumented launch, not another point's timing).
  struct Disarm {
    State::KernelFlush& k;
    ~Disarm() { k.armed = false; }
  } disarm_at_exit{kernel_flush};
  if (c.per_kernel) {
    kernel_flush.needed = true;
    kernel_flush.flushes = 0;
    kernel_flush.flush_s = 0;
    kernel_flush.error = nullptr;
    kernel_flush.armed = true;
  }
  for (std::size_t l = 0; l < c.launches.size(); ++l) {
    if (c.batched) {
      auto t_batch_flush = std::chrono::steady_clock::now();
      c.flush();
      c.total.flush_s += seconds_since(t_batch_flush);
    }
    auto t_launch = std::chrono::steady_clock::now();
    c.launches[l]();
    c.readings[l].launch_s += seconds_since(t_launch);
  }
  if (c.per_kernel) {
    if (kernel_flush.error) std::rethrow_exception(kernel_flush.error);
    c.total.flush_s += kernel_flush.flush_s;  // made inside the launch: the flushes', not the launch's
    c.readings.front().launch_s -= kernel_flush.flush_s;
    if (c.flushes_per_pass >= 0 && kernel_flush.flushes != c.flushes_per_pass)
      throw std::runtime_error(fmt::format("the launch made {} kernels in one pass and {} in another",
                                           c.flushes_per_pass, kernel_flush.flushes));
    c.flushes_per_pass = kernel_flush.flushes;
  }
  auto stop = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = profiler;
  stop_at_exit.started = false;
  auto t_stop = std::chrono::steady_clock::now();
  OCCBENCH_CUPTI(s, cuptiRangeProfilerStop, stop);
  c.total.stop_s += seconds_since(t_stop);
  return stop.isAllPassSubmitted != 0;
}

// Each range's (kernel's, or flush's) metric values, in launch order.
std::vector<std::vector<double>> decode_ranges(State& s, CUpti_RangeProfiler_Object* profiler, const State::MetricSet& set,
                                               std::size_t max_ranges) {
  auto decode = cupti_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = profiler;
  OCCBENCH_CUPTI(s, cuptiRangeProfilerDecodeData, decode);
  if (decode.numOfRangeDropped > 0)
    throw std::runtime_error(fmt::format("the launch made more than {} kernels; {} were not counted",
                                         max_ranges, decode.numOfRangeDropped));
  std::vector<uint8_t>& counter_data = s.counter_data;
  auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = counter_data.data();
  info.counterDataImageSize = counter_data.size();
  OCCBENCH_CUPTI(s, cuptiRangeProfilerGetCounterDataInfo, info);
  if (info.numTotalRanges == 0) throw std::runtime_error("the launch made no kernel that CUPTI could count");
  std::vector<std::vector<double>> per_range;
  for (std::size_t range = 0; range < info.numTotalRanges; ++range) {
    std::vector<double> values(set.names.size());
    auto evaluate = cupti_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    evaluate.pHostObject = set.host;
    evaluate.pCounterDataImage = counter_data.data();
    evaluate.counterDataImageSize = counter_data.size();
    evaluate.rangeIndex = range;
    evaluate.ppMetricNames = const_cast<const char**>(set.names.data());
    evaluate.numMetrics = set.names.size();
    evaluate.pMetricValues = values.data();
    OCCBENCH_CUPTI(s, cuptiProfilerHostEvaluateToGpuValues, evaluate);
    per_range.push_back(std::move(values));
  }
  return per_range;
}

// Each launch's values: the durations' summed duration, or counter_metrics() combined over its kernels.
void assign_values(std::vector<CounterReading>& readings, const std::vector<std::vector<double>>& per_range,
                   const std::vector<std::vector<std::size_t>>& owned, bool durations) {
  for (std::size_t l = 0; l < readings.size(); ++l) {
    std::vector<std::vector<double>> per_kernel;
    for (std::size_t range : owned[l]) per_kernel.push_back(per_range[range]);
    readings[l].kernels = int(per_kernel.size());
    if (durations) {
      double ns = 0;
      for (const auto& values : per_kernel) ns += values[kDuration];
      readings[l].values = {ns};
    } else {
      readings[l].values = combine_kernels(per_kernel);
    }
  }
}

// The instrumented counts dropped where they cannot stand beside the range profiler's (shared_access_mismatch).
void check_shared_accesses(std::vector<CounterReading>& readings) {
  for (auto& r : readings) {
    if (!r.shared_access) continue;
    std::string mismatch = shared_access_mismatch(*r.shared_access, r.values[counter_index("shared_load_instructions")],
                                                  r.values[counter_index("shared_store_instructions")]);
    if (!mismatch.empty()) {
      r.shared_access.reset();
      r.shared_access_reason = mismatch;
    }
  }
}

// Each launch's share of the collection: its own launch time, an equal part of the rest.
void share_collection_time(Collection& c) {
  double launches_s = 0;  // the launches' own times, the instrumented ones too
  for (const auto& r : c.readings) launches_s += r.launch_s + r.instrumented_s;
  double share = 1.0 / double(c.readings.size());
  for (auto& r : c.readings) {
    r.l2_flush_per_kernel = c.per_kernel;
    r.passes = c.total.passes;
    r.batch_launches = int(c.readings.size());
    r.setup_s = c.total.setup_s * share;
    r.flush_s = c.total.flush_s * share;
    r.start_s = c.total.start_s * share;
    r.stop_s = c.total.stop_s * share;
    r.decode_s = c.total.decode_s * share;
    r.replay_s = r.flush_s + r.start_s + r.stop_s + r.launch_s;
    r.added_s = r.launch_s + r.instrumented_s + (c.total.added_s - launches_s) * share;
  }
}

}  // namespace

CUpti_RangeProfiler_Object* CounterSession::enable_for_collection(bool& enabled_here) {
  State& s = *state_;
  // Enabled once for the run (see open()), or here for this point (OCCBENCH_COUNTERS_ENABLE=point).
  enabled_here = s.profiler == nullptr;
  if (!enabled_here) return s.profiler;
  auto enable = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = s.context;
  try {
    OCCBENCH_CUPTI(s, cuptiRangeProfilerEnable, enable);
  } catch (const CuptiFailure& e) {
    if (is_permanent(e.code)) unavailable_reason_ = e.what();
    throw;
  }
  if (!counters_enable_per_point_from_env()) {  // run-wide again after a point that failed
    s.profiler = enable.pRangeProfilerObject;
    enabled_here = false;
    prime();  // a fresh enable's first collection leaves dirty lines of CUPTI's (see open())
  }
  return enable.pRangeProfilerObject;
}

std::vector<std::vector<double>> CounterSession::replay(CUpti_RangeProfiler_Object* profiler, Collection& c, bool durations,
                                                        bool enabled_here) {
  State& s = *state_;
  const State::MetricSet& set = durations ? s.durations : s.counters;
  auto t0 = std::chrono::steady_clock::now();
  try {
    bool configure_once = !durations && s.profiler && s.configure_once;
    if (durations) s.configured = false;  // the profiler gets the durations' config: the counters' must be set again
    configure_collection(s, profiler, set, c.max_ranges, configure_once);
    auto t_setup = std::chrono::steady_clock::now();
    c.total.setup_s = std::chrono::duration<double>(t_setup - t0).count();
    for (bool all_submitted = false; !all_submitted; ++c.total.passes) {
      if (c.total.passes >= kMaxPasses)
        throw std::runtime_error(fmt::format("CUPTI asked for more than {} replays of the launch", kMaxPasses));
      all_submitted = run_pass(s, profiler, c);
    }
    if (configure_once && c.total.passes != passes_) {
      s.configured = false;
      throw std::runtime_error(fmt::format("OCCBENCH_COUNTERS_CONFIG=run: CUPTI replayed the launch {} times where "
                                           "its host API asks for {}; the counts would be partial", c.total.passes, passes_));
    }
    auto t_replay = std::chrono::steady_clock::now();
    c.total.replay_s = std::chrono::duration<double>(t_replay - t_setup).count();
    std::vector<std::vector<double>> per_range = decode_ranges(s, profiler, set, c.max_ranges);
    c.total.decode_s = seconds_since(t_replay);
    return per_range;
  } catch (const CuptiFailure& e) {
    s.configured = false;  // configure afresh for the next point
    if (is_permanent(e.code)) unavailable_reason_ = e.what();
    drop_run_wide_profiler(enabled_here);
    throw;
  } catch (...) {
    s.configured = false;
    drop_run_wide_profiler(enabled_here);
    throw;
  }
}

std::vector<CounterReading> CounterSession::collect(const std::vector<std::function<void()>>& launches,
                                                    const std::function<void()>& flush, double flush_read_bytes,
                                                    bool durations, const std::vector<std::string>& skip_instrumentation) {
  if (!available()) throw std::runtime_error(unavailable_reason_);
  Collection c(launches, flush);
  c.batched = flush_read_bytes > 0;
  if (c.batched && !flush) throw std::logic_error("a batch of launches needs the flush that delimits them");
  State& s = *state_;
  c.per_kernel = !durations && s.kernel_flush.subscriber;  // flushed before each kernel too
  if (c.per_kernel && c.batched) throw std::logic_error("with the L2 flushed before each kernel, points are counted one by one");
  // A batch's flushes run inside the passes, each kernel one range: up to kMaxBatchRanges.
  // Flushed before each kernel: a flush range before each kernel range.
  c.max_ranges = c.batched ? kMaxBatchRanges : c.per_kernel ? 2 * kMaxKernelsPerLaunch : kMaxKernelsPerLaunch;
  auto t0 = std::chrono::steady_clock::now();
  bool enabled_here = false;
  CUpti_RangeProfiler_Object* profiler = enable_for_collection(enabled_here);
  // Disabled on every path: a profiler left enabled would count the next point's timing.
  struct Disable {
    State& s;
    CUpti_RangeProfiler_Object* profiler;
    bool active;
    ~Disable() {
      if (active) s.disable(profiler);
    }
  } disable_at_exit{s, profiler, enabled_here};

  std::vector<std::vector<double>> per_range = replay(profiler, c, durations, enabled_here);
  // A batch that does not split throws here, with the profiler left as it is, and its points are
  // counted one by one.
  FlushRanges flushes{durations ? kLoadBytes : counter_index("l1_global_load_bytes"),
                      durations ? kStoreBytes : counter_index("l1_global_store_bytes"),
                      c.batched ? flush_read_bytes : s.kernel_flush.read_bytes, c.batched, c.per_kernel, c.flushes_per_pass};
  assign_values(c.readings, per_range, ranges_of_launches(per_range, flushes, launches.size()), durations);
  if (!durations) {
    // With the range profiler still enabled (see count_shared_accesses); checked against its counts.
    try {
      s.count_shared_accesses(launches, c.readings, skip_instrumentation);
    } catch (...) {
      drop_run_wide_profiler(enabled_here);  // a launch failed: as after a failed pass
      throw;
    }
    check_shared_accesses(c.readings);
  }
  c.total.added_s = seconds_since(t0);
  share_collection_time(c);
  return c.readings;
}

void CounterSession::prime() {
  // Its counts are thrown away: no instrumented launch.
  collect({[] {
            launch_empty_kernel(nullptr);
            OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(nullptr));
          }},
          {}, 0, false, {"the priming collection is not counted"});
}

void CounterSession::drop_run_wide_profiler(bool enabled_here) {
  State& s = *state_;
  if (enabled_here || !s.profiler) return;  // a per-point profiler is disabled by its own guard
  s.disable(s.profiler);  // whatever the failure left behind goes with it; the next point enables afresh
  s.profiler = nullptr;
}

}  // namespace occbench
