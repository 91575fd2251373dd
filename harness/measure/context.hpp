#pragma once
// What measuring a point needs from its run: the device and its ceilings, the settings, the
// stream, the L2 flusher, the CUPTI profiler, and where a lost CUDA context is said.
#include "harness/measure/device.hpp"
#include "harness/measure/settings.hpp"

#include <cuda_runtime_api.h>

#include <string>

namespace occbench {

class L2Flusher;
class CounterSession;
class EnergyMeter;

// Whether the device can still run anything: once a kernel faults, the CUDA context is lost and
// every later point is recorded with the reason instead of being run.
struct DeviceHealth {
  std::string lost_reason;  // "" while the device can run
  bool lost() const { return !lost_reason.empty(); }
};

struct PointContext {
  const DeviceInfo* device = nullptr;
  const MeasurementSettings* settings = nullptr;
  cudaStream_t stream = nullptr;
  L2Flusher* flusher = nullptr;
  CounterSession* counters = nullptr;         // run --counters: counted after the timing (CounterObserver)
  CounterSession* timing_profiler = nullptr;  // times cold samples by gpu__time_duration (time_device)
  DeviceHealth* health = nullptr;             // where an observer says the context was lost
  EnergyMeter* energy = nullptr;              // run --energy: a window after the timing (EnergyObserver)
};

}  // namespace occbench
