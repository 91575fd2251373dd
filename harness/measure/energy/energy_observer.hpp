#pragma once
// The observer that adds the energy section to every device point (run --energy,
// measurement.energy): after its timed samples, the point's launches run back to back through
// one window of the energy meter (harness/measure/energy/energy.hpp), with the throttle reasons NVML
// gave during it; a second window where the counter and the driver's power samples disagree; and
// at the board's power limit, a window over a whole cycle of its controller once the cap engaged.
#include "harness/measure/device.hpp"
#include "harness/measure/energy/energy.hpp"
#include "harness/measure/observer.hpp"

#include <optional>
#include <utility>

namespace occbench {

class EnergyObserver : public PointObserver {
 public:
  EnergyObserver(EnergyMeter& meter, const DeviceInfo& device) : meter_(meter), device_(device) {}
  void after_samples(const SampledPoint& point, const SharedRecord& record) override;

 private:
  struct Reading {
    EnergyWindow window;
    std::optional<EnergyWindow> other;  // measured again, the counter disagreeing with its samples
    unsigned long long throttle_reasons = 0;
    int windows() const { return other ? 2 : 1; }
  };
  std::pair<EnergyWindow, unsigned long long> measure_window(const SampledPoint& point, double min_window_s);
  Reading read(const SampledPoint& point, double min_window_s);
  std::pair<double, bool> run_until_power_capped(const SampledPoint& point);
  static nlohmann::ordered_json summary(const Reading& r);
  EnergyMeter& meter_;
  const DeviceInfo& device_;
};

}  // namespace occbench
