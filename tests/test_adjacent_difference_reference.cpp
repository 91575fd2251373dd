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
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1023), std::size_t(100003)}) {
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
