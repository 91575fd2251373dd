#include "harness/measure/counters/counters_cupti.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>

namespace occbench {

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

bool is_permanent(int code) {
  return code == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES || code == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES ||
         code == CUPTI_ERROR_NOT_SUPPORTED || code == CUPTI_ERROR_NOT_COMPATIBLE ||
         code == CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED || code == CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED;
}

std::vector<const char*> counter_metric_names() {
  std::vector<const char*> names;
  for (const auto& m : counter_metrics()) names.push_back(m.metric);
  return names;
}

std::vector<const char*> duration_metric_names() {
  return {"gpu__time_duration.sum", "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum"};
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

}  // namespace occbench
