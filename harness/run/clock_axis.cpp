#include "harness/run/clock_axis.hpp"

#include "harness/family/harness_axes.hpp"
#include "harness/measure/sm_clock.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <utility>

namespace occbench {

namespace {

// Where the sweep gives the axis: (config path, values).
std::vector<std::pair<std::string, std::vector<std::int64_t>>> sm_clock_uses(const SweepSpec& spec) {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> uses;
  bool from_set = false;
  for (const auto& [name, values] : spec.selection.overrides) from_set = from_set || name == kSmClockAxis;
  for (const auto& [name, values] : spec.axes)
    if (name == kSmClockAxis) uses.emplace_back(from_set ? "--set sm_clock_mhz" : "$.axes.sm_clock_mhz", values);
  for (const auto& [variant, axes] : spec.variant_axes)
    for (const auto& [name, values] : axes)
      if (name == kSmClockAxis) uses.emplace_back(fmt::format("$.variant_axes.{}.sm_clock_mhz", variant), values);
  return uses;
}

std::string clock_text(const std::vector<int>& mhz) {
  std::string text;
  for (int v : mhz) text += fmt::format("{}{}", text.empty() ? "" : " ", v);
  return text;
}

}  // namespace

SmClockList local_sm_clocks(const std::string& pci_bus_id) {
  SmClockList list;
  list.source = "NVML on this GPU";
  std::unique_ptr<SmClockControl> control = nvml_sm_clock_control(pci_bus_id, list.reason);
  if (control) list.mhz = control->supported_mhz(list.reason);
  return list;
}

SmClockList table_sm_clocks(const GpuSpec& gpu) {
  SmClockList list;
  list.source = "the GPU table, read with NVML on one";
  if (!gpu.locked_sm_clocks) {
    list.reason = fmt::format("not known for the {} without it: run --dry-run on it lists them", gpu.key);
    return list;
  }
  const GpuSpec::ClockRange& r = *gpu.locked_sm_clocks;
  for (int mhz = r.highest_mhz; mhz >= r.lowest_mhz; mhz -= r.step_mhz) list.mhz.push_back(mhz);
  return list;
}

SmClockList first_gpu_sm_clocks() {
  char pci[32] = {};
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0 || cudaDeviceGetPCIBusId(pci, sizeof pci, 0) != cudaSuccess) {
    cudaGetLastError();
    SmClockList none;
    none.reason = "no GPU here (occbench plan --gpu h100 lists the clocks the GPU table knows)";
    return none;
  }
  return local_sm_clocks(pci);
}

bool uses_sm_clock_axis(const SweepSpec& spec) { return !sm_clock_uses(spec).empty(); }

std::string check_sm_clocks(const SweepSpec& spec, const SmClockList& clocks, const std::string& gpu) {
  if (clocks.mhz.empty())
    return fmt::format("sm_clock_mhz: the SM clocks of {} cannot be listed: {}; a point whose clock cannot be locked is skipped\n",
                       gpu, clocks.reason);
  for (const auto& [path, values] : sm_clock_uses(spec))
    for (std::int64_t mhz : values)
      if (mhz != kDefaultClocks && !sm_clock_supported(int(mhz), clocks.mhz))
        throw ConfigError(spec.source, path,
                          fmt::format("expected 0 (the driver's default clocks) or an SM clock {} supports, {} ({}); got {}",
                                      gpu, describe_sm_clocks(clocks.mhz), clocks.source, mhz));
  std::string range = describe_sm_clocks(clocks.mhz);
  bool regular = range.find(" every ") != std::string::npos;  // else every clock is listed
  return fmt::format("sm_clock_mhz: {} supports {} ({}){}\n", gpu, range, clocks.source, regular ? "" : ": " + clock_text(clocks.mhz));
}

}  // namespace occbench
