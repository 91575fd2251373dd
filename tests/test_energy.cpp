// Energy per point and the sm_clock_mhz axis without a GPU: the energy meter against a stand-in
// for NVML's counter (its calibration, a window, every way it is unavailable), the record's
// section, the clock observer against a stand-in control (a lock refused, a lock undone before
// the next point and at the end, the marker a killed run leaves), the supported-clock check, and
// the time-versus-energy front that report shows.
#include "harness/core/files.hpp"
#include "harness/family/harness_axes.hpp"
#include "harness/measure/energy/energy.hpp"
#include "harness/measure/sm_clock.hpp"
#include "harness/records/compare.hpp"
#include "harness/records/energy_front.hpp"
#include "harness/records/report.hpp"
#include "harness/run/clock_axis.hpp"
#include "harness/sweep/config.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"
#include "results_test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <filesystem>

namespace occbench {
namespace {

// NVML's counter as a GPU has it: it steps once every `period_s`, by power x period. Its time is
// its own, moved on only by the meter's pauses, so that a loaded host polls it as an idle one does;
// one pause, the first at or after `late_at_s`, lasts `late_by_s` longer: a poll that came late.
class SteppingCounter : public EnergyReadings {
 public:
  SteppingCounter(double period_s, double watts) : period_s_(period_s), watts_(watts) {}
  std::optional<double> counter_j(std::string& why) override {
    if (!failure_.empty()) {
      why = failure_;
      return std::nullopt;
    }
    // Steps at whole periods of t (the small term: t is a sum of pauses, 0.06 may read 0.0599999).
    return 1000.0 + (frozen_ ? 0 : std::floor(t_ / period_s_ + 1e-9) * period_s_ * watts_);
  }
  double now_s() override { return t_; }
  void pause_s(double seconds) override {
    t_ += seconds;
    if (late_at_s_ >= 0 && t_ >= late_at_s_) {
      t_ += late_by_s_;
      late_at_s_ = -1;
    }
  }
  double epoch_s() override { return kEpochS + t_; }
  // The driver's samples: every 5 ms of the last second, at the counter's power.
  std::vector<std::pair<double, double>> power_samples(double since_s, std::string&) override {
    double now = epoch_s();
    std::vector<std::pair<double, double>> samples;
    for (double t = std::max(since_s, now - 1.0); t <= now; t += 0.005) samples.emplace_back(t, watts_);
    return samples;
  }
  std::optional<double> temperature_c() override { return 57.0; }
  std::optional<double> power_limit_w() override { return limit_w_; }
  std::string failure_;
  std::optional<double> limit_w_ = 700.0;
  bool frozen_ = false;
  double late_at_s_ = -1, late_by_s_ = 0;

 private:
  static constexpr double kEpochS = 1.8e9;
  double t_ = 0;
  double period_s_, watts_;
};

// A GPU that ran 1000 launches of 0.1 ms each.
class FakeLaunches : public BusyWork {
 public:
  void keep_busy(double ahead_s) override {
    ++calls;
    max_ahead_s = std::max(max_ahead_s, ahead_s);
    min_ahead_s = std::min(min_ahead_s, ahead_s);
  }
  BusyStretch finish() override { return {1000, 0.1}; }
  int calls = 0;
  double max_ahead_s = 0, min_ahead_s = 1e9;
};

EnergySettings fast_settings() {
  EnergySettings s;
  s.window_s = 0.06;
  s.calibration_s = 0.5;
  return s;
}

TEST(EnergyMeter, LearnsTheCounterPeriodAndMeasuresAWindowOfWholeSteps) {
  EnergyMeter meter(std::make_unique<SteppingCounter>(0.02, 250.0), fast_settings());
  ASSERT_TRUE(meter.available()) << meter.unavailable_reason();
  // Read every 0.2 ms: the period to a reading, the idle power to its share of the period.
  EXPECT_NEAR(meter.calibration().period_s, 0.02, 0.0003);
  EXPECT_NEAR(meter.calibration().idle_w, 250.0, 250.0 * 0.015);
  FakeLaunches launches;
  EnergyWindow w = meter.measure(launches);
  ASSERT_EQ(w.status, "ok") << w.reason;
  EXPECT_EQ(w.counter_periods, 3);  // 60 ms in whole steps of 20
  EXPECT_NEAR(w.energy_j, 3 * 0.02 * 250.0, 1e-9);
  EXPECT_NEAR(w.average_w, 250.0, 250.0 * 0.015);
  EXPECT_EQ(w.launches, 1000);
  EXPECT_DOUBLE_EQ(w.launch_ms, 0.1 * 1e3 / 1000);
  EXPECT_GE(w.power_samples, 11);  // the samples within the window's 60 ms, one every 5 ms
  EXPECT_LE(w.power_samples, 14);
  EXPECT_DOUBLE_EQ(w.power_mean_w, 250.0);
  EXPECT_EQ(w.temperature_c, 57.0);
  EXPECT_EQ(energy_json(w, 75, 0, 0)["gpu_temperature_c"], 57.0);
  EXPECT_GT(launches.calls, 3);  // the GPU was kept busy while the counter was read
  // Queued ahead at most 20 ms, and near the close only the 10 ms margin past it (and a poll).
  EXPECT_LE(launches.max_ahead_s, 0.020 + 1e-12);
  EXPECT_GT(launches.max_ahead_s, 0.015);
  EXPECT_LE(launches.min_ahead_s, 0.0115);

  nlohmann::ordered_json run = meter.to_json();
  EXPECT_EQ(run["status"], "ok");
  EXPECT_NEAR(run["counter_period_ms"].get<double>(), 20.0, 0.3);
  // The window's three intervals between its four steps were added to the calibration's.
  EXPECT_EQ(run["counter_intervals_learned"].get<std::size_t>(), meter.calibration().intervals_s.size() + 3);
  EXPECT_NEAR(run["counter_period_ms_learned"].get<double>(), 20.0, 1.0);
  EXPECT_NEAR(w.window_s, w.counter_periods * run["counter_period_ms_learned"].get<double>() * 1e-3, 1e-12);
}

// The meter over a counter of 20 ms steps whose one poll, the first at or after `late_at_s`,
// comes back `late_by_s` late. The calibration ends at the 4th step (80 ms) and the window of
// three steps opens at the step at 100 ms.
EnergyWindow window_with_a_late_poll(double late_at_s, double late_by_s, std::size_t& learned) {
  auto counter = std::make_unique<SteppingCounter>(0.02, 250.0);
  counter->late_at_s_ = late_at_s;
  counter->late_by_s_ = late_by_s;
  EnergyMeter meter(std::move(counter), fast_settings());
  if (!meter.available()) throw std::runtime_error(meter.unavailable_reason());
  std::size_t calibration_intervals = meter.calibration().intervals_s.size();
  FakeLaunches launches;
  EnergyWindow w = meter.measure(launches);
  learned = meter.to_json()["counter_intervals_learned"].get<std::size_t>() - calibration_intervals;
  return w;
}

TEST(EnergyMeter, APollThatCameLateCountsTheStepsItMissedAndLearnsNothingFromThem) {
  struct LatePoll {
    const char* what;
    double late_at_s, late_by_s;
    int steps;            // counted in the energy and in the window's time alike
    std::size_t learned;  // the window's intervals seen on time
  };
  const LatePoll cases[] = {
      // Back at 176 ms, 16 ms past the steps at 140 and 160: two updates, where the time since the
      // last change over the period, rounded, says three. Only 100 to 120 ms is learned.
      {"after the step at 120", 0.121, 0.055, 3, 1},
      // Back at 186 ms, holding 160 and 180: four steps where three were asked for.
      {"after the step at 140", 0.141, 0.045, 4, 2},
      // The read that opens the window back at 126 ms, past 100 and 120: the window opens at the
      // newest (120) and closes three steps later; the interval after a step dated only to 35 ms
      // is not learned.
      {"the opening read", 0.0905, 0.035, 3, 2},
  };
  for (const LatePoll& late : cases) {
    SCOPED_TRACE(late.what);
    std::size_t learned = 0;
    EnergyWindow w = window_with_a_late_poll(late.late_at_s, late.late_by_s, learned);
    ASSERT_EQ(w.status, "ok") << w.reason;
    EXPECT_EQ(w.counter_periods, late.steps);
    EXPECT_NEAR(w.energy_j, late.steps * 0.02 * 250.0, 1e-9);
    EXPECT_NEAR(w.average_w, 250.0, 250.0 * 0.015);
    EXPECT_EQ(learned, late.learned);
  }
}

TEST(EnergyMeter, SaysWhyItIsUnavailableAndMeasuresNothing) {
  EnergyMeter no_nvml(nullptr, fast_settings(), "libnvidia-ml.so.1 (the driver's NVML) cannot be loaded");
  EXPECT_FALSE(no_nvml.available());
  FakeLaunches launches;
  EnergyWindow w = no_nvml.measure(launches);
  EXPECT_EQ(w.status, "unavailable");
  EXPECT_NE(w.reason.find("cannot be loaded"), std::string::npos);
  EXPECT_EQ(launches.calls, 0);
  EXPECT_EQ(energy_json(w, 70, 1e9, 1e9)["status"], "unavailable");

  auto refusing = std::make_unique<SteppingCounter>(0.02, 100.0);
  refusing->failure_ = "nvmlDeviceGetTotalEnergyConsumption: Not Supported (NVML 3)";
  EnergyMeter not_supported(std::move(refusing), fast_settings());
  EXPECT_FALSE(not_supported.available());
  EXPECT_NE(not_supported.unavailable_reason().find("Not Supported"), std::string::npos);
  EXPECT_EQ(not_supported.to_json()["status"], "unavailable");

  auto frozen = std::make_unique<SteppingCounter>(0.02, 100.0);
  frozen->frozen_ = true;  // a virtualized GPU whose counter never moves
  EnergyMeter still(std::move(frozen), fast_settings());
  EXPECT_FALSE(still.available());
  EXPECT_NE(still.unavailable_reason().find("changed 0 time(s)"), std::string::npos);
}

TEST(EnergyMeter, CalibrationNeedsThreeChanges) {
  EXPECT_FALSE(calibrate_counter({{0, 1}, {0.1, 1}, {0.2, 2}, {0.3, 2}}).reason.empty());
  CounterCalibration c = calibrate_counter({{0, 10}, {0.05, 10}, {0.1, 20}, {0.15, 20}, {0.2, 30}, {0.3, 40}});
  ASSERT_TRUE(c.reason.empty()) << c.reason;
  EXPECT_EQ(c.updates, 3);
  EXPECT_NEAR(c.period_s, 0.1, 1e-12);
  EXPECT_NEAR(c.idle_w, 100.0, 1e-9);
  EXPECT_EQ(counter_periods(0.3, 0.1), 3);
  EXPECT_EQ(counter_periods(0.01, 0.1), 1);
  EXPECT_EQ(counter_periods(1.0, 0.1), 10);
  // A launch longer than the window: the window holds about one whole launch.
  EXPECT_EQ(counter_periods(0.2, 0.1, 0.715), 7);
  EXPECT_EQ(counter_periods(0.2, 0.1, 0.111), 2);
}

TEST(EnergyMeter, ChunksToQueueAreDecidedOnceAndBounded) {
  EXPECT_EQ(chunks_to_queue(0, 0.0, 0.020, 0.003), 7);    // 20 ms ahead in 3 ms chunks
  EXPECT_EQ(chunks_to_queue(5, 0.014, 0.020, 0.003), 2);  // 6 ms short
  EXPECT_EQ(chunks_to_queue(7, 0.021, 0.020, 0.003), 0);  // enough queued
  EXPECT_EQ(chunks_to_queue(0, 0.0, 0.0, 0.003), 1);      // past the close: still one, never none
  EXPECT_EQ(chunks_to_queue(30, 0.0, 0.020, 0.003), 2);   // at most 32 queued, however far behind
  EXPECT_EQ(chunks_to_queue(32, 0.0, 0.020, 0.003), 0);
  // A 0.7 s launch covers the 20 ms ahead by itself: one queued behind it would be waited for.
  EXPECT_EQ(chunks_to_queue(1, 0.5, 0.020, 0.7), 0);
}

TEST(EnergyMeter, AChangeSeenOnTimeIsDatedByItsReadALateOneByThePeriod) {
  DatedSteps last{1, 1.000, 0.001, true};  // a step seen at 1 s, the read before at 0.999
  DatedSteps d = date_steps(last, {1.1005, 1.0995}, 0.1);
  EXPECT_EQ(d.updates, 1);
  EXPECT_TRUE(d.on_time);
  EXPECT_DOUBLE_EQ(d.step_s, 1.1005);
  EXPECT_EQ(date_steps(last, {1.097, 1.096}, 0.1).updates, 1);  // a period a little short: still one
  EXPECT_EQ(date_steps(last, {1.21, 1.209}, 0.1).updates, 1);  // the step at 1.1 missed: a read on time holds one
  // The step that opens a window: on time, or not, by the gap to the read before.
  EXPECT_TRUE(first_step({1.2005, 1.1995}, 0.1).on_time);
  EXPECT_FALSE(first_step({1.2, 1.1}, 0.1).on_time);
  EXPECT_NEAR(first_step({1.2, 1.1}, 0.1).error_s, 0.1, 1e-12);
  // A poll back 90 ms late, 80 ms past the step at 1.1: one update, dated by the period.
  d = date_steps(last, {1.18, 1.09}, 0.1);
  EXPECT_FALSE(d.on_time);
  EXPECT_EQ(d.updates, 1);
  EXPECT_NEAR(d.step_s, 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(d.error_s, 0.001);
  EXPECT_EQ(date_steps(last, {1.31, 1.05}, 0.1).updates, 3);  // 1.1, 1.2 and 1.3
  EXPECT_EQ(date_steps(last, {1.29, 1.05}, 0.1).updates, 2);  // 1.3 not yet
}

TEST(EnergyMeter, ALateChangeDoesNotMoveThePeriod) {
  // Changes every 100 ms, the host seeing the last one 19 ms late: the median interval stays
  // 100 ms (first to last over the count would say 103.8 ms, and every watt 3.8% low).
  CounterCalibration c = calibrate_counter({{0.0, 0}, {0.1, 10}, {0.2, 20}, {0.3, 30}, {0.4, 40}, {0.5, 50}, {0.619, 60}});
  ASSERT_TRUE(c.reason.empty()) << c.reason;
  EXPECT_EQ(c.updates, 6);
  EXPECT_NEAR(c.period_s, 0.1, 1e-12);
  EXPECT_NEAR(c.idle_w, 100.0, 1e-9);
  // One late in the middle: a long interval and a short one, the median still 100 ms.
  EXPECT_NEAR(calibrate_counter({{0.0, 0}, {0.1, 10}, {0.219, 20}, {0.3, 30}, {0.4, 40}, {0.5, 50}}).period_s, 0.1, 1e-12);
}

TEST(EnergyMeter, AWindowWhoseCounterDisagreesWithThePowerSamplesIsWorthMeasuringAgain) {
  EnergyWindow w;
  w.average_w = 500;
  w.power_samples = 10;
  w.power_mean_w = 470;  // 6% below the counter: a step a few ms off its period
  EXPECT_NEAR(counter_vs_samples(w), 0.06, 1e-12);
  EXPECT_TRUE(counter_disagrees_with_samples(w));
  w.power_mean_w = 490;  // 2%: within what the two sensors differ by
  EXPECT_FALSE(counter_disagrees_with_samples(w));
  w.power_mean_w = 400;
  w.power_samples = 4;  // too few samples to judge the counter by
  EXPECT_FALSE(counter_disagrees_with_samples(w));

  // Of the window and the one measured again, the better-agreeing one is kept, whichever came first.
  EnergyWindow off = w, agrees = w;
  off.power_samples = agrees.power_samples = 10;
  off.power_mean_w = 470;     // 6% off
  agrees.power_mean_w = 495;  // 1% off
  EXPECT_EQ(better_window_first(off, agrees).first.power_mean_w, 495);
  EXPECT_EQ(better_window_first(off, agrees).second.power_mean_w, 470);
  EXPECT_EQ(better_window_first(agrees, off).first.power_mean_w, 495);
}

TEST(EnergyMeter, AKernelAtThePowerLimitIsReadAgainOverAWholeCycleOfItsController) {
  EnergyWindow w;
  w.average_w = 764;  // cuBLAS SSYRK's first 0.2 s on the H100: a burst over the 700 W limit
  EXPECT_TRUE(at_power_limit(w, 700.0, false));
  w.average_w = 713;  // within the counter's 3% of the limit, the cap not engaged: an ordinary window
  EXPECT_FALSE(at_power_limit(w, 700.0, false));
  EXPECT_TRUE(at_power_limit(w, 700.0, true));  // the cap engaged during it: a part of a cycle
  w.average_w = 565;  // the cap, but far below the limit: left engaged by the point before
  EXPECT_FALSE(at_power_limit(w, 700.0, true));
  EXPECT_FALSE(at_power_limit(w, std::nullopt, false));  // no limit known: only the cap can tell
  EXPECT_TRUE(at_power_limit(w, std::nullopt, true));
  w.status = "unavailable";
  EXPECT_FALSE(at_power_limit(w, 700.0, true));

  // The meter knows the limit from the readings, says it in the run's block, and a window asked
  // for at least kPowerLimitWindowS holds that many whole steps (here 5 steps of 20 ms for 0.1 s).
  EnergyMeter meter(std::make_unique<SteppingCounter>(0.02, 250.0), fast_settings());
  ASSERT_TRUE(meter.available()) << meter.unavailable_reason();
  EXPECT_EQ(meter.power_limit_w(), 700.0);
  EXPECT_EQ(meter.to_json()["power_limit_w"], 700.0);
  FakeLaunches launches;
  EnergyWindow longer = meter.measure(launches, 0, 0.1);
  ASSERT_EQ(longer.status, "ok") << longer.reason;
  EXPECT_EQ(longer.counter_periods, 5);
  EXPECT_NEAR(longer.energy_j, 5 * 0.02 * 250.0, 1e-9);
  EXPECT_NEAR(longer.average_w, 250.0, 250.0 * 0.015);  // the window's seconds are the learned period's

  auto no_limit = std::make_unique<SteppingCounter>(0.02, 250.0);
  no_limit->limit_w_ = std::nullopt;
  EnergyMeter unknown(std::move(no_limit), fast_settings());
  EXPECT_TRUE(unknown.to_json()["power_limit_w"].is_null());
}

TEST(EnergyMeter, ASecondWindowIsAskedForThroughTheEnvironmentAndBadValuesNameTheVariable) {
  unsetenv("OCCBENCH_ENERGY_SECOND_WINDOW_S");
  EXPECT_EQ(second_window_s_from_environment(), 0);
  setenv("OCCBENCH_ENERGY_SECOND_WINDOW_S", "1.0", 1);
  EXPECT_EQ(second_window_s_from_environment(), 1.0);
  for (const char* bad : {"1s", "0", "-1", "120", "abc"}) {
    setenv("OCCBENCH_ENERGY_SECOND_WINDOW_S", bad, 1);
    try {
      second_window_s_from_environment();
      ADD_FAILURE() << bad << " was taken";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("OCCBENCH_ENERGY_SECOND_WINDOW_S"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos);
    }
  }
  unsetenv("OCCBENCH_ENERGY_SECOND_WINDOW_S");
}

TEST(EnergySection, JoulesPerLaunchAreAveragePowerTimesTheLaunchTime) {
  EnergyWindow w;
  w.counter_periods = 2;
  w.window_s = 0.2;
  w.energy_j = 60;  // 300 W
  w.average_w = 300;
  w.launches = 4000;
  w.busy_s = 0.4;
  w.launch_ms = 0.1;
  w.power_samples = 10;
  w.power_mean_w = 290;
  nlohmann::ordered_json e = energy_json(w, 75, 2e9, 5e8);
  EXPECT_EQ(e["status"], "ok");
  EXPECT_EQ(e["window"], "hot");
  EXPECT_NEAR(e["joules_per_launch"].get<double>(), 0.03, 1e-12);
  EXPECT_NEAR(e["joules_per_launch_above_idle"].get<double>(), 225 * 1e-4, 1e-12);
  EXPECT_NEAR(e["gflop_per_j"].get<double>(), 2.0 / 0.03, 1e-9);
  EXPECT_NEAR(e["gb_per_j"].get<double>(), 0.5 / 0.03, 1e-9);
  EXPECT_EQ(e["launches_in_window"].get<long long>(), 2000);
  EXPECT_TRUE(energy_json(w, 75, 0, 0)["gflop_per_j"].is_null());
  EXPECT_TRUE(e["gpu_temperature_c"].is_null());  // no reading: null, never a made-up value
  EXPECT_FALSE(e["host_bound"].get<bool>());
  // A 4 us kernel whose launch costs the host 3.5 us to queue: the GPU waits for the host.
  w.launch_ms = 0.004;
  w.host_enqueue_us_per_launch = 3.5;
  EXPECT_TRUE(energy_json(w, 75, 0, 0)["host_bound"].get<bool>());
  w.host_enqueue_us_per_launch = 1.0;
  EXPECT_FALSE(energy_json(w, 75, 0, 0)["host_bound"].get<bool>());
}

// The stand-in for NVML's clock control: what it was told, and a refusal when asked to refuse.
struct ControlLog {
  std::vector<std::string> calls;
  std::string refusal;
};
class FakeControl : public SmClockControl {
 public:
  explicit FakeControl(ControlLog& log) : log_(log) {}
  std::vector<int> supported_mhz(std::string&) override { return {1980, 1965, 345}; }
  std::string lock(int mhz) override {
    log_.calls.push_back("lock " + std::to_string(mhz));
    return log_.refusal;
  }
  std::string reset() override {
    log_.calls.push_back("reset");
    return "";
  }

 private:
  ControlLog& log_;
};

std::vector<Point> clock_points(const std::string& clocks) {
  static SweepSpec spec;
  spec = parse_sweep_text(R"({"name": "c", "family": "matmul", "variants": ["tiled"], "baseline": "tiled",
      "sizes": {"m": [64], "n": [64], "k": [64]}, "axes": {"tile": [16], "sm_clock_mhz": )" + clocks + "}}",
                          "clocks.json", builtin_registry());
  return expand_sweep(spec, builtin_registry());
}

const std::string kFakeBus = "0000:ff:00.0-occbench-test";

TEST(SmClockObserver, LocksForAPointAndResetsBeforeOneWithoutAndAtTheEnd) {
  ControlLog log;
  std::string marker = sm_clock_marker_path(kFakeBus);
  std::vector<Point> points = clock_points("[990, 0, 1500]");
  {
    SmClockObserver observer([&](std::string&) { return std::make_unique<FakeControl>(log); }, kFakeBus);
    EXPECT_EQ(observer.before_point(points[0]), "");
    EXPECT_TRUE(std::filesystem::exists(marker));  // written before the lock
    EXPECT_EQ(observer.before_point(points[0]), "");  // the same clock: no second lock
    EXPECT_EQ(observer.before_point(points[1]), "");   // 0: back to the default
    EXPECT_FALSE(std::filesystem::exists(marker));
    EXPECT_EQ(observer.before_point(points[2]), "");
  }  // the end of the run resets
  EXPECT_EQ(log.calls, (std::vector<std::string>{"lock 990", "reset", "lock 1500", "reset"}));
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(SmClockObserver, APointWhoseClockCannotBeLockedIsRefusedWithTheReason) {
  ControlLog log;
  log.refusal = "nvmlDeviceSetGpuLockedClocks(990, 990): Insufficient Permissions (NVML 4)";
  std::vector<Point> points = clock_points("[990]");
  SmClockObserver observer([&](std::string&) { return std::make_unique<FakeControl>(log); }, kFakeBus);
  std::string refusal = observer.before_point(points[0]);
  EXPECT_NE(refusal.find("sm_clock_mhz 990: the SM clock cannot be locked"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("Insufficient Permissions"), std::string::npos) << refusal;
  EXPECT_FALSE(std::filesystem::exists(sm_clock_marker_path(kFakeBus)));

  SmClockObserver no_nvml([](std::string& why) {
    why = "libnvidia-ml.so.1 (the driver's NVML) cannot be loaded";
    return std::unique_ptr<SmClockControl>();
  }, kFakeBus);
  EXPECT_NE(no_nvml.before_point(points[0]).find("cannot be loaded"), std::string::npos);
}

TEST(SmClockObserver, TheNextRunResetsAClockAKilledRunLeftLocked) {
  ControlLog log;
  FakeControl control(log);
  std::string marker = sm_clock_marker_path(kFakeBus);
  EXPECT_EQ(restore_left_sm_clock(kFakeBus, &control), "");  // no marker: nothing to do
  EXPECT_TRUE(log.calls.empty());
  write_text_file(marker, "990 MHz by process 1234");
  std::string said = restore_left_sm_clock(kFakeBus, &control);
  EXPECT_NE(said.find("990 MHz by process 1234"), std::string::npos) << said;
  EXPECT_EQ(log.calls, std::vector<std::string>{"reset"});
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(SmClockAxis, IsAHarnessAxisOfDeviceVariantsOnly) {
  const Family* matmul = builtin_registry().find("matmul");
  EXPECT_NE(matmul->find_variant("tiled")->find_axis(kSmClockAxis), nullptr);
  EXPECT_TRUE(is_harness_axis_name("sm_clock_mhz"));
  EXPECT_FALSE(is_harness_axis_name("tile"));
  std::vector<Point> points = clock_points("[0, 990]");
  EXPECT_FALSE(locks_sm_clock(points[0].params));
  EXPECT_TRUE(locks_sm_clock(points[1].params));
}

TEST(SmClockAxis, AClockTheGpuCannotRunIsBadInputNamingThePathAndTheRange) {
  SweepSpec spec = parse_sweep_text(R"({"name": "c", "family": "matmul", "variants": ["tiled"], "baseline": "tiled",
      "sizes": {"m": [64], "n": [64], "k": [64]}, "axes": {"tile": [16], "sm_clock_mhz": [0, 990, 5000]}})",
                                    "clocks.json", builtin_registry());
  SmClockList h100 = table_sm_clocks(*find_gpu("h100"));
  ASSERT_EQ(h100.mhz.size(), 110u);
  try {
    check_sm_clocks(spec, h100, "the h100");
    FAIL() << "5000 MHz accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "clocks.json");
    EXPECT_EQ(e.json_path(), "$.axes.sm_clock_mhz");
    EXPECT_NE(e.expected().find("345 to 1980 MHz every 15 MHz (110 clocks)"), std::string::npos) << e.expected();
    EXPECT_NE(e.expected().find("got 5000"), std::string::npos) << e.expected();
  }
  SweepSpec fine = parse_sweep_text(R"({"name": "c", "family": "matmul", "variants": ["tiled"], "baseline": "tiled",
      "sizes": {"m": [64], "n": [64], "k": [64]}, "axes": {"tile": [16], "sm_clock_mhz": [0, 990]}})",
                                    "clocks.json", builtin_registry());
  EXPECT_NE(check_sm_clocks(fine, h100, "the h100").find("345 to 1980 MHz"), std::string::npos);
  SmClockList unknown = table_sm_clocks(*find_gpu("t4"));
  EXPECT_TRUE(unknown.mhz.empty());
  EXPECT_NE(check_sm_clocks(spec, unknown, "the t4").find("cannot be listed"), std::string::npos);  // nothing to check against
}

nlohmann::ordered_json energy_record(const std::string& id, int n, double median_ms, double joules) {
  return {{"point_id", id},
          {"status", "ok"},
          {"params", {{"n", n}}},
          {"timing", {{"median_ms", median_ms}}},
          {"energy", {{"status", "ok"}, {"joules_per_launch", joules}}}};
}

TEST(EnergyFront, FastestLeastEnergyAndTheParetoFrontPerSize) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  results.push_back(energy_record("a", 1, 1.0, 0.50));
  results.push_back(energy_record("b", 1, 1.2, 0.40));
  results.push_back(energy_record("c", 1, 1.5, 0.45));  // slower and costlier than b: off the front
  results.push_back(energy_record("d", 1, 2.0, 0.30));
  results.push_back(energy_record("e", 2, 5.0, 1.00));
  results.push_back({{"point_id", "f"}, {"status", "ok"}, {"params", {{"n", 2}}}, {"timing", {{"median_ms", 4.0}}},
                     {"energy", {{"status", "unavailable"}, {"reason", "x"}}}});
  std::vector<EnergyFront> fronts = energy_fronts(results, {"n"});
  ASSERT_EQ(fronts.size(), 2u);
  const EnergyFront& f = fronts[0];
  EXPECT_EQ(f.group, "n=1");
  EXPECT_EQ(f.points, 4);
  EXPECT_EQ(f.fastest.point_id, "a");
  EXPECT_EQ(f.least_energy.point_id, "d");
  EXPECT_NEAR(f.energy_saving, 0.4, 1e-12);
  EXPECT_NEAR(f.time_cost, 1.0, 1e-12);
  std::vector<std::string> front;
  for (const auto& p : f.pareto) front.push_back(p.point_id);
  EXPECT_EQ(front, (std::vector<std::string>{"a", "b", "d"}));
  EXPECT_EQ(fronts[1].points, 1);  // f has no energy reading
  EXPECT_EQ(fronts[1].fastest.point_id, "e");
  EXPECT_EQ(fronts[1].least_energy.point_id, "e");
  EXPECT_TRUE(energy_fronts(nlohmann::ordered_json::array({energy_record("x", 1, 1, 0)}), {"n"}).empty());
}

// A record of results_test_support with an energy section.
nlohmann::ordered_json with_energy(nlohmann::ordered_json r, double joules) {
  r["energy"] = {{"status", "ok"}, {"joules_per_launch", joules}, {"average_w", 400.0}};
  return r;
}

ResultsFile energy_file(const std::string& path, const std::vector<nlohmann::ordered_json>& results) {
  nlohmann::ordered_json doc = testing_support::make_doc("GPU", results);
  doc["config"]["sizes"] = {{"n", {1024}}};
  return results_from_json(doc, path);
}

TEST(EnergyReport, MarksTheFastestAndLeastEnergyPointsAndSaysWhatTheSecondSavesAndCosts) {
  using testing_support::make_record;
  nlohmann::ordered_json capped = with_energy(make_record("shared", 256, 0.15), 0.045);
  capped["energy"]["at_power_limit"] = true;  // read again over a cycle of the power controller
  ResultsFile f = energy_file("e.json", {with_energy(make_record("global", 128, 0.10), 0.050),
                                         with_energy(make_record("global", 256, 0.12), 0.040), capped});
  std::string md = report_markdown({f});
  EXPECT_NE(md.find("| energy / launch | marks |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 50.0 mJ | fastest |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 40.0 mJ | least energy |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 45.0 mJ | at the power limit |"), std::string::npos) << md;
  EXPECT_NE(md.find("| n=1024 | 3 | f/global/n=1024/block_size=128 (100.0 µs, 50.0 mJ) | "
                    "f/global/n=1024/block_size=256 (120.0 µs, 40.0 mJ) | 20.0% | +20.0% | "
                    "f/global/n=1024/block_size=128<br>f/global/n=1024/block_size=256 |"),
            std::string::npos)
      << md;
  nlohmann::ordered_json json = report_json({f});
  EXPECT_EQ(json["sources"][0]["energy_fronts"][0]["least_energy"]["point_id"], "f/global/n=1024/block_size=256");
  // Without energy the table is as it was.
  std::string plain = report_markdown({energy_file("p.json", {make_record("global", 128, 0.1)})});
  EXPECT_EQ(plain.find("energy"), std::string::npos) << plain;
}

TEST(EnergyCompare, ShowsJoulesPerLaunchBesideTheTime) {
  using testing_support::make_record;
  ResultsFile base = energy_file("base.json", {with_energy(make_record("global", 128, 0.10), 0.050)});
  ResultsFile next = energy_file("new.json", {with_energy(make_record("global", 128, 0.10), 0.045)});
  Comparison c = compare_runs(base, next, {});
  std::string text = format_comparison(c, base, next, {});
  EXPECT_NE(text.find("| BASE mJ/launch | NEW mJ/launch | energy change |"), std::string::npos) << text;
  EXPECT_NE(text.find("| unchanged | 50 | 45 | -10.0% |"), std::string::npos) << text;
  ResultsFile plain = energy_file("plain.json", {make_record("global", 128, 0.10)});
  EXPECT_EQ(format_comparison(compare_runs(plain, plain, {}), plain, plain, {}).find("mJ"), std::string::npos);
}

TEST(SmClockAxis, PlanRefusesAClockTheGpuCannotRunWithExit2) {
  testing_support::TempDir dir;
  std::string config = dir.write("clocks.json", R"({"name": "c", "family": "matmul", "variants": ["tiled"], "baseline": "tiled",
      "sizes": {"m": [64], "n": [64], "k": [64]}, "axes": {"tile": [16], "sm_clock_mhz": [0, 5000]}})");
  testing_support::CliResult refused = testing_support::run_cli({"plan", config, "--gpu", "h100"});
  EXPECT_EQ(refused.code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("$.axes.sm_clock_mhz"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("345 to 1980 MHz every 15 MHz"), std::string::npos) << refused.err;
  testing_support::CliResult listed = testing_support::run_cli({"plan", config, "--gpu", "h100", "--set", "sm_clock_mhz=0,990"});
  EXPECT_EQ(listed.code, 0) << listed.err;
  EXPECT_NE(listed.out.find("sm_clock_mhz: NVIDIA H100 SXM5 80GB supports 345 to 1980 MHz every 15 MHz (110 clocks)"),
            std::string::npos)
      << listed.out;
}

}  // namespace
}  // namespace occbench
