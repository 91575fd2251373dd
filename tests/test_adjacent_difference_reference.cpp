#include "harness/random.hpp"
#include "kernels/adjacent_difference/adjacent_difference.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace occbench;

TEST(AdjacentDifferenceReference, HandComputed) {
  std::vector<float> a = {3.0f, 5.0f, 4.5f, -1.0f};
  std::vector<float> b(4);
  adjacent_difference::reference(a.data(), b.data(), a.size());
  EXPECT_EQ(b, (std::vector<float>{3.0f, 2.0f, -0.5f, -5.5f}));
}

TEST(AdjacentDifferenceReference, HostLoopMatchesOnRandomData) {
  // 3000001: above parallel_for's serial threshold, so the reference is split over threads.
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1023), std::size_t(100003), std::size_t(3000001)}) {
    auto a = random_floats(n, 7);
    std::vector<float> expected(n), got(n, -7.0f);
    adjacent_difference::reference(a.data(), expected.data(), n);
    adjacent_difference::host_loop(a.data(), got.data(), n);
    EXPECT_EQ(got, expected) << "n=" << n;
  }
}

TEST(Random, ReproducibleNonZeroAndInRange) {
  auto a = random_floats(3000000, 11);  // large enough to fill on several threads
  auto b = random_floats(3000000, 11);
  auto c = random_floats(3000000, 12);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::size_t zeros = 0;
  for (float v : a) {
    ASSERT_GE(v, -1.0f);
    ASSERT_LT(v, 1.0f);
    zeros += v == 0.0f;
  }
  EXPECT_LT(zeros, 10u);
}

// User kernels' inputs come from this stream: pinned, so a change to it (which would change every
// user sweep's data) is a decision, not an accident.
TEST(Random, UnitRandomStreamIsPinnedAndInRange) {
  EXPECT_DOUBLE_EQ(unit_random(0, 0, 0), 0.33816660127198972);
  EXPECT_DOUBLE_EQ(unit_random(0, 0, 1000000), 0.66065817269423732);
  EXPECT_DOUBLE_EQ(unit_random(2025, 3, 1), 0.64364218653634664);
  for (std::uint64_t i = 0; i < 100000; ++i) {
    double u = unit_random(7, 1, i);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}
