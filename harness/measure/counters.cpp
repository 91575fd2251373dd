#include "harness/measure/counters.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/core/clock.hpp"
#include "harness/measure/timer_kernels.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace occbench {

using ordered_json = nlohmann::ordered_json;

const std::vector<CounterMetric>& counter_metrics() {
  using C = CounterCombine;
  static const std::vector<CounterMetric> metrics = {
      {"dram_read_bytes", "dram__bytes_read.sum", "bytes", C::sum, 1},
      {"dram_write_bytes", "dram__bytes_write.sum", "bytes", C::sum, 1},
      {"l2_bytes", "lts__t_bytes.sum", "bytes of L2 tag traffic (all requests)", C::sum, 1},
      {"l1_global_load_bytes", "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", "bytes", C::sum, 1},
      {"l1_global_store_bytes", "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum", "bytes", C::sum, 1},
      {"shared_load_instructions", "smsp__inst_executed_op_shared_ld.sum", "warp instructions", C::sum, 1},
      {"shared_store_instructions", "smsp__inst_executed_op_shared_st.sum", "warp instructions", C::sum, 1},
      // The L1's count: the addresses' conflicts and arbitration's (a shared access meeting an L1
      // fill in the same bank), so it moves from run to run; shared_*_bank_conflicts are the
      // addresses' alone, instrumented (SharedAccessCounts).
      {"shared_load_bank_conflicts_with_arbitration", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
       "bank conflicts counted by the L1, arbitration included", C::sum, 1},
      {"shared_store_bank_conflicts_with_arbitration", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
       "bank conflicts counted by the L1, arbitration included", C::sum, 1},
      // Not sm__throughput (Nsight Compute's "Compute (SM) Throughput", the max of its ~40-counter
      // breakdown): on GH100 it alone needs 8 passes and took this set from 3 to 9 replays per point
      // (cuptiProfilerHostGetNumOfPasses). The issue-active % comes in the same 3 passes.
      {"sm_issue_active_pct_of_peak", "smsp__issue_active.avg.pct_of_peak_sustained_elapsed",
       "% of cycles the warp schedulers issued an instruction", C::duration_weighted, 1},
      {"dram_throughput_pct_of_peak", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "% of peak",
       C::duration_weighted, 1},
      {"duration_ns", "gpu__time_duration.sum", "ns, summed over the launch's kernels", C::sum, 1},
      {"sm_cycles", "sm__cycles_elapsed.avg", "cycles (per SM, average), summed over kernels", C::sum, 1},
      // Last on purpose: CUPTI schedules the counters into passes in the order given, and with
      // this metric first the same set needs 3 passes on GH100 instead of 2
      // (cuptiProfilerHostGetNumOfPasses; each pass costs ~18 ms of CUPTI start/stop per point).
      {"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active",
       "fraction of max warps per SM, averaged over active cycles (0-1)", C::duration_weighted, 0.01},
  };
  return metrics;
}

namespace {

std::size_t index_of(const char* field) {
  const auto& metrics = counter_metrics();
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (std::string(metrics[i].field) == field) return i;
  throw std::logic_error(fmt::format("no counter field '{}'", field));
}

ordered_json ratio(double numerator, double denominator) {
  return denominator > 0 ? ordered_json(numerator / denominator) : ordered_json(nullptr);
}

}  // namespace

SharedAccessCounts sum_shared_accesses(const std::vector<InstructionSharedCounts>& instructions) {
  SharedAccessCounts total;
  for (const auto& i : instructions) {
    total.load_instructions += i.load_instructions;
    total.store_instructions += i.store_instructions;
    total.wavefronts += i.wavefronts;
    total.ideal_wavefronts += i.ideal_wavefronts;
    if (i.load_instructions > 0) {
      total.load_wavefronts += i.wavefronts;
      total.load_ideal_wavefronts += i.ideal_wavefronts;
    } else if (i.store_instructions > 0) {
      total.store_wavefronts += i.wavefronts;
      total.store_ideal_wavefronts += i.ideal_wavefronts;
    }
  }
  return total;
}

std::string instrumentation_skip_reason(double kernel_ms, double max_kernel_ms) {
  if (max_kernel_ms <= 0) return "shared-memory instrumentation off (measurement.instrumented_max_kernel_ms is 0)";
  if (kernel_ms <= max_kernel_ms) return "";
  return fmt::format("not instrumented: the kernel's median, {:.4g} ms, is over measurement.instrumented_max_kernel_ms ({:g}); "
                     "instrumented it would run ~30-350x longer (H100)", kernel_ms, max_kernel_ms);
}

std::string shared_access_mismatch(const SharedAccessCounts& counts, double hardware_load_instructions,
                                   double hardware_store_instructions) {
  // The instrumented count leaves out warp instructions run with every thread's predicate off
  // (an unrolled loop's spare iteration), which the hardware counts: it may be lower, never higher,
  // and not zero where the hardware saw shared instructions (an unpatched launch reports nothing).
  bool unpatched = counts.load_instructions + counts.store_instructions == 0 &&
                   hardware_load_instructions + hardware_store_instructions > 0;
  bool more = counts.load_instructions > hardware_load_instructions || counts.store_instructions > hardware_store_instructions;
  if (!unpatched && !more) return "";
  return fmt::format("the instrumented launch counted {} shared load and {} shared store warp instructions where the "
                     "hardware counted {} and {}: its wavefronts would not be this launch's",
                     counts.load_instructions, counts.store_instructions, hardware_load_instructions, hardware_store_instructions);
}

std::vector<double> combine_kernels(const std::vector<std::vector<double>>& per_kernel) {
  const auto& metrics = counter_metrics();
  std::size_t duration = index_of("duration_ns");
  std::vector<double> combined(metrics.size(), 0.0);
  double total_duration = 0;
  for (const auto& values : per_kernel) total_duration += values[duration];
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    for (const auto& values : per_kernel) {
      if (metrics[m].combine == CounterCombine::sum) {
        combined[m] += values[m];
      } else if (total_duration > 0) {
        combined[m] += values[m] * values[duration] / total_duration;
      } else {
        combined[m] += values[m] / double(per_kernel.size());
      }
    }
  }
  return combined;
}

ordered_json measured_counters_json(const CounterReading& reading, const WorkModel& work,
                                    std::optional<double> theoretical_occupancy) {
  const auto& metrics = counter_metrics();
  auto value = [&](const char* field) { return reading.values.at(index_of(field)); };
  ordered_json c;
  c["status"] = "measured";
  c["reason"] = "";
  c["kernels"] = reading.kernels;
  c["passes"] = reading.passes;
  c["batch_points"] = reading.batch_launches;
  c["l2_flush"] = reading.l2_flush_per_kernel ? "per_kernel" : "per_launch";
  c["added_s"] = reading.added_s;
  c["added_setup_s"] = reading.setup_s;
  c["added_replay_s"] = reading.replay_s;
  c["added_flush_s"] = reading.flush_s;
  c["added_launch_s"] = reading.launch_s;
  c["added_pass_start_s"] = reading.start_s;
  c["added_pass_stop_s"] = reading.stop_s;
  c["added_decode_s"] = reading.decode_s;
  for (std::size_t m = 0; m < metrics.size(); ++m) c[metrics[m].field] = reading.values.at(m) * metrics[m].scale;
  // Instrumented: exact, or null with the reason.
  const bool instrumented = reading.shared_access.has_value();
  const SharedAccessCounts shared = reading.shared_access.value_or(SharedAccessCounts{});
  auto or_null = [&](double v) { return instrumented ? ordered_json(v) : ordered_json(nullptr); };
  const double load_conflicts = shared.load_wavefronts - shared.load_ideal_wavefronts;
  const double store_conflicts = shared.store_wavefronts - shared.store_ideal_wavefronts;
  c["shared_load_wavefronts"] = or_null(shared.load_wavefronts);
  c["shared_store_wavefronts"] = or_null(shared.store_wavefronts);
  c["shared_load_bank_conflicts"] = or_null(load_conflicts);
  c["shared_store_bank_conflicts"] = or_null(store_conflicts);
  c["shared_bank_conflicts"] = or_null(shared.wavefronts - shared.ideal_wavefronts);
  c["shared_access_reason"] = instrumented ? std::string() : reading.shared_access_reason;
  c["added_instrumented_s"] = reading.instrumented_s;

  double dram = value("dram_read_bytes") + value("dram_write_bytes");
  double l2 = value("l2_bytes");
  double l1 = value("l1_global_load_bytes") + value("l1_global_store_bytes");
  double seconds = value("duration_ns") * 1e-9;
  c["dram_bytes"] = dram;
  c["l1_global_bytes"] = l1;
  c["intensity_dram_flop_per_byte"] = ratio(work.flops, dram);
  c["intensity_l2_flop_per_byte"] = ratio(work.flops, l2);
  c["intensity_l1_flop_per_byte"] = ratio(work.flops, l1);
  c["dram_bytes_over_model"] = ratio(dram, work.dram_bytes);
  double achieved = value("achieved_occupancy") * 0.01;
  c["achieved_over_theoretical_occupancy"] = theoretical_occupancy ? ratio(achieved, *theoretical_occupancy) : ordered_json(nullptr);
  c["shared_load_conflicts_per_instruction"] =
      instrumented ? ratio(load_conflicts, value("shared_load_instructions")) : ordered_json(nullptr);
  c["shared_store_conflicts_per_instruction"] =
      instrumented ? ratio(store_conflicts, value("shared_store_instructions")) : ordered_json(nullptr);
  c["dram_bandwidth_gbps"] = ratio(dram * 1e-9, seconds);
  c["l2_bandwidth_gbps"] = ratio(l2 * 1e-9, seconds);
  c["l1_bandwidth_gbps"] = ratio(l1 * 1e-9, seconds);
  c["gflops"] = ratio(work.flops * 1e-9, seconds);
  return c;
}

ordered_json unavailable_counters_json(const std::string& reason) {
  return {{"status", "unavailable"}, {"reason", reason}};
}

ordered_json counters_units() {
  ordered_json u;
  for (const auto& m : counter_metrics())
    u[std::string("counters.") + m.field] = fmt::format("{} (CUPTI {})", m.unit, m.metric);
  u["counters.kernels"] = "kernels of the launch, each one range; values are summed over them (ratios: weighted by duration)";
  u["counters.passes"] = "replays of the launch CUPTI needed for all metrics";
  u["counters.l2_flush"] =
      "when the L2 was flushed during the replays (measurement.counters_l2_flush): per_launch, before each replay of "
      "the launch; per_kernel, before each of its kernels too, as Nsight Compute";
  u["counters.batch_points"] = "points counted in the same collection (the same passes; the added times are each point's share)";
  u["counters.added_s"] = "s of wall time the counters added to the point (after its timing)";
  u["counters.added_setup_s"] = "s of added_s spent enabling and configuring the profiler";
  u["counters.added_replay_s"] = "s of added_s spent replaying the launch (passes, each after an L2 flush)";
  u["counters.added_flush_s"] = "s of added_replay_s spent flushing the L2 before the passes";
  u["counters.added_launch_s"] = "s of added_replay_s spent in the launches themselves";
  u["counters.added_pass_start_s"] = "s of added_replay_s spent in cuptiRangeProfilerStart (all passes)";
  u["counters.added_pass_stop_s"] = "s of added_replay_s spent in cuptiRangeProfilerStop (all passes)";
  u["counters.added_decode_s"] = "s of added_s spent decoding the counter data and evaluating the metrics";
  u["counters.added_instrumented_s"] = "s of added_s spent on the instrumented launch that counts shared-memory wavefronts";
  // Instrumented (CUPTI SASS metrics, each shared instruction patched to count); the name in
  // parentheses is Nsight Compute's for the same count (scripts/ncu_counters_agreement.py reads it).
  u["counters.shared_load_wavefronts"] =
      "wavefronts of shared loads (LDS, LD), instrumented: CUPTI SASS smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared "
      "of those instructions (ncu smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum)";
  u["counters.shared_store_wavefronts"] =
      "wavefronts of shared stores (STS, ST), instrumented: CUPTI SASS smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared "
      "of those instructions (ncu smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum)";
  u["counters.shared_load_bank_conflicts"] =
      "bank conflicts of shared loads: their wavefronts beyond the ideal (one per 128 bytes a warp asks for), "
      "instrumented: CUPTI SASS smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared - ..._ideal";
  u["counters.shared_store_bank_conflicts"] =
      "bank conflicts of shared stores: their wavefronts beyond the ideal, instrumented as shared_load_bank_conflicts";
  u["counters.shared_bank_conflicts"] =
      "bank conflicts of every shared instruction (loads, stores, LDSM, atomics): wavefronts beyond the ideal, "
      "instrumented (ncu SourceCounters L1 Wavefronts Shared Excessive)";
  u["counters.shared_access_reason"] = "why the instrumented shared-memory counts are null (\"\" where they were counted)";
  u["counters.dram_bytes"] = "bytes, dram_read_bytes + dram_write_bytes";
  u["counters.l1_global_bytes"] = "bytes, L1/TEX global loads + stores";
  u["counters.intensity_dram_flop_per_byte"] = "FLOP per measured DRAM byte (work.flops / dram_bytes)";
  u["counters.intensity_l2_flop_per_byte"] = "FLOP per measured L2 byte (work.flops / l2_bytes)";
  u["counters.intensity_l1_flop_per_byte"] = "FLOP per measured L1/TEX global byte (work.flops / l1_global_bytes)";
  u["counters.dram_bytes_over_model"] = "measured DRAM bytes / work.dram_bytes (1: the model's minimum)";
  u["counters.achieved_over_theoretical_occupancy"] = "achieved_occupancy / occupancy.theoretical";
  u["counters.shared_load_conflicts_per_instruction"] = "shared_load_bank_conflicts per shared load warp instruction (31: every load a 32-way conflict)";
  u["counters.shared_store_conflicts_per_instruction"] = "shared_store_bank_conflicts per shared store warp instruction";
  u["counters.dram_bandwidth_gbps"] = "GB/s, dram_bytes / duration_ns";
  u["counters.l2_bandwidth_gbps"] = "GB/s, l2_bytes / duration_ns";
  u["counters.l1_bandwidth_gbps"] = "GB/s, l1_global_bytes / duration_ns";
  u["counters.gflops"] = "GFLOP/s, work.flops / duration_ns";
  return u;
}

std::string cupti_failure_reason(int code, const std::string& call, const std::string& text) {
  std::string where = fmt::format("{} in {}", text.empty() ? fmt::format("CUPTI error {}", code) : text, call);
  switch (code) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      return fmt::format("no permission to read the GPU's performance counters ({}): run as root, or let users "
                         "profile (driver option NVreg_RestrictProfilingToAdminUsers=0; see "
                         "https://developer.nvidia.com/ERR_NVGPUCTRPERM)", where);
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
      return fmt::format("unsupported GPU or driver: CUPTI's range profiler cannot count on it ({})", where);
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
      return fmt::format("virtualized GPU: CUPTI cannot profile it ({})", where);
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_UNKNOWN:
      return fmt::format("CUPTI could not start its profiler here ({}); Nsight Compute reports the same as "
                         "LibraryNotLoaded on sandboxed machines", where);
    default:
      return fmt::format("CUPTI failed: {}", where);
  }
}

// ------------------------------------------------------------------------------------ the session

namespace {

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

// libcupti from the loader's path (LD_LIBRARY_PATH), else from the CUDA toolkit.
std::string load_cupti(Cupti& api) {
  std::vector<std::string> candidates = {"libcupti.so.13", "libcupti.so"};
  for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* home = std::getenv(variable)) {
      candidates.push_back(std::string(home) + "/lib64/libcupti.so");
      candidates.push_back(std::string(home) + "/extras/CUPTI/lib64/libcupti.so");
    }
  candidates.push_back("/usr/local/cuda/lib64/libcupti.so");
  candidates.push_back("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so");
  std::string first_error;
  for (const auto& path : candidates) {
    api.library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api.library) break;
    if (first_error.empty()) first_error = dlerror();
  }
  if (!api.library) return fmt::format("library not loadable: libcupti ({})", first_error);
  std::string missing;
#define OCCBENCH_CUPTI_RESOLVE(name)                                               \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(api.library, #name));      \
  if (!api.name) missing += (missing.empty() ? "" : ", ") + std::string(#name);
  OCCBENCH_CUPTI_FUNCTIONS(OCCBENCH_CUPTI_RESOLVE)
  if (!missing.empty()) return fmt::format("library not loadable: libcupti lacks {} (CUDA 13's CUPTI is needed)", missing);
  OCCBENCH_CUPTI_SASS_FUNCTIONS(OCCBENCH_CUPTI_RESOLVE)
  api.sass_missing = missing;
  missing.clear();
  OCCBENCH_CUPTI_CALLBACK_FUNCTIONS(OCCBENCH_CUPTI_RESOLVE)
#undef OCCBENCH_CUPTI_RESOLVE
  api.callback_missing = missing;
  return "";
}

struct CuptiFailure : std::runtime_error {
  CuptiFailure(int code, std::string reason) : std::runtime_error(std::move(reason)), code(code) {}
  int code;
};

// Errors after which no later point can count either.
bool is_permanent(int code) {
  return code == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || code == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES ||
         code == CUPTI_ERROR_NOT_SUPPORTED || code == CUPTI_ERROR_NOT_COMPATIBLE ||
         code == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED || code == CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED;
}

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

std::vector<const char*> counter_metric_names() {
  std::vector<const char*> names;
  for (const auto& m : counter_metrics()) names.push_back(m.metric);
  return names;
}

// A cold sample's duration is Nsight Compute's gpu__time_duration of its kernels; the L1 global
// load and store bytes tell the flush's range from the sample's own (is_flush_range).
constexpr std::size_t kDuration = 0, kLoadBytes = 1, kStoreBytes = 2;  // in duration_metric_names()
std::vector<const char*> duration_metric_names() {
  return {"gpu__time_duration.sum", "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum"};
}

}  // namespace

// OCCBENCH_COUNTERS_CONFIG: point (default) or run; anything else is an error, as for the other switches.
bool counters_configure_once_from_env() {
  const char* value = std::getenv("OCCBENCH_COUNTERS_CONFIG");
  if (!value || !*value || std::string(value) == "point") return false;
  if (std::string(value) == "run") return true;
  throw std::invalid_argument(fmt::format("OCCBENCH_COUNTERS_CONFIG: expected point or run, got '{}'", value));
}

// OCCBENCH_COUNTERS_ENABLE: run (default: the profiler stays enabled for the run) or point.
bool counters_enable_per_point_from_env() {
  const char* value = std::getenv("OCCBENCH_COUNTERS_ENABLE");
  if (!value || !*value || std::string(value) == "run") return false;
  if (std::string(value) == "point") return true;
  throw std::invalid_argument(fmt::format("OCCBENCH_COUNTERS_ENABLE: expected run or point, got '{}'", value));
}

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

namespace {
thread_local bool inside_kernel_flush = false;  // the flush's own launch calls back too
}

void CUPTIAPI CounterSession::State::on_kernel_launch(void* userdata, CUpti_CallbackDomain, CUpti_CallbackId,
                                                      const void* data) {
  auto& k = *static_cast<KernelFlush*>(userdata);
  if (!k.armed || inside_kernel_flush) return;
  if (static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_EXIT) {
    k.needed = true;
    return;
  }
  // A runtime launch calls back twice (cudaLaunchKernel, then the driver's cuLaunchKernel): one flush.
  if (!k.needed || k.error) return;
  inside_kernel_flush = true;
  auto t0 = std::chrono::steady_clock::now();
  try {
    // The launch's earlier work (a memset, an earlier kernel, on any stream) finishes first, so
    // the flush writes back what it left in the L2 before this kernel starts, as Nsight Compute's.
    OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    k.flush();
    ++k.flushes;
  } catch (...) {
    k.error = std::current_exception();  // no exception may cross CUPTI's frames
  }
  k.flush_s += seconds_since(t0);
  inside_kernel_flush = false;
  k.needed = false;
}

std::string CounterSession::State::subscribe_kernel_flush() {
  if (kernel_flush.subscriber) return "";
  if (!api.callback_missing.empty()) return fmt::format("libcupti lacks {}", api.callback_missing);
  char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "occbench";
  params.oldSubscriberName = other;
  params.oldSubscriberSize = sizeof(other);
  CUpti_SubscriberHandle subscriber = nullptr;
  try {
    check(api.cuptiSubscribe_v2(&subscriber, on_kernel_launch, &kernel_flush, &params), "cuptiSubscribe_v2");
    // Every entry point a kernel can be launched through: the runtime's and the driver's (NVRTC
    // kernels, and what the runtime calls), per-thread default stream variants included.
    const std::pair<CUpti_CallbackDomain, CUpti_CallbackId> launches[] = {
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000},
        {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid},
        {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync},
    };
    for (const auto& [domain, cbid] : launches) check(api.cuptiEnableCallback(1, subscriber, domain, cbid), "cuptiEnableCallback");
  } catch (const CuptiFailure& e) {
    if (subscriber) api.cuptiUnsubscribe(subscriber);
    return other[0] ? fmt::format("{} (the subscriber already there: {})", e.what(), other) : std::string(e.what());
  }
  kernel_flush.subscriber = subscriber;
  return "";
}

void CounterSession::State::configure_host(MetricSet& set, const std::vector<const char*>& metrics,
                                           const std::string& chip, const uint8_t* availability_image) {
  auto host = cupti_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip.c_str();
  host.pCounterAvailabilityImage = availability_image;
  OCCBENCH_CUPTI(*this, cuptiProfilerHostInitialize, host);
  set.host = host.pHostObject;

  set.names = metrics;
  auto add = cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = set.host;
  add.ppMetricNames = set.names.data();
  add.numMetrics = set.names.size();
  OCCBENCH_CUPTI(*this, cuptiProfilerHostConfigAddMetrics, add);
  auto size = cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = set.host;
  OCCBENCH_CUPTI(*this, cuptiProfilerHostGetConfigImageSize, size);
  set.config_image.resize(size.configImageSize);
  auto image = cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = set.host;
  image.configImageSize = set.config_image.size();
  image.pConfigImage = set.config_image.data();
  OCCBENCH_CUPTI(*this, cuptiProfilerHostGetConfigImage, image);
}

int CounterSession::State::config_passes(const MetricSet& set) const {
  auto passes = cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = set.config_image.size();
  passes.pConfigImage = const_cast<uint8_t*>(set.config_image.data());
  OCCBENCH_CUPTI(*this, cuptiProfilerHostGetNumOfPasses, passes);
  return int(passes.numOfPasses);
}

void CounterSession::State::configure_sass(const std::string& chip) {
  if (!api.sass_missing.empty()) {
    sass.unavailable_reason = fmt::format("libcupti lacks the SASS metrics API ({})", api.sass_missing);
    return;
  }
  // Once per device and process, kept to the end: on the H100 a second cuptiSassMetricsSetConfig
  // after an UnsetConfig (the next session of a process, e.g. the GPU tests) failed with
  // CUPTI_ERROR_OUT_OF_MEMORY.
  static std::mutex mutex;
  static std::map<int, Sass> configured_devices;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = configured_devices.find(device_index); found != configured_devices.end()) {
    sass = found->second;
    return;
  }
  try {
    auto id = [&](const char* name) {
      auto properties = cupti_params<CUpti_SassMetrics_GetProperties_Params>(CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
      properties.pChipName = chip.c_str();
      properties.pMetricName = name;
      check(api.cuptiSassMetricsGetProperties(&properties), "cuptiSassMetricsGetProperties");
      return properties.metric.metricId;
    };
    sass.load_instructions = id("smsp__sass_inst_executed_op_shared_ld");
    sass.store_instructions = id("smsp__sass_inst_executed_op_shared_st");
    sass.wavefronts = id("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared");
    sass.ideal_wavefronts = id("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal");
    std::vector<CUpti_SassMetrics_Config> configs;
    for (uint64_t metric : {sass.load_instructions, sass.store_instructions, sass.wavefronts, sass.ideal_wavefronts})
      // GPU granularity: one count per instruction. Per SM or SMSP (tried on the H100) the instrumented
      // launch ran ~2.5x faster but counted more shared instructions than the hardware did.
      configs.push_back({metric, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
    auto config = cupti_params<CUpti_SassMetricsSetConfig_Params>(CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
    config.numOfMetricConfig = configs.size();
    config.pConfigs = configs.data();
    config.deviceIndex = uint32_t(device_index);
    check(api.cuptiSassMetricsSetConfig(&config), "cuptiSassMetricsSetConfig");
    sass.configured = true;
  } catch (const CuptiFailure& e) {
    sass.unavailable_reason = fmt::format("shared-memory instrumentation unavailable: {}", e.what());
  }
  configured_devices[device_index] = sass;
}

void CounterSession::State::count_shared_accesses(const std::vector<std::function<void()>>& launches,
                                                  std::vector<CounterReading>& readings,
                                                  const std::vector<std::string>& skip_instrumentation) {
  if (!sass.configured) {
    for (auto& r : readings) r.shared_access_reason = sass.unavailable_reason;
    return;
  }
  auto skipped = [&](std::size_t l) { return l < skip_instrumentation.size() && !skip_instrumentation[l].empty(); };
  bool any = false;
  for (std::size_t l = 0; l < launches.size(); ++l) {
    if (skipped(l)) readings[l].shared_access_reason = skip_instrumentation[l];
    else any = true;
  }
  if (!any) return;
  std::size_t done = 0;
  try {
    auto enable = cupti_params<CUpti_SassMetricsEnable_Params>(CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
    enable.ctx = context;
    enable.enableLazyPatching = 1;  // patch only the kernels the launches run
    check(api.cuptiSassMetricsEnable(&enable), "cuptiSassMetricsEnable");
    // Disabled on every path: patched kernels left behind would be the next point's timed ones.
    struct Disable {
      const Cupti& api;
      CUcontext context;
      ~Disable() {
        auto params = cupti_params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
        params.ctx = context;
        api.cuptiSassMetricsDisable(&params);
      }
    } disable_at_exit{api, context};
    for (; done < launches.size(); ++done) {
      if (skipped(done)) continue;
      auto t0 = std::chrono::steady_clock::now();
      launches[done]();
      auto properties = cupti_params<CUpti_SassMetricsGetDataProperties_Params>(CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
      properties.ctx = context;
      check(api.cuptiSassMetricsGetDataProperties(&properties), "cuptiSassMetricsGetDataProperties");
      // One record per patched instruction and metric; each of its instances (one at GPU
      // granularity) names the metric. Flushing empties CUPTI's buffer for the next launch.
      std::vector<CUpti_SassMetrics_Data> records(properties.numOfPatchedInstructionRecords);
      std::vector<CUpti_SassMetrics_InstanceValue> values(records.size() * properties.numOfInstances);
      for (std::size_t i = 0; i < records.size(); ++i) {
        records[i].structSize = CUpti_SassMetricsFlushData_Params_STRUCT_SIZE;  // as cupti_sass_metrics.h asks
        records[i].pInstanceValues = values.data() + i * properties.numOfInstances;
      }
      std::map<std::tuple<uint32_t, uint32_t, uint32_t>, InstructionSharedCounts> instructions;
      if (!records.empty()) {
        auto flush = cupti_params<CUpti_SassMetricsFlushData_Params>(CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
        flush.ctx = context;
        flush.numOfPatchedInstructionRecords = records.size();
        flush.numOfInstances = properties.numOfInstances;
        flush.pMetricsData = records.data();
        check(api.cuptiSassMetricsFlushData(&flush), "cuptiSassMetricsFlushData");
        for (const auto& record : records) {
          InstructionSharedCounts& counts = instructions[{record.cubinCrc, record.functionIndex, record.pcOffset}];
          for (std::size_t k = 0; k < properties.numOfInstances; ++k) {
            const auto& v = record.pInstanceValues[k];
            double value = double(v.value);
            if (v.metricId == sass.load_instructions) counts.load_instructions += value;
            else if (v.metricId == sass.store_instructions) counts.store_instructions += value;
            else if (v.metricId == sass.wavefronts) counts.wavefronts += value;
            else if (v.metricId == sass.ideal_wavefronts) counts.ideal_wavefronts += value;
          }
        }
      }
      std::vector<InstructionSharedCounts> list;
      for (const auto& [where, counts] : instructions) list.push_back(counts);
      readings[done].shared_access = sum_shared_accesses(list);
      readings[done].instrumented_s = seconds_since(t0);
    }
  } catch (const CuptiFailure& e) {
    for (std::size_t l = done; l < readings.size(); ++l)
      if (!skipped(l)) readings[l].shared_access_reason = fmt::format("the instrumented launch failed: {}", e.what());
  }
}

int counter_passes(const std::string& chip) {
  CounterSession::State s;
  std::string load_error = load_cupti(s.api);
  if (!load_error.empty()) throw std::runtime_error(load_error);
  struct Release {
    CounterSession::State& s;
    ~Release() { s.release_host(); }
  } release{s};
  s.configure_host(s.counters, counter_metric_names(), chip, nullptr);
  return s.config_passes(s.counters);
}

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
    using GetCurrent = CUresult (*)(CUcontext*);
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &entry, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        !entry || reinterpret_cast<GetCurrent>(entry)(&s.context) != CUDA_SUCCESS || !s.context) {
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

void CounterSession::flush_before_each_kernel(std::function<void()> flush, double flush_read_bytes) {
  if (!available()) return;
  if (!flush || flush_read_bytes <= 0) {
    unavailable_reason_ = "measurement.counters_l2_flush \"per_kernel\" needs the read-sweep L2 flush (OCCBENCH_L2_FLUSH=read), "
                          "whose ranges are told apart from the launch's kernels";
    return;
  }
  std::string why = state_->subscribe_kernel_flush();
  if (!why.empty()) {
    unavailable_reason_ = fmt::format("measurement.counters_l2_flush \"per_kernel\" needs CUPTI's callback API: {}", why);
    return;
  }
  state_->kernel_flush.flush = std::move(flush);
  state_->kernel_flush.read_bytes = flush_read_bytes;
}

bool CounterSession::flushes_per_kernel() const { return state_ && state_->kernel_flush.subscriber; }

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

bool is_flush_range(double l1_global_load_bytes, double l1_global_store_bytes, double flush_read_bytes) {
  return flush_read_bytes > 0 && l1_global_store_bytes == 0 &&
         std::abs(l1_global_load_bytes - flush_read_bytes) <= 0.01 * flush_read_bytes;
}

std::vector<std::vector<std::size_t>> split_ranges_at_flushes(const std::vector<bool>& flush_ranges, std::size_t launches) {
  std::vector<std::vector<std::size_t>> owned;
  for (std::size_t i = 0; i < flush_ranges.size(); ++i) {
    if (flush_ranges[i]) {
      owned.emplace_back();
      continue;
    }
    if (owned.empty()) throw std::runtime_error(fmt::format("range {} of the batch came before its first flush", i));
    owned.back().push_back(i);
  }
  if (owned.size() != launches)
    throw std::runtime_error(fmt::format("{} flushes among the batch's ranges for its {} launches", owned.size(), launches));
  for (std::size_t l = 0; l < owned.size(); ++l)
    if (owned[l].empty()) throw std::runtime_error(fmt::format("launch {} of the batch made no kernel", l));
  return owned;
}

std::vector<CounterReading> CounterSession::collect(const std::vector<std::function<void()>>& launches,
                                                    const std::function<void()>& flush, double flush_read_bytes,
                                                    bool durations, const std::vector<std::string>& skip_instrumentation) {
  if (!available()) throw std::runtime_error(unavailable_reason_);
  bool batched = flush_read_bytes > 0;
  if (batched && !flush) throw std::logic_error("a batch of launches needs the flush that delimits them");
  State& s = *state_;
  State::KernelFlush& kernel_flush = s.kernel_flush;
  const bool per_kernel = !durations && kernel_flush.subscriber;  // flushed before each kernel too
  if (per_kernel && batched) throw std::logic_error("with the L2 flushed before each kernel, points are counted one by one");
  const State::MetricSet& set = durations ? s.durations : s.counters;
  auto t0 = std::chrono::steady_clock::now();
  CounterReading total;  // the collection's times, shared out among its launches at the end

  // Enabled once for the run (see open()), or here for this point (OCCBENCH_COUNTERS_ENABLE=point).
  CUpti_RangeProfiler_Object* profiler = s.profiler;
  bool enabled_here = profiler == nullptr;
  if (enabled_here) {
    auto enable = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    enable.ctx = s.context;
    try {
      OCCBENCH_CUPTI(s, cuptiRangeProfilerEnable, enable);
    } catch (const CuptiFailure& e) {
      if (is_permanent(e.code)) unavailable_reason_ = e.what();
      throw;
    }
    profiler = enable.pRangeProfilerObject;
    if (!counters_enable_per_point_from_env()) {  // run-wide again after a point that failed
      s.profiler = profiler;
      enabled_here = false;
      prime();  // a fresh enable's first collection leaves dirty lines of CUPTI's (see open())
    }
  }
  // Disabled on every path: a profiler left enabled would count the next point's timing.
  struct Disable {
    State& s;
    CUpti_RangeProfiler_Object* profiler;
    bool active;
    ~Disable() {
      if (active) s.disable(profiler);
    }
  } disable_at_exit{s, profiler, enabled_here};

  std::vector<CounterReading> readings(launches.size());
  std::vector<std::vector<double>> per_range;  // each kernel's values, in launch order (a batch: flushes too)
  int flushes_per_pass = -1;  // per_kernel: the flushes of the first pass, the same in every pass
  try {
    // A batch's flushes run inside the passes, each kernel one range: up to kMaxBatchRanges.
    // Flushed before each kernel: a flush range before each kernel range.
    std::size_t max_ranges = batched ? kMaxBatchRanges : per_kernel ? 2 * kMaxKernelsPerLaunch : kMaxKernelsPerLaunch;
    // OCCBENCH_COUNTERS_CONFIG=run (with the run-wide enable): configure once and only reset the
    // counter data image for each later point, to save the ~45 ms per point that
    // cuptiRangeProfilerSetConfig and the image take on the H100. CUPTI does not document reusing
    // a configuration after DecodeData, so it is opt-in until measured, and a point whose replays
    // differ from the host API's pass count fails its counters rather than giving partial ones.
    bool configure_once = !durations && s.profiler && s.configure_once;
    std::vector<uint8_t>& counter_data = s.counter_data;
    auto init = cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    init.pRangeProfilerObject = profiler;
    if (durations) s.configured = false;  // the profiler gets the durations' config: the counters' must be set again
    if (configure_once && s.configured && s.configured_ranges == max_ranges) {
      init.counterDataSize = counter_data.size();
      init.pCounterData = counter_data.data();
      OCCBENCH_CUPTI(s, cuptiRangeProfilerCounterDataImageInitialize, init);
    } else {
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
    auto t_setup = std::chrono::steady_clock::now();
    total.setup_s = std::chrono::duration<double>(t_setup - t0).count();

    bool all_submitted = false;
    while (!all_submitted) {
      if (total.passes >= kMaxPasses)
        throw std::runtime_error(fmt::format("CUPTI asked for more than {} replays of the launch", kMaxPasses));
      // One launch: the flush before the pass, outside it (per_kernel: the callback flushes inside
      // the pass, before each kernel, the first one too). A batch: a flush before each launch,
      // inside the pass, where its kernel is a range of its own that marks where a launch begins.
      auto t_flush = std::chrono::steady_clock::now();
      if (!batched && !per_kernel && flush) flush();
      total.flush_s += seconds_since(t_flush);
      auto start = cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
      start.pRangeProfilerObject = profiler;
      auto t_start = std::chrono::steady_clock::now();
      OCCBENCH_CUPTI(s, cuptiRangeProfilerStart, start);
      total.start_s += seconds_since(t_start);
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
      if (per_kernel) {
        kernel_flush.needed = true;
        kernel_flush.flushes = 0;
        kernel_flush.flush_s = 0;
        kernel_flush.error = nullptr;
        kernel_flush.armed = true;
      }
      for (std::size_t l = 0; l < launches.size(); ++l) {
        if (batched) {
          auto t_batch_flush = std::chrono::steady_clock::now();
          flush();
          total.flush_s += seconds_since(t_batch_flush);
        }
        auto t_launch = std::chrono::steady_clock::now();
        launches[l]();
        readings[l].launch_s += seconds_since(t_launch);
      }
      if (per_kernel) {
        if (kernel_flush.error) std::rethrow_exception(kernel_flush.error);
        total.flush_s += kernel_flush.flush_s;  // made inside the launch: the flushes', not the launch's
        readings.front().launch_s -= kernel_flush.flush_s;
        if (flushes_per_pass >= 0 && kernel_flush.flushes != flushes_per_pass)
          throw std::runtime_error(fmt::format("the launch made {} kernels in one pass and {} in another",
                                               flushes_per_pass, kernel_flush.flushes));
        flushes_per_pass = kernel_flush.flushes;
      }
      auto stop = cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
      stop.pRangeProfilerObject = profiler;
      stop_at_exit.started = false;
      auto t_stop = std::chrono::steady_clock::now();
      OCCBENCH_CUPTI(s, cuptiRangeProfilerStop, stop);
      total.stop_s += seconds_since(t_stop);
      all_submitted = stop.isAllPassSubmitted != 0;
      ++total.passes;
    }
    if (configure_once && total.passes != passes_) {
      s.configured = false;
      throw std::runtime_error(fmt::format("OCCBENCH_COUNTERS_CONFIG=run: CUPTI replayed the launch {} times where "
                                           "its host API asks for {}; the counts would be partial", total.passes, passes_));
    }
    auto t_replay = std::chrono::steady_clock::now();
    total.replay_s = std::chrono::duration<double>(t_replay - t_setup).count();
    auto decode = cupti_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    decode.pRangeProfilerObject = profiler;
    OCCBENCH_CUPTI(s, cuptiRangeProfilerDecodeData, decode);
    if (decode.numOfRangeDropped > 0)
      throw std::runtime_error(fmt::format("the launch made more than {} kernels; {} were not counted",
                                           max_ranges, decode.numOfRangeDropped));
    auto info = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = counter_data.data();
    info.counterDataImageSize = counter_data.size();
    OCCBENCH_CUPTI(s, cuptiRangeProfilerGetCounterDataInfo, info);
    if (info.numTotalRanges == 0) throw std::runtime_error("the launch made no kernel that CUPTI could count");

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
    total.decode_s = seconds_since(t_replay);
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
  // Which ranges are the flushes': a batch's (one before each launch) or those made before each
  // kernel (per_kernel). CUPTI names auto ranges by number only, so a flush is told by what it did:
  // it read exactly the flush buffer and stored nothing.
  std::vector<bool> flush_ranges(per_range.size(), false);
  if (batched || per_kernel) {
    std::size_t load = durations ? kLoadBytes : index_of("l1_global_load_bytes");
    std::size_t store = durations ? kStoreBytes : index_of("l1_global_store_bytes");
    double read_bytes = batched ? flush_read_bytes : kernel_flush.read_bytes;
    for (std::size_t range = 0; range < per_range.size(); ++range)
      flush_ranges[range] = is_flush_range(per_range[range][load], per_range[range][store], read_bytes);
  }
  // Which ranges are whose: split at the batch's flushes (a batch that does not split throws here,
  // with the profiler left as it is, and its points are counted one by one), or every range but
  // the flushes the one launch's.
  std::vector<std::vector<std::size_t>> owned;
  if (batched) {
    owned = split_ranges_at_flushes(flush_ranges, launches.size());
  } else {
    owned.emplace_back();
    for (std::size_t range = 0; range < per_range.size(); ++range)
      if (!flush_ranges[range]) owned.back().push_back(range);
    std::size_t flushes = per_range.size() - owned.back().size();
    if (per_kernel && (flushes != std::size_t(flushes_per_pass) || owned.back().empty()))
      throw std::runtime_error(fmt::format("the L2 was flushed before each of the launch's {} kernels, yet {} of its {} "
                                           "ranges read as flushes", flushes_per_pass, flushes, per_range.size()));
  }
  for (std::size_t l = 0; l < launches.size(); ++l) {
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
  if (!durations) {
    // With the range profiler still enabled (see count_shared_accesses); checked against its counts.
    try {
      s.count_shared_accesses(launches, readings, skip_instrumentation);
    } catch (...) {
      drop_run_wide_profiler(enabled_here);  // a launch failed: as after a failed pass
      throw;
    }
    for (auto& r : readings) {
      if (!r.shared_access) continue;
      std::string mismatch = shared_access_mismatch(*r.shared_access, r.values[index_of("shared_load_instructions")],
                                                    r.values[index_of("shared_store_instructions")]);
      if (!mismatch.empty()) {
        r.shared_access.reset();
        r.shared_access_reason = mismatch;
      }
    }
  }
  total.added_s = seconds_since(t0);
  // Each launch's share of the collection: its own launch time, an equal part of the rest.
  double launches_s = 0;  // the launches' own times, the instrumented ones too
  for (const auto& r : readings) launches_s += r.launch_s + r.instrumented_s;
  double share = 1.0 / double(launches.size());
  for (auto& r : readings) {
    r.l2_flush_per_kernel = per_kernel;
    r.passes = total.passes;
    r.batch_launches = int(launches.size());
    r.setup_s = total.setup_s * share;
    r.flush_s = total.flush_s * share;
    r.start_s = total.start_s * share;
    r.stop_s = total.stop_s * share;
    r.decode_s = total.decode_s * share;
    r.replay_s = r.flush_s + r.start_s + r.stop_s + r.launch_s;
    r.added_s = r.launch_s + r.instrumented_s + (total.added_s - launches_s) * share;
  }
  return readings;
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
