#include "harness/measure/energy/energy.hpp"

#include "harness/core/optional_number.hpp"
#include "harness/measure/nvml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace occbench {

namespace {

using ordered_json = nlohmann::ordered_json;

class NvmlEnergyReadings : public EnergyReadings {
 public:
  explicit NvmlEnergyReadings(void* device) : device_(device) {}
  std::optional<double> counter_j(std::string& why) override { return Nvml::get().total_energy_j(device_, why); }
  std::vector<std::pair<double, double>> power_samples(double since_s, std::string& why) override {
    return Nvml::get().power_samples(device_, (unsigned long long)(since_s * 1e6), why);
  }
  std::optional<double> temperature_c() override { return Nvml::get().temperature_c(device_); }
  std::optional<double> power_limit_w() override { return Nvml::get().power_limit_w(device_); }

 private:
  void* device_;
};

// Enough changes to learn the period from (three intervals: a late change spoils two of them,
// one long and one short, and the median is the third); the calibration stops once it has seen them.
constexpr int kCalibrationUpdates = 4;

// Past the window's expected close the queue holds only a margin, so that finish() waits briefly
// for what is left.
constexpr double kPastCloseS = 0.010;

// The mean of the samples taken within [from_s, to_s]; (count, mean).
std::pair<int, double> mean_within(const std::vector<std::pair<double, double>>& samples, double from_s, double to_s) {
  int count = 0;
  double sum = 0;
  for (const auto& [t, watts] : samples)
    if (t >= from_s && t <= to_s) {
      sum += watts;
      ++count;
    }
  return {count, count ? sum / count : 0.0};
}

double median_of(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace

double EnergyReadings::now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
void EnergyReadings::pause_s(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }
double EnergyReadings::epoch_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::unique_ptr<EnergyReadings> nvml_energy_readings(const std::string& pci_bus_id, std::string& why) {
  void* device = Nvml::get().device(pci_bus_id, &why);
  if (!device) return nullptr;
  return std::make_unique<NvmlEnergyReadings>(device);
}

CounterCalibration calibrate_counter(const std::vector<std::pair<double, double>>& readings) {
  CounterCalibration c;
  std::vector<std::pair<double, double>> changes;
  for (std::size_t i = 1; i < readings.size(); ++i)
    if (readings[i].second != readings[i - 1].second) changes.push_back(readings[i]);
  c.updates = int(changes.size());
  if (changes.size() < 3) {
    double span = readings.empty() ? 0 : readings.back().first - readings.front().first;
    c.reason = fmt::format("the energy counter changed {} time(s) in {:.2f} s of readings: too few to learn its update period",
                           changes.size(), span);
    return c;
  }
  c.span_s = changes.back().first - changes.front().first;
  // The median interval: the host sees a change late now and then (19 ms once on the H100), which
  // lengthens one interval and shortens the next but moves the median little. The first-to-last
  // span over the count did not: one late last change put every watt of a run 3.8% low.
  for (std::size_t i = 1; i < changes.size(); ++i) c.intervals_s.push_back(changes[i].first - changes[i - 1].first);
  c.period_s = median_of(c.intervals_s);
  c.idle_w = (changes.back().second - changes.front().second) / (double(changes.size() - 1) * c.period_s);
  return c;
}

int chunks_to_queue(int queued, double queued_ahead_s, double ahead_s, double chunk_s) {
  constexpr int kMostQueued = 32;
  int missing = queued == 0 ? 1 : 0;
  if (ahead_s > queued_ahead_s && chunk_s > 0) missing = std::max(missing, int(std::ceil((ahead_s - queued_ahead_s) / chunk_s)));
  return std::clamp(missing, 0, std::max(0, kMostQueued - queued));
}

double second_window_s_from_environment() {
  const char* text = std::getenv("OCCBENCH_ENERGY_SECOND_WINDOW_S");
  if (!text || !*text) return 0;
  char* end = nullptr;
  double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds >= 0.05 && seconds <= 60))
    throw std::invalid_argument(fmt::format("OCCBENCH_ENERGY_SECOND_WINDOW_S: expected seconds from 0.05 to 60, got '{}'", text));
  return seconds;
}

int counter_periods(double window_s, double period_s, double launch_s) {
  if (period_s <= 0) return 1;
  return std::max({1, int(std::lround(window_s / period_s)), int(std::lround(launch_s / period_s))});
}

EnergyMeter::EnergyMeter(std::unique_ptr<EnergyReadings> readings, const EnergySettings& settings,
                         std::string unavailable_reason)
    : readings_(std::move(readings)), settings_(settings), reason_(std::move(unavailable_reason)) {
  if (reason_.empty() && !readings_) reason_ = "no energy readings";
  if (reason_.empty()) calibrate();
  if (reason_.empty()) power_limit_w_ = readings_->power_limit_w();
}

void EnergyMeter::calibrate() {
  std::vector<std::pair<double, double>> readings;
  double t0 = readings_->now_s();
  auto seconds_since = [&](double t) { return readings_->now_s() - t; };
  int changes = 0;
  while (seconds_since(t0) < settings_.calibration_s && changes < kCalibrationUpdates) {
    std::string why;
    std::optional<double> joules = readings_->counter_j(why);
    if (!joules) {
      reason_ = why;
      return;
    }
    if (!readings.empty() && *joules != readings.back().second) ++changes;
    readings.emplace_back(seconds_since(t0), *joules);
    readings_->pause_s(settings_.calibration_poll_s);
  }
  calibration_ = calibrate_counter(readings);
  reason_ = calibration_.reason;
  intervals_s_ = calibration_.intervals_s;
  period_s_ = calibration_.period_s;
}

// Every window's consecutive steps add to the intervals the period is the median of: over a run
// it is known far better than from the calibration's few, whose error would be every window's.
void EnergyMeter::learn_interval(double interval_s) {
  constexpr std::size_t kKept = 400;
  if (intervals_s_.size() >= kKept) intervals_s_.erase(intervals_s_.begin());
  intervals_s_.push_back(interval_s);
  period_s_ = median_of(intervals_s_);
}

DatedSteps first_step(const CounterStep& change, double period_s) {
  constexpr double kOnTimeShare = 0.25;
  double gap_s = change.seen_s - change.read_before_s;
  return {1, change.seen_s, gap_s, gap_s <= kOnTimeShare * period_s};
}

DatedSteps date_steps(const DatedSteps& last, const CounterStep& change, double period_s) {
  constexpr double kJitterShare = 0.02;
  DatedSteps d = first_step(change, period_s);
  if (d.on_time) return d;  // a quarter period holds one step at most
  // The last step fell up to its error before its date: every period from then to the read.
  d.updates = std::max(1, int(std::floor((change.seen_s - last.step_s + last.error_s) / period_s + kJitterShare)));
  d.step_s = last.step_s + d.updates * period_s;
  d.error_s = last.error_s;
  return d;
}

EnergyWindow EnergyMeter::measure(BusyWork& work, double launch_s, double min_window_s) {
  EnergyWindow w;
  auto unavailable = [&](const std::string& why, double wall_s) {
    w.status = "unavailable";
    w.reason = why;
    w.wall_s = wall_s;
    return w;
  };
  if (!available()) return unavailable(reason_, 0);
  double t0 = readings_->now_s();
  auto seconds_since = [&](double t) { return readings_->now_s() - t; };
  std::string why;
  std::optional<double> before = readings_->counter_j(why);
  if (!before) return unavailable(why, seconds_since(t0));
  w.counter_periods = counter_periods(std::max(settings_.window_s, min_window_s), period_s_, launch_s);
  double timeout_s = (w.counter_periods + 4) * period_s_ + 1.0;
  double last = *before, opened_j = 0, opened_s = 0, closed_s = 0;
  int steps = -1;  // the first step opens the window
  double opened_t = t0, read_t = t0;
  DatedSteps newest;
  // Until the window opens its close is at most a period plus the window away.
  auto ahead_s = [&] {
    double close_in_s = steps < 0 ? (w.counter_periods + 1) * period_s_ - seconds_since(t0)
                                  : w.counter_periods * period_s_ - seconds_since(opened_t);
    return std::clamp(close_in_s + kPastCloseS, 0.0, kQueueAheadS);
  };
  work.keep_busy(ahead_s());
  while (steps < w.counter_periods) {
    if (seconds_since(t0) > timeout_s) {
      work.finish();
      return unavailable(fmt::format("the energy counter did not step {} times in {:.1f} s of launches", w.counter_periods + 1, timeout_s),
                         seconds_since(t0));
    }
    readings_->pause_s(settings_.poll_s);
    work.keep_busy(ahead_s());
    std::optional<double> joules = readings_->counter_j(why);
    if (!joules) {
      work.finish();
      return unavailable(why, seconds_since(t0));
    }
    CounterStep change{readings_->now_s(), read_t};
    read_t = change.seen_s;
    if (*joules == last) continue;
    last = *joules;
    if (++steps == 0) {
      opened_j = *joules;
      opened_s = readings_->epoch_s();
      opened_t = change.seen_s;
      newest = first_step(change, period_s_);
      continue;
    }
    DatedSteps dated = date_steps(newest, change, period_s_);
    if (dated.updates == 1 && dated.on_time && newest.on_time) learn_interval(dated.step_s - newest.step_s);
    steps += dated.updates - 1;
    newest = dated;
  }
  w.counter_periods = steps;  // more than asked where a late poll's change held two updates
  closed_s = readings_->epoch_s();
  w.temperature_c = readings_->temperature_c();
  BusyStretch stretch = work.finish();
  w.window_s = w.counter_periods * period_s_;
  w.energy_j = last - opened_j;
  w.average_w = w.energy_j / w.window_s;
  w.launches = stretch.launches;
  w.busy_s = stretch.busy_s;
  w.launch_ms = stretch.launches > 0 ? stretch.busy_s * 1e3 / double(stretch.launches) : 0;
  w.host_enqueue_us_per_launch = stretch.launches > 0 ? stretch.host_enqueue_s * 1e6 / double(stretch.launches) : 0;
  std::string no_samples;
  std::tie(w.power_samples, w.power_mean_w) = mean_within(readings_->power_samples(opened_s - 1.0, no_samples), opened_s, closed_s);
  w.wall_s = seconds_since(t0);
  return w;
}

ordered_json EnergyMeter::to_json() const {
  ordered_json j = {{"status", available() ? "ok" : "unavailable"}, {"reason", reason_},
                    {"counter", "nvmlDeviceGetTotalEnergyConsumption"}, {"window_s_asked", settings_.window_s}};
  if (!available()) return j;
  j["counter_period_ms"] = calibration_.period_s * 1e3;
  j["counter_period_ms_learned"] = period_s_ * 1e3;  // over every window of the run
  j["counter_intervals_learned"] = intervals_s_.size();
  j["counter_periods_per_window"] = counter_periods(settings_.window_s, calibration_.period_s);
  j["idle_w"] = calibration_.idle_w;
  j["power_limit_w"] = optional_number(power_limit_w_);
  j["idle_span_s"] = calibration_.span_s;
  j["idle_updates"] = calibration_.updates;
  return j;
}

double counter_vs_samples(const EnergyWindow& w) {
  constexpr int kFewestSamples = 5;
  if (w.power_samples < kFewestSamples || w.average_w <= 0) return 0;
  return std::abs(w.power_mean_w / w.average_w - 1);
}

bool counter_disagrees_with_samples(const EnergyWindow& w) {
  constexpr double kRecheckAbove = 0.03;
  return counter_vs_samples(w) > kRecheckAbove;
}

std::pair<EnergyWindow, EnergyWindow> better_window_first(const EnergyWindow& first, const EnergyWindow& again) {
  if (counter_vs_samples(again) < counter_vs_samples(first)) return {again, first};
  return {first, again};
}

bool at_power_limit(const EnergyWindow& w, std::optional<double> power_limit_w, bool power_capped) {
  constexpr double kOverLimit = 1.03, kNearLimit = 0.9;
  if (w.status != "ok") return false;
  if (!power_limit_w || *power_limit_w <= 0) return power_capped;
  // The cap also shows in the window of a kernel well below the limit when the one before left
  // the controller's average high (560 W shared-memory kernels after 740 W ones on the H100):
  // such a window is no part of a cycle of its own.
  return w.average_w > kOverLimit * *power_limit_w || (power_capped && w.average_w >= kNearLimit * *power_limit_w);
}

double joules_per_launch(const EnergyWindow& w) { return w.average_w * w.launch_ms * 1e-3; }

bool host_bound(const EnergyWindow& w) {
  constexpr double kShareOfLaunch = 0.8;
  return w.launch_ms > 0 && w.host_enqueue_us_per_launch >= kShareOfLaunch * w.launch_ms * 1e3;
}

ordered_json energy_unavailable_json(const std::string& reason) { return {{"status", "unavailable"}, {"reason", reason}}; }

ordered_json energy_json(const EnergyWindow& w, double idle_w, double flops, double dram_bytes) {
  if (w.status != "ok") return energy_unavailable_json(w.reason);
  double per_launch_s = w.launch_ms * 1e-3;
  double joules = joules_per_launch(w);
  auto per_joule = [&](double amount) { return joules > 0 && amount > 0 ? ordered_json(amount / 1e9 / joules) : ordered_json(nullptr); };
  ordered_json j = {{"status", "ok"},
                    {"reason", ""},
                    {"window", "hot"},
                    {"joules_per_launch", joules},
                    {"joules_per_launch_above_idle", std::max(0.0, w.average_w - idle_w) * per_launch_s},
                    {"average_w", w.average_w},
                    {"idle_w", idle_w},
                    {"gflop_per_j", per_joule(flops)},
                    {"gb_per_j", per_joule(dram_bytes)},
                    {"launch_ms", w.launch_ms},
                    {"window_s", w.window_s},
                    {"counter_periods", w.counter_periods},
                    {"launches_in_window", per_launch_s > 0 ? std::llround(w.window_s / per_launch_s) : 0},
                    {"launches", w.launches},
                    {"host_enqueue_us_per_launch", w.host_enqueue_us_per_launch},
                    {"host_bound", host_bound(w)},
                    {"energy_j", w.energy_j},
                    {"power_samples", w.power_samples},
                    {"power_samples_mean_w", w.power_samples ? ordered_json(w.power_mean_w) : ordered_json(nullptr)},
                    {"gpu_temperature_c", optional_number(w.temperature_c)},
                    {"wall_s", w.wall_s}};
  return j;
}

}  // namespace occbench
