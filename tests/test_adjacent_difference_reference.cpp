#include "harness/family/random.hpp"
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

// fill_uniform's and fill_uniform_bytes' streams, pinned: the GPU makes the same values from the
// same formulas (harness/family/random_hash.hpp, harness/family/random_device), so a change here changes every
// built-in sweep's inputs on both sides. Values from before the formulas were shared.
TEST(Random, FillStreamsArePinned) {
  std::vector<float> a(2000000);
  fill_uniform(a.data(), a.size(), 2025, -1.0f, 1.0f);
  EXPECT_EQ(a[0], 0x1.767488p-2f);
  EXPECT_EQ(a[1], 0x1.e40698p-2f);
  EXPECT_EQ(a[12345], 0x1.1dcb68p-1f);
  EXPECT_EQ(a[1999999], 0x1.aec298p-2f);
  std::vector<float> w(8);
  fill_uniform(w.data(), w.size(), 2025 ^ 0x5eed, 0.0f, 1.0f);
  EXPECT_EQ(w[7], 0x1.eb8422p-1f);
  std::vector<std::uint8_t> b(100);
  fill_uniform_bytes(b.data(), b.size(), 9);
  EXPECT_EQ(b[0], 229);
  EXPECT_EQ(b[1], 98);
  EXPECT_EQ(b[99], 217);
}
