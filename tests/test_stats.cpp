#include "harness/measure/stats.hpp"

#include <gtest/gtest.h>

using namespace occbench;

TEST(Stats, SummaryOfKnownSamples) {
  auto s = summarize({4.0, 1.0, 3.0, 2.0}, "cold");
  EXPECT_EQ(s.samples, 4);
  EXPECT_DOUBLE_EQ(s.median_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.mean_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(s.max_ms, 4.0);
  EXPECT_NEAR(s.stddev_ms, 1.2909944487, 1e-9);  // sqrt(5/3)
  EXPECT_NEAR(s.noise, 1.2909944487 / 2.5, 1e-9);
  EXPECT_DOUBLE_EQ(s.total_ms, 10.0);
  EXPECT_DOUBLE_EQ(summarize({5.0, 1.0, 3.0}, "hot").median_ms, 3.0);
}

TEST(Stats, StopRule) {
  MeasurementSettings m;
  m.min_samples = 5;
  m.max_samples = 100;
  m.target_noise = 0.01;
  m.min_time_s = 0.001;  // 1 ms of samples
  m.timeout_s = 1.0;
  TimingStats quiet = summarize({1, 1, 1, 1}, "cold");
  EXPECT_EQ(stop_reason(quiet, 0.0, m), "");  // too few samples
  quiet = summarize({1, 1, 1, 1, 1}, "cold");
  EXPECT_EQ(stop_reason(quiet, 0.0, m), "converged");
  TimingStats noisy = summarize({1, 2, 1, 2, 1, 2}, "cold");
  EXPECT_EQ(stop_reason(noisy, 0.5, m), "");
  EXPECT_EQ(stop_reason(noisy, 1.5, m), "timeout");
  m.min_time_s = 1.0;  // 1000 ms needed, only 5 ms measured
  EXPECT_EQ(stop_reason(quiet, 0.0, m), "");
  m.max_samples = 5;
  EXPECT_EQ(stop_reason(quiet, 0.0, m), "max_samples");
}
