#include "harness/measure/nvml.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
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
  int (*temperature)(void*, int, unsigned*) = nullptr;  // nvmlDeviceGetTemperature
  int (*power_limit)(void*, unsigned*) = nullptr;       // nvmlDeviceGetEnforcedPowerLimit, milliwatts
  int (*driver_version)(char*, unsigned) = nullptr;
  int (*samples)(void*, int, unsigned long long, int*, unsigned*, void*) = nullptr;  // nvmlDeviceGetSamples
  int (*memory_clocks)(void*, unsigned*, unsigned*) = nullptr;
  int (*sm_clocks)(void*, unsigned, unsigned*, unsigned*) = nullptr;
  int (*lock_clocks)(void*, unsigned, unsigned) = nullptr;
  int (*reset_clocks)(void*) = nullptr;
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
  resolve(library, a.temperature, "nvmlDeviceGetTemperature");
  resolve(library, a.power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  resolve(library, a.driver_version, "nvmlSystemGetDriverVersion");
  resolve(library, a.samples, "nvmlDeviceGetSamples");
  resolve(library, a.memory_clocks, "nvmlDeviceGetSupportedMemoryClocks");
  resolve(library, a.sm_clocks, "nvmlDeviceGetSupportedGraphicsClocks");
  resolve(library, a.lock_clocks, "nvmlDeviceSetGpuLockedClocks");
  resolve(library, a.reset_clocks, "nvmlDeviceResetGpuLockedClocks");
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

std::optional<double> Nvml::temperature_c(void* device) {
  unsigned celsius = 0;
  constexpr int kGpuSensor = 0;  // NVML_TEMPERATURE_GPU
  if (!device || !api_->temperature || api_->temperature(device, kGpuSensor, &celsius) != 0) return std::nullopt;
  return double(celsius);
}

std::optional<double> Nvml::power_limit_w(void* device) {
  unsigned milliwatts = 0;
  if (!device || !api_->power_limit || api_->power_limit(device, &milliwatts) != 0) return std::nullopt;
  return milliwatts * 1e-3;
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

namespace {
// nvmlSample_t as the ABI lays it out: a timestamp and an 8-byte value union.
struct Sample {
  unsigned long long timestamp_us;
  union {
    double d;
    unsigned u;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
  } value;
};
static_assert(sizeof(Sample) == 16, "nvmlSample_t is 16 bytes");
constexpr int kTotalPowerSamples = 0;  // NVML_TOTAL_POWER_SAMPLES, milliwatts

double sample_number(const Sample& s, int value_type) {
  switch (value_type) {  // nvmlValueType_t
    case 0: return s.value.d;
    case 1: return double(s.value.u);
    case 2: return double(s.value.ul);
    case 3: return double(s.value.ull);
    default: return double(s.value.sll);
  }
}
}  // namespace

std::vector<std::pair<double, double>> Nvml::power_samples(void* device, unsigned long long since_us, std::string& why) {
  std::vector<std::pair<double, double>> out;
  if (!device) return out;
  if (!api_->samples) {
    why = "libnvidia-ml.so.1 lacks nvmlDeviceGetSamples";
    return out;
  }
  int value_type = 0;
  unsigned count = 0;
  if (int code = api_->samples(device, kTotalPowerSamples, since_us, &value_type, &count, nullptr); code != 0) {
    why = fmt::format("nvmlDeviceGetSamples(power): {}", error_text(code));
    return out;
  }
  std::vector<Sample> samples(count);
  if (int code = api_->samples(device, kTotalPowerSamples, since_us, &value_type, &count, samples.data()); code != 0) {
    why = fmt::format("nvmlDeviceGetSamples(power): {}", error_text(code));
    return out;
  }
  for (unsigned i = 0; i < count && i < samples.size(); ++i)
    out.emplace_back(samples[i].timestamp_us * 1e-6, sample_number(samples[i], value_type) * 1e-3);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> Nvml::supported_sm_clocks_mhz(void* device, std::string& why) {
  if (!device) return {};
  if (!api_->memory_clocks || !api_->sm_clocks) {
    why = "libnvidia-ml.so.1 lacks nvmlDeviceGetSupportedMemoryClocks or nvmlDeviceGetSupportedGraphicsClocks";
    return {};
  }
  unsigned memory[64] = {}, memory_count = 64;
  if (int code = api_->memory_clocks(device, &memory_count, memory); code != 0 || memory_count == 0) {
    why = fmt::format("nvmlDeviceGetSupportedMemoryClocks: {}", code ? error_text(code) : "none listed");
    return {};
  }
  unsigned top_memory = *std::max_element(memory, memory + memory_count);
  std::vector<unsigned> sm(1024);
  unsigned sm_count = unsigned(sm.size());
  if (int code = api_->sm_clocks(device, top_memory, &sm_count, sm.data()); code != 0) {
    why = fmt::format("nvmlDeviceGetSupportedGraphicsClocks: {}", error_text(code));
    return {};
  }
  std::vector<int> mhz(sm.begin(), sm.begin() + sm_count);
  std::sort(mhz.rbegin(), mhz.rend());
  return mhz;
}

std::string Nvml::lock_sm_clock(void* device, int mhz) {
  if (!device) return reason_.empty() ? "no NVML device" : reason_;
  if (!api_->lock_clocks) return "libnvidia-ml.so.1 lacks nvmlDeviceSetGpuLockedClocks";
  int code = api_->lock_clocks(device, unsigned(mhz), unsigned(mhz));
  return code == 0 ? "" : fmt::format("nvmlDeviceSetGpuLockedClocks({0}, {0}): {1}", mhz, error_text(code));
}

std::string Nvml::reset_sm_clock(void* device) {
  if (!device) return reason_.empty() ? "no NVML device" : reason_;
  if (!api_->reset_clocks) return "libnvidia-ml.so.1 lacks nvmlDeviceResetGpuLockedClocks";
  int code = api_->reset_clocks(device);
  return code == 0 ? "" : fmt::format("nvmlDeviceResetGpuLockedClocks: {}", error_text(code));
}

std::string Nvml::driver_version() {
  char text[96] = {};
  if (!available() || !api_->driver_version || api_->driver_version(text, sizeof text) != 0) return "";
  return text;
}

}  // namespace occbench
