#pragma once
// The sm_clock_mhz harness axis (harness/family/harness_axes.hpp): the GPU's SM clock locked
// through NVML for a point and given back to the driver's default after it. The GPU is left as it
// was found also when the run is interrupted (SIGINT, SIGTERM: the handler resets the clock),
// loses its CUDA context (device_lost) or is killed: a lock writes a marker file first and the
// reset removes it, so the next run on that GPU finds a marker left behind and resets the clock.
// The power limit is never touched.
#include "harness/measure/observer.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

// What locks the clock: NVML on a GPU, a stand-in in the CPU tests.
class SmClockControl {
 public:
  virtual ~SmClockControl() = default;
  virtual std::vector<int> supported_mhz(std::string& why) = 0;  // highest first; empty with `why`
  virtual std::string lock(int mhz) = 0;                          // "" or the reason it failed
  virtual std::string reset() = 0;
};
// NVML's control of the GPU at a PCI bus id, or nullptr with `why`.
std::unique_ptr<SmClockControl> nvml_sm_clock_control(const std::string& pci_bus_id, std::string& why);

// "345 to 1980 MHz every 15 MHz (110 clocks)"; whether `mhz` lies in the supported range.
std::string describe_sm_clocks(const std::vector<int>& supported_mhz);
bool sm_clock_supported(int mhz, const std::vector<int>& supported_mhz);

// The marker of a lock on the GPU at `pci_bus_id` (in the system's temporary folder).
std::string sm_clock_marker_path(const std::string& pci_bus_id);
// Resets the clock of a lock that a killed run left (its marker); says what it did, "" when no
// marker was there.
std::string restore_left_sm_clock(const std::string& pci_bus_id, SmClockControl* control = nullptr);

using SmClockControlFactory = std::function<std::unique_ptr<SmClockControl>(std::string& why)>;

// Locks the clock a point asks for before it is prepared (a point it cannot lock for is skipped
// with the reason), resets it before the next point that asks for none and at the end, and adds
// the point's sm_clock section: the clock asked for, the clock measured on the GPU right after
// the timed samples (cycles over the global timer), and NVML's readings during them.
class SmClockObserver : public PointObserver {
 public:
  // `open` makes the control on the first point that asks for a clock; `start_sm_mhz`, the run's
  // start clock, judges the points at the default clocks.
  SmClockObserver(SmClockControlFactory open, std::string pci_bus_id, std::optional<double> start_sm_mhz = std::nullopt);
  ~SmClockObserver() override;
  std::string before_point(const Point& point) override;
  void after_samples(const SampledPoint& point, const SharedRecord& record) override;
  void device_lost(const std::string& reason) override;

 private:
  std::string lock(int mhz);
  std::string reset();  // "" once the default is back (or nothing was locked), else why not
  SmClockControlFactory open_;
  std::string pci_bus_id_;
  std::unique_ptr<SmClockControl> control_;
  std::string open_failure_;
  int locked_mhz_ = 0;  // 0: the driver's default
  int asked_mhz_ = 0;   // the current point's
  std::optional<double> start_sm_mhz_;
};

}  // namespace occbench
