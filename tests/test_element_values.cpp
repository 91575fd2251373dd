// The shared formulas of a user kernel's initial values (harness/family/element_values.hpp): the host
// computes them here exactly as the GPU does in harness/family/random_device.cu (checked bit for bit
// there by tests/test_gpu_random_device.cpp), so their rules are pinned on the CPU.
#include "harness/family/element_values.hpp"
#include "harness/family/random.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

using namespace occbench;

TEST(ElementValues, FormulasAreTheDocumentedOnes) {
  for (std::uint64_t i : {0ull, 1ull, 99ull, 123456789ull}) {
    double u = unit_random(2025, 3, i);
    EXPECT_EQ(init_value_at(InitFormula::uniform_real, -2.0, 6.0, 2025, 3, i), -2.0 + 8.0 * u);
    EXPECT_EQ(init_value_at(InitFormula::uniform_integer, 0.0, 255.0, 2025, 3, i), std::floor(256.0 * u));
    EXPECT_EQ(init_value_at(InitFormula::iota, 5.0, 0.5, 2025, 3, i), 5.0 + 0.5 * double(i));
    EXPECT_EQ(init_value_at(InitFormula::constant, 7.25, 0.0, 2025, 3, i), 7.25);
  }
  // Integers cover [low, high] inclusive: both ends occur in a few thousand draws of 0..3.
  bool low = false, high = false;
  for (std::uint64_t i = 0; i < 4000; ++i) {
    double v = init_value_at(InitFormula::uniform_integer, 0.0, 3.0, 1, 0, i);
    ASSERT_GE(v, 0.0);
    ASSERT_LE(v, 3.0);
    low |= v == 0.0;
    high |= v == 3.0;
  }
  EXPECT_TRUE(low && high);
}

TEST(ElementValues, ConversionRoundsAndClampsPerType) {
  EXPECT_EQ(to_element<float>(0.1), 0.1f);
  EXPECT_EQ(to_element<double>(0.1), 0.1);
  EXPECT_EQ(to_element<std::int32_t>(2.5), 3);    // half away from zero
  EXPECT_EQ(to_element<std::int32_t>(-2.5), -3);
  EXPECT_EQ(to_element<std::int32_t>(1e12), 2147483647);
  EXPECT_EQ(to_element<std::int32_t>(-1e12), -2147483647 - 1);
  EXPECT_EQ(to_element<std::uint32_t>(-4.0), 0u);
  EXPECT_EQ(to_element<std::uint32_t>(1e12), 4294967295u);
  EXPECT_EQ(to_element<std::uint8_t>(300.0), 255);
  EXPECT_EQ(to_element<std::uint8_t>(-1.0), 0);
  EXPECT_EQ(to_element<std::uint8_t>(127.5), 128);
  EXPECT_EQ(to_element<std::int64_t>(-5e15), std::int64_t(-5e15));
  EXPECT_EQ(to_element<std::uint64_t>(-3.0), 0u);
  EXPECT_EQ(to_element<std::uint64_t>(9e15), std::uint64_t(9e15));
}
