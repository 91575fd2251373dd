#include "harness/measure/conditions.hpp"

#include "harness/core/optional_number.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace occbench {

std::vector<std::string> throttle_reason_names(unsigned long long bits) {
  static const std::pair<unsigned long long, const char*> kNames[] = {
      {0x1, "gpu_idle"},           {0x2, "applications_clocks"},      {kSwPowerCapBit, "sw_power_cap"},
      {0x8, "hw_slowdown"},        {0x10, "sync_boost"},              {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"}, {0x100, "display_clock_setting"}};
  std::vector<std::string> names;
  for (const auto& [bit, name] : kNames) {
    if (bits & bit) names.push_back(name);
    bits &= ~bit;
  }
  if (bits) names.push_back(fmt::format("{:#x}", bits));
  return names;
}

void add_reading(PointConditions& c, const ClockReading& reading) {
  ++c.readings;
  auto lower = [](std::optional<double>& slot, std::optional<double> v) {
    if (v) slot = slot ? std::min(*slot, *v) : *v;
  };
  lower(c.sm_mhz_min, reading.sm_mhz);
  lower(c.memory_mhz_min, reading.memory_mhz);
  if (reading.sm_mhz) c.sm_mhz_max = c.sm_mhz_max ? std::max(*c.sm_mhz_max, *reading.sm_mhz) : *reading.sm_mhz;
  if (reading.throttle_reasons) c.throttle_reasons |= *reading.throttle_reasons;
}

void judge_conditions(PointConditions& c, const ClockReading& run_start) {
  c.flags.clear();
  if (unsigned long long suspect = c.throttle_reasons & kSuspectThrottleBits)
    c.flags.push_back(fmt::format("throttled ({})", fmt::join(throttle_reason_names(suspect), ", ")));
  if (c.sm_mhz_min && run_start.sm_mhz && *c.sm_mhz_min < *run_start.sm_mhz)
    c.flags.push_back(fmt::format("SM clock {:.0f} MHz below the run's start clock {:.0f} MHz", *c.sm_mhz_min, *run_start.sm_mhz));
  if (c.memory_mhz_min && run_start.memory_mhz && *c.memory_mhz_min < *run_start.memory_mhz)
    c.flags.push_back(fmt::format("memory clock {:.0f} MHz below the run's start clock {:.0f} MHz", *c.memory_mhz_min,
                                  *run_start.memory_mhz));
}

// The first reading comes after the first sample, while the GPU is busy: one taken before would
// see the clocks of a GPU idling between points.
ConditionSampler::ConditionSampler(const DeviceInfo& device, double interval_s) : device_(device), interval_s_(interval_s) {}

void ConditionSampler::sample() {
  add_reading(conditions_, read_clocks(device_));
  last_ = std::chrono::steady_clock::now();
}

void ConditionSampler::sample_if_due() {
  if (std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >= interval_s_) sample();
}

PointConditions ConditionSampler::finish(const ClockReading& run_start) {
  sample();
  judge_conditions(conditions_, run_start);
  return conditions_;
}

nlohmann::ordered_json to_json(const PointConditions& c) {
  return {{"readings", c.readings},
          {"sm_mhz_min", optional_number(c.sm_mhz_min)},
          {"sm_mhz_max", optional_number(c.sm_mhz_max)},
          {"memory_mhz_min", optional_number(c.memory_mhz_min)},
          {"throttle_reasons", throttle_reason_names(c.throttle_reasons)},
          {"flags", c.flags}};
}

void ClockObserver::before_samples(const Point& point) {
  sampler_.reset();
  if (point.variant->executor == Executor::device) sampler_ = std::make_unique<ConditionSampler>(device_);
}

void ClockObserver::between_samples() {
  if (sampler_) sampler_->sample_if_due();
}

void ClockObserver::after_samples(const SampledPoint&, const SharedRecord& record) {
  if (!sampler_) return;
  record->json["timing"]["conditions"] = to_json(sampler_->finish(device_.clocks_start));
  sampler_.reset();
}

}  // namespace occbench
