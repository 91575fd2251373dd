// The timing pieces that need no GPU: the bad-device message, the conditions' flags, the timing
// floor's flag, the run's time use under the final table, and the timing source's fallback.
#include "harness/measure/conditions.hpp"
#include "harness/measure/device.hpp"
#include "harness/measure/kernel_activity.hpp"
#include "harness/records/time_use.hpp"
#include "harness/measure/timer.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

using namespace occbench;

TEST(DeviceChoice, ANonexistentDeviceIsNamedWithTheOnesThatExist) {
  EXPECT_FALSE(device_choice_error(0, 1));
  EXPECT_EQ(device_choice_error(7, 1).value(), "device 7 does not exist: this machine has 1 GPU (0)");
  EXPECT_EQ(device_choice_error(4, 4).value(), "device 4 does not exist: this machine has 4 GPUs (0-3)");
  EXPECT_EQ(device_choice_error(-1, 2).value(), "device -1 does not exist: this machine has 2 GPUs (0-1)");
  EXPECT_FALSE(device_choice_error(3, 4));
}

TEST(Conditions, ThrottleBitsHaveNames) {
  EXPECT_EQ(throttle_reason_names(0x1 | 0x4), (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_EQ(throttle_reason_names(0x1000), (std::vector<std::string>{"0x1000"}));
  EXPECT_TRUE(throttle_reason_names(0).empty());
}

TEST(Conditions, ThrottledOrSlowerThanTheStartIsFlagged) {
  ClockReading start{1980.0, 2619.0, 0ull};
  auto judged = [&](std::vector<ClockReading> readings) {
    PointConditions c;
    for (const auto& r : readings) add_reading(c, r);
    judge_conditions(c, start);
    return c;
  };
  // At the start clock, idle bit only: nothing to flag.
  PointConditions quiet = judged({{1980.0, 2619.0, 0x1ull}, {1980.0, 2619.0, 0ull}});
  EXPECT_TRUE(quiet.flags.empty());
  EXPECT_EQ(quiet.readings, 2);
  // One reading under the software power cap at a lower clock: both flags.
  PointConditions capped = judged({{1980.0, 2619.0, 0ull}, {1755.0, 2619.0, 0x4ull}});
  ASSERT_EQ(capped.flags.size(), 2u);
  EXPECT_EQ(capped.flags[0], "throttled (sw_power_cap)");
  EXPECT_EQ(capped.flags[1], "SM clock 1755 MHz below the run's start clock 1980 MHz");
  EXPECT_EQ(*capped.sm_mhz_min, 1755.0);
  EXPECT_EQ(*capped.sm_mhz_max, 1980.0);
  // No NVML: no readings, no flags.
  EXPECT_TRUE(judged({ClockReading{}}).flags.empty());
}

TEST(TimingFloor, WithinFiveTimesIsFlagged) {
  EXPECT_TRUE(near_timing_floor(0.010, 0.0025));   // 4x
  EXPECT_FALSE(near_timing_floor(0.0125, 0.0025));  // 5x
  EXPECT_FALSE(near_timing_floor(0.010, 0.0));     // floor unknown
}

TEST(TimeUse, SumsTimedSamplesAndListsFlags) {
  using json = nlohmann::ordered_json;
  std::vector<json> results = {
      {{"point_id", "a"}, {"timing", {{"total_ms", 1500.0}, {"near_timing_floor", true},
                                      {"conditions", {{"flags", {"throttled (sw_power_cap)"}}}}}}},
      {{"point_id", "b"}, {"timing", {{"total_ms", 500.0}, {"near_timing_floor", false}, {"conditions", {{"flags", json::array()}}}}}},
      {{"point_id", "c"}, {"timing", nullptr}},
  };
  RunTimeUse use = run_time_use(results, 4.0);
  EXPECT_DOUBLE_EQ(use.timed_s, 2.0);
  EXPECT_DOUBLE_EQ(use.timed_fraction(), 0.5);
  std::string text = format_timing_flags(results, 0.0025, use);
  EXPECT_NE(text.find("1 point(s) within 5x of it (!floor): a"), std::string::npos) << text;
  EXPECT_NE(text.find("1 point(s) measured while throttled or below the run's start clock (!clocks): a (throttled (sw_power_cap))"),
            std::string::npos) << text;
  EXPECT_NE(text.find("2.0 s of timed samples in 4.0 s of wall time (50%)"), std::string::npos) << text;
}

// A kernel's compile cost as its record keeps it (compile.nvrtc_ms, whoever compiled it): seconds,
// 0 where there is none or it is not a positive number.
TEST(TimeUse, AKernelsCompileTimeIsReadFromItsRecord) {
  using json = nlohmann::ordered_json;
  EXPECT_DOUBLE_EQ(kernel_compile_s({{"compile", {{"compile_ms", 0.0}, {"nvrtc_ms", 1500.0}}}}), 1.5);
  EXPECT_EQ(kernel_compile_s({{"compile", {{"compile_ms", 20.0}}}}), 0.0) << "an older record";
  EXPECT_EQ(kernel_compile_s({{"compile", {{"nvrtc_ms", "slow"}}}}), 0.0);
  EXPECT_EQ(kernel_compile_s({{"compile", {{"nvrtc_ms", -3.0}}}}), 0.0);
  EXPECT_EQ(kernel_compile_s({{"point_id", "a"}}), 0.0) << "a built-in kernel";
}

TEST(TimeUse, SumsThePointsPhases) {
  using json = nlohmann::ordered_json;
  std::vector<json> results = {
      {{"point_id", "a"}, {"timing", {{"total_ms", 1000.0}, {"sampling_wall_s", 1.5}}},
       {"time_use", {{"verify_s", 0.25}, {"problem_s", 2.0}, {"point_s", 4.0}}}},
      {{"point_id", "b"}, {"timing", {{"total_ms", 500.0}, {"sampling_wall_s", 0.75}}},
       {"time_use", {{"verify_s", 0.25}, {"problem_s", 0.0}, {"point_s", 1.5}}},
       {"compile", {{"compile_ms", 200.0}, {"waited_ms", 100.0}}}},  // compiled at its point, after waiting for a worker
      {{"point_id", "c"}, {"timing", nullptr}},  // skipped before it ran: no time_use
  };
  RunTimeUse use = run_time_use(results, 6.0);
  EXPECT_DOUBLE_EQ(use.sampling_s, 2.25);
  EXPECT_DOUBLE_EQ(use.verify_s, 0.5);
  EXPECT_DOUBLE_EQ(use.problem_s, 2.0);
  EXPECT_DOUBLE_EQ(use.compile_s, 0.3);
  EXPECT_DOUBLE_EQ(use.points_s, 5.5);
  // The parts add up to the wall: the points' named parts, the rest of the points, and outside them.
  EXPECT_NEAR(use.sampling_s + use.problem_s + use.verify_s + use.compile_s + use.rest_of_points_s() + use.outside_points_s(),
              use.wall_s, 1e-12);
  json j = to_json(use);
  EXPECT_DOUBLE_EQ(j["outside_points_s"].get<double>(), 0.5);
  EXPECT_NEAR(j["rest_of_points_s"].get<double>(), 0.45, 1e-12);
  EXPECT_EQ(j.size(), 8u);
  EXPECT_EQ(j["kept_points"], 0u);
  std::string text = format_timing_flags(results, 0, use);
  EXPECT_NE(text.find("sampling loops 2.2 s, problems 2.0 s, verification 0.5 s, waiting for the compiler 0.3 s, "
                      "the rest of the points 0.5 s, outside the points 0.5 s\n"),
            std::string::npos)
      << text;
  // A resumed run's line says its sums are this process's points only.
  use.kept_points = 7;
  text = format_timing_flags(results, 0, use);
  EXPECT_NE(text.find("outside the points 0.5 s (this process's points, not the 7 kept)"), std::string::npos) << text;
}

// The event-pair fallback: asked for by the environment, or wherever CUPTI refuses (here, on a
// machine without a GPU, it may or may not); never an exception out of the session.
TEST(TimingSource, EventPairOnRequestAndNoCrashWithoutCupti) {
  ASSERT_EQ(unsetenv("OCCBENCH_TIMING_SOURCE"), 0);
  EXPECT_EQ(timing_source_choice_from_env(), TimingSourceChoice::automatic);
  setenv("OCCBENCH_TIMING_SOURCE", "event", 1);
  EXPECT_EQ(timing_source_choice_from_env(), TimingSourceChoice::event);
  {
    KernelActivitySession session;
    EXPECT_FALSE(session.available());
    EXPECT_NE(session.unavailable_reason().find("OCCBENCH_TIMING_SOURCE=event"), std::string::npos);
    EXPECT_TRUE(session.take_durations_ms().empty());
  }
  MeasurementSettings settings;  // profiled_samples 0: the profiler only when asked for by name
  EXPECT_EQ(profiled_sample_count(settings), 0);  // (=event set above)
  settings.profiled_samples = 7;
  EXPECT_EQ(profiled_sample_count(settings), 0);
  setenv("OCCBENCH_TIMING_SOURCE", "profiler", 1);
  EXPECT_EQ(timing_source_choice_from_env(), TimingSourceChoice::profiler);
  EXPECT_EQ(profiled_sample_count(settings), 7);
  settings.profiled_samples = 0;
  EXPECT_EQ(profiled_sample_count(settings), 10);
  {
    KernelActivitySession session;  // the profiler's samples are not traced
    EXPECT_FALSE(session.available());
    EXPECT_NE(session.unavailable_reason().find("OCCBENCH_TIMING_SOURCE=profiler"), std::string::npos);
  }
  setenv("OCCBENCH_TIMING_SOURCE", "ncu", 1);
  EXPECT_THROW(timing_source_choice_from_env(), std::invalid_argument);
  setenv("OCCBENCH_TIMING_SOURCE", "auto", 1);
  EXPECT_EQ(timing_source_choice_from_env(), TimingSourceChoice::automatic);
  EXPECT_EQ(profiled_sample_count(settings), 0);
  settings.profiled_samples = 7;
  EXPECT_EQ(profiled_sample_count(settings), 7);
  setenv("OCCBENCH_TIMING_SOURCE", "cupti", 1);  // the most CUPTI will do
  EXPECT_EQ(timing_source_choice_from_env(), TimingSourceChoice::cupti);
  KernelActivitySession session;  // with or without a device: available, or a reason
  EXPECT_TRUE(session.available() || !session.unavailable_reason().empty());
  EXPECT_TRUE(session.take_durations_ms().empty());  // nothing was launched
  KernelActivitySession second;  // one at a time: the second says so instead of sharing
  if (session.available()) EXPECT_NE(second.unavailable_reason().find("another"), std::string::npos);
  ASSERT_EQ(unsetenv("OCCBENCH_TIMING_SOURCE"), 0);
}
