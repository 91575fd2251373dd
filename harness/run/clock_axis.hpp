#pragma once
// The sm_clock_mhz axis before a run: the SM clocks a GPU supports (NVML on this machine's GPU, or
// the GPU table for one planned without it), listed by plan and run --dry-run, and the sweep's
// values checked against them (a value the GPU cannot be locked to is bad input, exit 2).
#include "harness/model/gpu_table.hpp"
#include "harness/sweep/spec.hpp"

#include <string>
#include <vector>

namespace occbench {

struct SmClockList {
  std::vector<int> mhz;  // highest first; empty where not known (reason)
  std::string source;    // "NVML on this GPU", "the GPU table, read with NVML on one"
  std::string reason;
};
SmClockList local_sm_clocks(const std::string& pci_bus_id);
SmClockList table_sm_clocks(const GpuSpec& gpu);
// This machine's first GPU, for run --dry-run (no CUDA context: its PCI bus id only).
SmClockList first_gpu_sm_clocks();

// Whether the sweep gives sm_clock_mhz values (its axes, a variant's axes or --set).
bool uses_sm_clock_axis(const SweepSpec& spec);
// The line that lists the clocks for `gpu`; throws ConfigError naming the config path and the
// supported range for a value outside it (none checked where the list is not known).
std::string check_sm_clocks(const SweepSpec& spec, const SmClockList& clocks, const std::string& gpu);

}  // namespace occbench
