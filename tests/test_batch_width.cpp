// The search's batch width rule (harness/search/batch_width.hpp): one point at a time where
// measuring is the slower part, as wide as compiling needs where it is not, never wider than the
// compilers, and wider only where the strategy's next points do not depend on results.
#include "harness/search/batch_width.hpp"

#include <gtest/gtest.h>

#include <cstdint>

using namespace occbench;

namespace {

// `told` points each compiled in `compile_s` and measured in `measure_s`.
BatchWidth width_after(std::size_t told, double compile_s, double measure_s, std::size_t free_room = 0) {
  TimesTold times;
  for (std::size_t k = 0; k < told; ++k) times.add({compile_s, measure_s});
  return batch_width(BatchWidthRule{16}, times, free_room);
}

}  // namespace

TEST(BatchWidth, OneAtATimeUntilSomethingIsMeasured) {
  EXPECT_EQ(width_after(0, 0, 0).width, 1u);
  EXPECT_NE(describe(width_after(0, 0, 0), BatchWidthRule{16}).find("one point at a time: nothing measured yet"), std::string::npos);
}

TEST(BatchWidth, OneAtATimeWhereMeasuringIsTheSlowerPart) {
  EXPECT_EQ(width_after(5, 0.1, 0.5).width, 1u);
  EXPECT_EQ(width_after(5, 0.5, 0.5).width, 1u);
  EXPECT_EQ(width_after(5, 0.0, 0.5).width, 1u) << "every kernel cached: nothing to wait for";
}

TEST(BatchWidth, AsWideAsCompilingNeedsAndNoWiderThanTheCompilers) {
  EXPECT_EQ(width_after(4, 1.0, 0.25).width, 4u);
  EXPECT_EQ(width_after(4, 1.0, 0.3).width, 4u) << "ceil(3.33)";
  EXPECT_EQ(width_after(4, 10.0, 0.1).width, 16u);
  EXPECT_EQ(width_after(4, 1.0, 0.0).width, 16u) << "no measuring time kept: as wide as the compilers";
  EXPECT_EQ(describe(width_after(4, 1.0, 0.25), BatchWidthRule{16}),
            "batches of 4: the slowest kernel so far compiled in 1 s, a point measures in 0.25 s (median of 4), at most 16");
}

// A batch waits for its slowest compilation, and a first point's setup (its inputs, its
// reference) must not make measuring look slow: the slowest compile over the median measure.
TEST(BatchWidth, TheSlowestCompileOverTheMedianMeasure) {
  TimesTold times;
  times.add({0.5, 3.0});  // the first point: its problem built and checked
  times.add({4.0, 0.5});
  times.add({0.3, 0.5});
  EXPECT_EQ(times.slowest_compile_s(), 4.0);
  EXPECT_EQ(times.median_measure_s(), 0.5);
  EXPECT_EQ(batch_width(BatchWidthRule{16}, times).width, 8u);
  times.add({0.2, 0.7});
  EXPECT_EQ(times.median_measure_s(), 0.6);
  EXPECT_EQ(batch_width(BatchWidthRule{16}, times).width, 7u);
}

TEST(BatchWidth, WiderWhereTheStrategysNextPointsDoNotDependOnResults) {
  BatchWidth start = width_after(0, 0, 0, 7);
  EXPECT_EQ(start.width, 7u);
  EXPECT_EQ(start.for_compiling, 1u);
  EXPECT_NE(describe(start, BatchWidthRule{16}).find("do not depend on results"), std::string::npos);
  EXPECT_EQ(width_after(3, 0.1, 0.5, SIZE_MAX).width, 16u) << "a random sample: as wide as the compilers";
  EXPECT_EQ(width_after(3, 2.0, 0.5, 2).width, 4u) << "the times ask for more than is free";
}
