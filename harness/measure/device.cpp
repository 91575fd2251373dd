#include "harness/measure/device.hpp"

#include "harness/measure/latency_probe.hpp"
#include "harness/measure/memory_probes.hpp"
#include "harness/measure/nvml.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/optional_number.hpp"
#include "harness/model/gpu_table.hpp"
#include "harness/measure/stats.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace occbench {

std::string DeviceInfo::compute_capability() const { return fmt::format("{}.{}", compute_major, compute_minor); }


std::optional<std::string> device_choice_error(int ordinal, int device_count) {
  if (ordinal >= 0 && ordinal < device_count) return std::nullopt;
  std::string ordinals = device_count == 1 ? "0" : fmt::format("0-{}", device_count - 1);
  if (device_count <= 0) return fmt::format("device {} does not exist: this machine has no GPU", ordinal);
  return fmt::format("device {} does not exist: this machine has {} GPU{} ({})", ordinal, device_count,
                     device_count == 1 ? "" : "s", ordinals);
}

std::optional<std::string> device_choice_error(int ordinal) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  return device_choice_error(ordinal, count);
}

namespace {

int attribute(cudaDeviceAttr attr, int ordinal) {
  int value = 0;
  OCCBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, ordinal));
  return value;
}

int fp32_lanes_per_sm(int major, int minor) {
  for (const auto& gpu : gpu_table()) {
    auto arch = fmt::format("sm_{}{}", major, minor);
    if (gpu.arch == arch) return gpu.fp32_lanes_per_sm;
  }
  return major >= 8 && !(major == 8 && minor == 0) ? 128 : 64;
}

}  // namespace

DeviceInfo query_device(int ordinal) {
  OCCBENCH_CUDA_CHECK(cudaSetDevice(ordinal));
  cudaDeviceProp prop{};
  OCCBENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  DeviceInfo d;
  d.ordinal = ordinal;
  d.name = prop.name;
  d.compute_major = prop.major;
  d.compute_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.sm_clock_mhz = attribute(cudaDevAttrClockRate, ordinal) / 1e3;
  d.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, ordinal) / 1e3;
  d.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  d.l2_bytes = std::size_t(prop.l2CacheSize);
  d.total_memory_bytes = prop.totalGlobalMem;
  d.peak_bandwidth_gbps = d.memory_clock_mhz * 1e6 * (d.memory_bus_bits / 8.0) * 2 / 1e9;
  d.peak_fp32_gflops = d.sm_count * fp32_lanes_per_sm(prop.major, prop.minor) * 2.0 * d.sm_clock_mhz / 1e3;

  SmLimits& l = d.limits;
  l.compute_major = prop.major;
  l.compute_minor = prop.minor;
  l.sm_count = prop.multiProcessorCount;
  l.max_threads_per_block = prop.maxThreadsPerBlock;
  l.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  l.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  l.warp_size = prop.warpSize;
  l.registers_per_sm = prop.regsPerMultiprocessor;
  l.registers_per_block = prop.regsPerBlock;
  l.smem_per_sm_bytes = prop.sharedMemPerMultiprocessor;
  l.smem_per_block_bytes = prop.sharedMemPerBlock;
  l.smem_per_block_optin_bytes = prop.sharedMemPerBlockOptin;
  l.reserved_smem_per_block_bytes = prop.reservedSharedMemPerBlock;

  char bus_id[64] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal) == cudaSuccess) d.pci_bus_id = bus_id;
  cudaDriverGetVersion(&d.driver_version);
  cudaRuntimeGetVersion(&d.runtime_version);
  return d;
}

double measure_copy_bandwidth_gbps(std::size_t bytes, int repetitions) {
  void* source = nullptr;
  void* target = nullptr;
  OCCBENCH_CUDA_CHECK(cudaMalloc(&source, bytes));
  OCCBENCH_CUDA_CHECK(cudaMalloc(&target, bytes));
  OCCBENCH_CUDA_CHECK(cudaMemset(source, 0x5a, bytes));
  cudaEvent_t start, stop;
  OCCBENCH_CUDA_CHECK(cudaEventCreate(&start));
  OCCBENCH_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> samples;
  OCCBENCH_CUDA_CHECK(cudaMemcpy(target, source, bytes, cudaMemcpyDeviceToDevice));  // warm-up
  for (int i = 0; i < repetitions; ++i) {
    OCCBENCH_CUDA_CHECK(cudaEventRecord(start));
    OCCBENCH_CUDA_CHECK(cudaMemcpyAsync(target, source, bytes, cudaMemcpyDeviceToDevice));
    OCCBENCH_CUDA_CHECK(cudaEventRecord(stop));
    OCCBENCH_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    OCCBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    samples.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(source);
  cudaFree(target);
  double median_s = summarize(samples, "hot").median_ms / 1e3;
  return 2.0 * double(bytes) / median_s / 1e9;
}

ClockReading read_clocks(const DeviceInfo& device) {
  if (device.pci_bus_id.empty()) return {};
  Nvml& nvml = Nvml::get();
  return nvml.clocks(nvml.device(device.pci_bus_id));
}

namespace {
nlohmann::ordered_json to_json(const ClockReading& c) {
  return {{"sm_mhz", optional_number(c.sm_mhz)},
          {"memory_mhz", optional_number(c.memory_mhz)},
          {"throttle_reasons", optional_number(c.throttle_reasons)}};
}
}  // namespace

nlohmann::ordered_json to_json(const DeviceInfo& d) {
  return {{"name", d.name},
          {"compute_capability", d.compute_capability()},
          {"sm_count", d.sm_count},
          {"sm_clock_mhz", d.sm_clock_mhz},
          {"memory_clock_mhz", d.memory_clock_mhz},
          {"memory_bus_bits", d.memory_bus_bits},
          {"l2_bytes", d.l2_bytes},
          {"total_memory_bytes", d.total_memory_bytes},
          {"peak_bandwidth_gbps", d.peak_bandwidth_gbps},
          {"measured_bandwidth_gbps", optional_number(d.measured_bandwidth_gbps)},
          {"measured_l2_bandwidth_gbps", optional_number(d.measured_l2_bandwidth_gbps)},
          {"measured_smem_bandwidth_gbps", optional_number(d.measured_smem_bandwidth_gbps)},
          {"dram_latency_ns", optional_number(d.dram_latency_ns)},
          {"peak_fp32_gflops", d.peak_fp32_gflops},
          {"smem_per_sm_bytes", d.limits.smem_per_sm_bytes},
          {"smem_per_block_optin_bytes", d.limits.smem_per_block_optin_bytes},
          {"registers_per_sm", d.limits.registers_per_sm},
          {"max_threads_per_sm", d.limits.max_threads_per_sm},
          {"max_blocks_per_sm", d.limits.max_blocks_per_sm},
          {"pci_bus_id", d.pci_bus_id},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version},
          {"timing_floor_ms", optional_number(d.timing_floor_ms)},
          {"clocks", {{"start", to_json(d.clocks_start)}, {"end", to_json(d.clocks_end)}}}};
}

bool reuse_ceilings(DeviceInfo& device, const nlohmann::ordered_json& recorded) {
  if (!recorded.is_object() || recorded.value("name", "") != device.name || recorded.value("pci_bus_id", "") != device.pci_bus_id)
    return false;
  const char* fields[] = {"measured_bandwidth_gbps", "measured_l2_bandwidth_gbps", "measured_smem_bandwidth_gbps", "dram_latency_ns"};
  for (const char* field : fields)
    if (!recorded.contains(field) || !recorded[field].is_number()) return false;
  device.measured_bandwidth_gbps = recorded["measured_bandwidth_gbps"].get<double>();
  device.measured_l2_bandwidth_gbps = recorded["measured_l2_bandwidth_gbps"].get<double>();
  device.measured_smem_bandwidth_gbps = recorded["measured_smem_bandwidth_gbps"].get<double>();
  device.dram_latency_ns = recorded["dram_latency_ns"].get<double>();
  return true;
}

void measure_ceilings(DeviceInfo& device) {
  std::size_t copy_bytes = std::min<std::size_t>(std::size_t(1) << 30, device.total_memory_bytes / 8);
  device.measured_bandwidth_gbps = measure_copy_bandwidth_gbps(copy_bytes, 20);
  device.measured_l2_bandwidth_gbps = measure_l2_bandwidth_gbps(device.l2_bytes, device.sm_count, 10);
  device.measured_smem_bandwidth_gbps = measure_smem_bandwidth_gbps(device.sm_count, 10);
  device.dram_latency_ns = measure_dram_latency_ns(latency_probe_shape(device.l2_bytes, device.total_memory_bytes));
}

}  // namespace occbench
