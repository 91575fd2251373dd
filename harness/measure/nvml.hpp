#pragma once
// NVML, the driver's management library, loaded at run time (the binary needs no NVML to link or
// to start: CI and GPU-less machines have none): the GPU's clocks and throttle reasons, its energy
// counter, the driver's version. One process-wide instance.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

struct ClockReading {
  std::optional<double> sm_mhz;       // current clocks, from NVML when the driver has it
  std::optional<double> memory_mhz;
  // nvmlDeviceGetCurrentClocksEventReasons bits (0x1 idle, 0x4 software power cap, 0x8 hardware
  // slowdown, ...): why the clocks are below their maximum right now.
  std::optional<unsigned long long> throttle_reasons;
};

class Nvml {
 public:
  static Nvml& get();  // loaded and initialized on first use
  bool available() const { return reason_.empty(); }
  const std::string& unavailable_reason() const { return reason_; }

  // The device of a PCI bus id ("0000:00:06.0", cudaDeviceProp's), or nullptr with `why`.
  void* device(const std::string& pci_bus_id, std::string* why = nullptr);
  ClockReading clocks(void* device);
  // The energy the GPU used since the driver loaded, in joules; nullopt with `why` (not supported
  // on this GPU, no permission, ...).
  std::optional<double> total_energy_j(void* device, std::string& why);
  // The driver's own power samples since `since_us` (microseconds of the system clock since the
  // epoch, as their timestamps): (timestamp in seconds, watts), oldest first
  // (nvmlDeviceGetSamples, NVML_TOTAL_POWER_SAMPLES); empty with `why`.
  std::vector<std::pair<double, double>> power_samples(void* device, unsigned long long since_us, std::string& why);
  // The GPU die's temperature in degrees Celsius (nvmlDeviceGetTemperature, NVML_TEMPERATURE_GPU),
  // or nullopt where the driver does not say.
  std::optional<double> temperature_c(void* device);
  // The power limit the board enforces now, in watts (nvmlDeviceGetEnforcedPowerLimit; read only:
  // occbench never sets it), or nullopt where the driver does not say.
  std::optional<double> power_limit_w(void* device);
  // The SM clocks the GPU can be locked to at its highest memory clock, highest first; empty with `why`.
  std::vector<int> supported_sm_clocks_mhz(void* device, std::string& why);
  // Locks the SM clock to `mhz` (nvmlDeviceSetGpuLockedClocks, min = max) / back to the driver's
  // default (nvmlDeviceResetGpuLockedClocks); "" on success, else NVML's reason.
  std::string lock_sm_clock(void* device, int mhz);
  std::string reset_sm_clock(void* device);
  std::string driver_version();
  std::string error_text(int code) const;

 private:
  Nvml();
  ~Nvml();
  struct Api;
  std::unique_ptr<Api> api_;
  std::string reason_;
};

}  // namespace occbench
