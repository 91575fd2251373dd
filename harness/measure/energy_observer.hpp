#pragma once
// The observer that adds the energy section to every device point (run --energy,
// measurement.energy): after its timed samples, the point's launches run back to back through
// one window of the energy meter (harness/measure/energy.hpp), with the throttle reasons NVML
// gave during it; a second window where the counter and the driver's power samples disagree.
#include "harness/measure/device.hpp"
#include "harness/measure/energy.hpp"
#include "harness/measure/observer.hpp"

#include <utility>

namespace occbench {

class EnergyObserver : public PointObserver {
 public:
  EnergyObserver(EnergyMeter& meter, const DeviceInfo& device) : meter_(meter), device_(device) {}
  void after_samples(const SampledPoint& point, const SharedRecord& record) override;

 private:
  std::pair<EnergyWindow, unsigned long long> measure_window(const SampledPoint& point);
  EnergyMeter& meter_;
  const DeviceInfo& device_;
};

}  // namespace occbench
