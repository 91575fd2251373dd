#pragma once
// The GPU a run measures: its properties, its theoretical and measured ceilings, and its clocks.
#include "harness/core/cuda_check.hpp"
#include "harness/measure/nvml.hpp"
#include "harness/model/occupancy.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace occbench {


struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  double sm_clock_mhz = 0;        // peak
  double memory_clock_mhz = 0;    // peak
  int memory_bus_bits = 0;
  std::size_t l2_bytes = 0;
  std::size_t total_memory_bytes = 0;
  double peak_bandwidth_gbps = 0;          // memory clock x bus width x 2 (double data rate)
  std::optional<double> measured_bandwidth_gbps;  // device-to-device copy, read + write bytes
  std::optional<double> measured_l2_bandwidth_gbps;    // L2-resident reads (harness/measure/memory_probes)
  std::optional<double> measured_smem_bandwidth_gbps;  // conflict-free shared-memory reads
  std::optional<double> dram_latency_ns;          // pointer chase (harness/measure/latency_probe)
  double peak_fp32_gflops = 0;             // SMs x FP32 lanes x 2 x peak clock
  SmLimits limits;
  std::string pci_bus_id;
  int driver_version = 0, runtime_version = 0;
  ClockReading clocks_start, clocks_end;
  std::optional<double> timing_floor_ms;  // empty kernel's event-pair time (harness/measure/timer.hpp)

  std::string compute_capability() const;
};


// Why `ordinal` names no GPU of a machine with `device_count` of them ("device 7 does not exist:
// this machine has 1 GPU (0)"), or nullopt when it is one. Pure, for tests.
std::optional<std::string> device_choice_error(int ordinal, int device_count);
// The same against this machine's device count.
std::optional<std::string> device_choice_error(int ordinal);

DeviceInfo query_device(int ordinal);

// Median device-to-device cudaMemcpy bandwidth over `repetitions` copies of `bytes`, counting
// the bytes read plus the bytes written (as BabelStream's copy does).
double measure_copy_bandwidth_gbps(std::size_t bytes, int repetitions);

// The device's own ceilings, measured: copy bandwidth (a copy of 1 GiB, or an eighth of the card),
// L2 and shared-memory bandwidth, DRAM latency. Every ratio of a run is against these.
void measure_ceilings(DeviceInfo& device);
// The ceilings a run measured on this same GPU (`recorded`: its device record, from the .jsonl
// header), taken instead of measuring them again: a resumed run, and the process that goes on
// after a contained fault, keep the run's own ceilings and save their ~1.4 s. False (nothing
// taken) where the record is of another GPU (name or PCI bus) or lacks one of them.
bool reuse_ceilings(DeviceInfo& device, const nlohmann::ordered_json& recorded);

// Current SM and memory clocks of the device, through NVML (loaded at run time; empty if absent).
ClockReading read_clocks(const DeviceInfo& device);

nlohmann::ordered_json to_json(const DeviceInfo& device);

}  // namespace occbench
