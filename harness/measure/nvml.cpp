#include "harness/measure/nvml.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <map>

namespace occbench {

// The entry points used, with NVML's C types spelled as the ABI has them (nvml.h is not part of
// every CUDA toolkit): handles are pointers, return codes ints (0 success), enums ints.
struct Nvml::Api {
  int (*init)() = nullptr;
  const char* (*error_string)(int) = nullptr;
  int (*by_pci)(const char*, void**) = nullptr;
  int (*clock)(void*, int, unsigned*) = nullptr;
  int (*reasons)(void*, unsigned long long*) = nullptr;
  int (*energy)(void*, unsigned long long*) = nullptr;  // millijoules
  int (*driver_version)(char*, unsigned) = nullptr;
  std::map<std::string, void*> handles;  // by PCI bus id: the lookup is slower than a reading
};

namespace {
template <typename F>
void resolve(void* library, F& f, const char* name) {
  f = reinterpret_cast<F>(dlsym(library, name));
}
}  // namespace

Nvml::~Nvml() = default;  // NVML stays loaded: the process ends with it

Nvml::Nvml() : api_(std::make_unique<Api>()) {
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    reason_ = fmt::format("libnvidia-ml.so.1 (the driver's NVML) cannot be loaded: {}", dlerror());
    return;
  }
  Api& a = *api_;
  resolve(library, a.init, "nvmlInit_v2");
  resolve(library, a.error_string, "nvmlErrorString");
  resolve(library, a.by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  resolve(library, a.clock, "nvmlDeviceGetClockInfo");
  resolve(library, a.reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!a.reasons) resolve(library, a.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  resolve(library, a.energy, "nvmlDeviceGetTotalEnergyConsumption");
  resolve(library, a.driver_version, "nvmlSystemGetDriverVersion");
  if (!a.init || !a.by_pci || !a.clock) {
    reason_ = "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or nvmlDeviceGetClockInfo";
    return;
  }
  if (int code = a.init(); code != 0) reason_ = fmt::format("nvmlInit failed: {}", error_text(code));
}

Nvml& Nvml::get() {
  static Nvml nvml;
  return nvml;
}

std::string Nvml::error_text(int code) const {
  const char* text = api_->error_string ? api_->error_string(code) : nullptr;
  return text ? fmt::format("{} (NVML {})", text, code) : fmt::format("NVML error {}", code);
}

void* Nvml::device(const std::string& pci_bus_id, std::string* why) {
  if (!available()) {
    if (why) *why = reason_;
    return nullptr;
  }
  if (auto found = api_->handles.find(pci_bus_id); found != api_->handles.end()) return found->second;
  void* handle = nullptr;
  if (int code = api_->by_pci(pci_bus_id.c_str(), &handle); code != 0) {
    if (why) *why = fmt::format("no NVML device at PCI {}: {}", pci_bus_id, error_text(code));
    return nullptr;
  }
  return api_->handles[pci_bus_id] = handle;
}

ClockReading Nvml::clocks(void* device) {
  ClockReading reading;
  if (!device) return reading;
  constexpr int kClockSm = 1, kClockMem = 2;  // nvmlClockType_t
  unsigned mhz = 0;
  if (api_->clock(device, kClockSm, &mhz) == 0) reading.sm_mhz = mhz;
  if (api_->clock(device, kClockMem, &mhz) == 0) reading.memory_mhz = mhz;
  unsigned long long bits = 0;
  if (api_->reasons && api_->reasons(device, &bits) == 0) reading.throttle_reasons = bits;
  return reading;
}

std::optional<double> Nvml::total_energy_j(void* device, std::string& why) {
  if (!device) return std::nullopt;
  if (!api_->energy) {
    why = "libnvidia-ml.so.1 lacks nvmlDeviceGetTotalEnergyConsumption (a driver older than Volta's)";
    return std::nullopt;
  }
  unsigned long long mj = 0;
  if (int code = api_->energy(device, &mj); code != 0) {
    why = fmt::format("nvmlDeviceGetTotalEnergyConsumption: {}", error_text(code));
    return std::nullopt;
  }
  return double(mj) * 1e-3;
}

std::string Nvml::driver_version() {
  char text[96] = {};
  if (!available() || !api_->driver_version || api_->driver_version(text, sizeof text) != 0) return "";
  return text;
}

}  // namespace occbench
