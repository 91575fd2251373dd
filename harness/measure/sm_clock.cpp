#include "harness/measure/sm_clock.hpp"

#include "harness/core/files.hpp"
#include "harness/family/harness_axes.hpp"
#include "harness/measure/nvml.hpp"
#include "harness/measure/timer_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <unistd.h>

namespace occbench {

namespace {

class NvmlSmClockControl : public SmClockControl {
 public:
  explicit NvmlSmClockControl(void* device) : device_(device) {}
  std::vector<int> supported_mhz(std::string& why) override { return Nvml::get().supported_sm_clocks_mhz(device_, why); }
  std::string lock(int mhz) override { return Nvml::get().lock_sm_clock(device_, mhz); }
  std::string reset() override { return Nvml::get().reset_sm_clock(device_); }

 private:
  void* device_;
};

// The lock in force, for the signal handler: it resets the clock, removes the marker and lets the
// signal end the process as it would have. NVML is not async-signal-safe; a reset on the way out
// is still better than a GPU left locked (the marker covers a handler that cannot finish).
SmClockControl* g_locked_control = nullptr;
char g_marker_path[512] = {};

extern "C" void reset_on_signal(int signal_number) {
  if (g_locked_control) g_locked_control->reset();
  if (g_marker_path[0]) unlink(g_marker_path);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

void install_signal_reset(SmClockControl* control, const std::string& marker) {
  static bool installed = false;
  std::snprintf(g_marker_path, sizeof g_marker_path, "%s", marker.c_str());
  g_locked_control = control;
  if (installed) return;
  installed = true;
  std::signal(SIGINT, reset_on_signal);
  std::signal(SIGTERM, reset_on_signal);
}

}  // namespace

std::unique_ptr<SmClockControl> nvml_sm_clock_control(const std::string& pci_bus_id, std::string& why) {
  void* device = Nvml::get().device(pci_bus_id, &why);
  if (!device) return nullptr;
  return std::make_unique<NvmlSmClockControl>(device);
}

std::string describe_sm_clocks(const std::vector<int>& mhz) {
  if (mhz.empty()) return "none listed";
  auto [low, high] = std::minmax_element(mhz.begin(), mhz.end());
  std::vector<int> sorted(mhz);
  std::sort(sorted.begin(), sorted.end());
  int step = sorted.size() > 1 ? sorted[1] - sorted[0] : 0;
  for (std::size_t i = 1; i < sorted.size(); ++i) step = sorted[i] - sorted[i - 1] == step ? step : 0;
  return step > 0 ? fmt::format("{} to {} MHz every {} MHz ({} clocks)", *low, *high, step, mhz.size())
                  : fmt::format("{} to {} MHz ({} clocks)", *low, *high, mhz.size());
}

bool sm_clock_supported(int mhz, const std::vector<int>& supported) {
  if (supported.empty()) return false;
  auto [low, high] = std::minmax_element(supported.begin(), supported.end());
  return mhz >= *low && mhz <= *high;
}

std::string sm_clock_marker_path(const std::string& pci_bus_id) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  return (dir / ("occbench-sm-clock-" + pci_bus_id + ".lock")).string();
}

std::string restore_left_sm_clock(const std::string& pci_bus_id, SmClockControl* control) {
  std::string marker = sm_clock_marker_path(pci_bus_id);
  std::error_code ec;
  if (!std::filesystem::exists(marker, ec)) return "";
  std::string left = read_file(marker).value_or("no note");
  std::unique_ptr<SmClockControl> own;
  std::string why;
  if (!control) control = (own = nvml_sm_clock_control(pci_bus_id, why)).get();
  std::string failed = control ? control->reset() : why;
  if (!failed.empty()) return fmt::format("a run left the SM clock locked ({}) and it could not be reset: {}", left, failed);
  std::filesystem::remove(marker, ec);
  return fmt::format("a run left the SM clock locked ({}); reset to the driver's default", left);
}

SmClockObserver::SmClockObserver(SmClockControlFactory open, std::string pci_bus_id, std::optional<double> start_sm_mhz)
    : open_(std::move(open)), pci_bus_id_(std::move(pci_bus_id)), start_sm_mhz_(start_sm_mhz) {}

SmClockObserver::~SmClockObserver() { reset(); }

std::string SmClockObserver::before_point(const Point& point) {
  bool device_variant = point.variant->executor == Executor::device;
  asked_mhz_ = device_variant && point.params.has(kSmClockAxis) ? int(point.params.get(kSmClockAxis)) : kDefaultClocks;
  if (asked_mhz_ == kDefaultClocks) {
    std::string failed = reset();
    return failed.empty() ? "" : fmt::format("sm_clock_mhz 0: the default SM clock cannot be restored: {}", failed);
  }
  if (asked_mhz_ == locked_mhz_) return "";
  std::string failed = lock(asked_mhz_);
  return failed.empty() ? "" : fmt::format("sm_clock_mhz {}: the SM clock cannot be locked: {}", asked_mhz_, failed);
}

std::string SmClockObserver::lock(int mhz) {
  if (!control_ && open_failure_.empty()) {
    control_ = open_(open_failure_);
    if (!control_ && open_failure_.empty()) open_failure_ = "no NVML control of this GPU";
  }
  if (!control_) return open_failure_;
  std::string marker = sm_clock_marker_path(pci_bus_id_);
  write_text_file(marker, fmt::format("{} MHz by process {}", mhz, getpid()));
  install_signal_reset(control_.get(), marker);
  std::string failed = control_->lock(mhz);
  if (!failed.empty()) {
    reset();
    return failed;
  }
  locked_mhz_ = mhz;
  return "";
}

std::string SmClockObserver::reset() {
  if (!control_ || g_locked_control != control_.get()) return "";
  std::string failed = control_->reset();
  if (!failed.empty()) return failed;  // still locked: the marker stays for the next run
  g_locked_control = nullptr;
  std::error_code ec;
  std::filesystem::remove(sm_clock_marker_path(pci_bus_id_), ec);
  locked_mhz_ = kDefaultClocks;
  return "";
}

void SmClockObserver::after_samples(const SampledPoint& point, const SharedRecord& record) {
  if (!point.on_device || !point.point.params.has(kSmClockAxis)) return;
  nlohmann::ordered_json& json = record->json;
  nlohmann::ordered_json conditions = json["timing"].value("conditions", nlohmann::ordered_json::object());
  // Right after the samples, while the clock is still where they ran it.
  double measured_mhz = measure_sm_clock_mhz(point.stream);
  json["sm_clock"] = {{"asked_mhz", asked_mhz_},
                      {"locked", locked_mhz_ != kDefaultClocks},
                      {"observed_sm_mhz", measured_mhz},
                      {"nvml_sm_mhz_min", conditions.value("sm_mhz_min", nlohmann::ordered_json())},
                      {"nvml_sm_mhz_max", conditions.value("sm_mhz_max", nlohmann::ordered_json())}};
  if (!json["timing"].contains("conditions")) return;
  // NVML's clock reading lags a lock or a reset by up to a second: the clock measured on the GPU
  // judges these points instead, and a clock asked for is not a condition to flag.
  nlohmann::ordered_json kept = nlohmann::ordered_json::array();
  for (const auto& flag : conditions["flags"])
    if (flag.get<std::string>().rfind("SM clock ", 0) != 0) kept.push_back(flag);
  double start_mhz = start_sm_mhz_.value_or(0);
  if (locked_mhz_ == kDefaultClocks && start_mhz > 0 && measured_mhz < 0.97 * start_mhz)
    kept.push_back(fmt::format("SM clock {:.0f} MHz (measured on the GPU) below the run's start clock {:.0f} MHz", measured_mhz, start_mhz));
  json["timing"]["conditions"]["flags"] = kept;
}

void SmClockObserver::device_lost(const std::string&) { reset(); }

}  // namespace occbench
