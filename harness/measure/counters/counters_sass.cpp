#include "harness/measure/counters/counters_cupti.hpp"

#include "harness/core/clock.hpp"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <mutex>
#include <tuple>

namespace occbench {

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

}  // namespace occbench
