#pragma once
// The conditions a point was measured under: SM and memory clocks and NVML's throttle reasons,
// read between samples (not only at the start and end of the run), and the flags they raise.
#include "harness/measure/device.hpp"
#include "harness/measure/observer.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

struct PointConditions {
  int readings = 0;
  std::optional<double> sm_mhz_min, sm_mhz_max, memory_mhz_min;
  unsigned long long throttle_reasons = 0;  // OR of every reading's bits
  std::vector<std::string> flags;           // empty when the point was measured as the run began
};

// Names of the throttle-reason bits ("sw_power_cap", "hw_slowdown", ...), unknown bits in hex.
std::vector<std::string> throttle_reason_names(unsigned long long bits);

// The software power cap: the board's power controller holds the clocks down to stay at its limit.
constexpr unsigned long long kSwPowerCapBit = 0x4;

// Reasons that make a timing suspect: power cap, thermal and hardware slowdowns, power brake.
// Idle, application-clock and sync-boost bits say nothing about this point's speed.
constexpr unsigned long long kSuspectThrottleBits = kSwPowerCapBit | 0x8 | 0x20 | 0x40 | 0x80;

// Adds the readings' summary and sets `flags`: throttled (a suspect reason seen) or a clock
// below the run's start clock. Pure, for tests.
void add_reading(PointConditions& conditions, const ClockReading& reading);
void judge_conditions(PointConditions& conditions, const ClockReading& run_start);

// Reads the clocks at most every `interval_s` while a point is sampled (an NVML read costs tens
// of microseconds: reading after every sample of a 10 us kernel would dominate the loop).
class ConditionSampler {
 public:
  explicit ConditionSampler(const DeviceInfo& device, double interval_s = 0.005);
  void sample_if_due();
  PointConditions finish(const ClockReading& run_start);  // one last reading, then the flags

 private:
  void sample();
  const DeviceInfo& device_;
  double interval_s_;
  std::chrono::steady_clock::time_point last_{};
  PointConditions conditions_;
};

nlohmann::ordered_json to_json(const PointConditions& conditions);

// The observer that reads them for every device point and adds timing.conditions to its record.
class ClockObserver : public PointObserver {
 public:
  explicit ClockObserver(const DeviceInfo& device) : device_(device) {}
  void before_samples(const Point& point) override;
  void between_samples() override;
  void after_samples(const SampledPoint& point, const SharedRecord& record) override;

 private:
  const DeviceInfo& device_;
  std::unique_ptr<ConditionSampler> sampler_;  // while a device point is sampled
};

}  // namespace occbench
