// The GPU's inputs are the host's, bit for bit (harness/family/random_device): the built-in families
// check their kernels against host formulas and user kernels' inputs are documented by them.
#include "gpu_test_support.hpp"
#include "harness/family/device_buffer.hpp"
#include "harness/family/element_values.hpp"
#include "harness/family/random.hpp"
#include "harness/family/random_device.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

using namespace occbench;

TEST(GpuRandomDevice, FillUniformEqualsTheHostsEveryElement) {
  OCCBENCH_REQUIRE_GPU();
  struct Case {
    std::size_t count;
    std::uint64_t seed;
    float low, high;
  };
  // Past the guard's 4096 elements and past one grid-stride pass (65536 blocks x 256).
  for (Case c : {Case{1, 0, -1, 1}, Case{4097, 2025, -1, 1}, Case{(1u << 24) + 13, 2025 ^ 0x5eed, 0, 1}, Case{100003, 7, -3, 7.5f}}) {
    DeviceBuffer<float> device(c.count);
    fill_uniform_device(device.get(), c.count, c.seed, c.low, c.high);
    std::vector<float> host(c.count);
    fill_uniform(host.data(), c.count, c.seed, c.low, c.high);
    std::vector<float> got = device.download();
    ASSERT_EQ(std::memcmp(got.data(), host.data(), c.count * sizeof(float)), 0) << c.count << " elements, seed " << c.seed;
  }
}

template <typename T>
void expect_initial_values_equal(ElementKind kind, InitFormula formula, double a, double b) {
  const std::size_t count = 300007;
  DeviceBuffer<T> device(count);
  fill_initial_values_device(kind, device.get(), count, formula, a, b, 2025, 5);
  std::vector<T> got = device.download();
  std::size_t differing = 0;
  for (std::size_t i = 0; i < count; ++i) {
    T want = to_element<T>(init_value_at(formula, a, b, 2025, 5, i));
    differing += std::memcmp(&got[i], &want, sizeof(T)) != 0;
  }
  EXPECT_EQ(differing, 0u) << "kind " << int(kind) << " formula " << int(formula);
}

TEST(GpuRandomDevice, InitialValuesEqualTheHostsForEveryTypeAndFormula) {
  OCCBENCH_REQUIRE_GPU();
  for (InitFormula f : {InitFormula::uniform_real, InitFormula::uniform_integer, InitFormula::iota, InitFormula::constant}) {
    expect_initial_values_equal<float>(ElementKind::float32, f, -1.5, 2.25);
    expect_initial_values_equal<double>(ElementKind::float64, f, -1.5, 2.25);
    expect_initial_values_equal<std::int32_t>(ElementKind::int32, f, -1000, 1000);
    expect_initial_values_equal<std::uint32_t>(ElementKind::uint32, f, 0, 1e6);
    expect_initial_values_equal<std::uint8_t>(ElementKind::uint8, f, 0, 255);
    expect_initial_values_equal<std::int64_t>(ElementKind::int64, f, -1e12, 1e12);
    expect_initial_values_equal<std::uint64_t>(ElementKind::uint64, f, 0, 1e12);
  }
}

TEST(GpuRandomDevice, GuardNamesTheFirstDifferingElement) {
  OCCBENCH_REQUIRE_GPU();
  DeviceBuffer<float> device(100);
  fill_uniform_device(device.get(), 100, 3);
  std::vector<float> host(100);
  fill_uniform(host.data(), 100, 3);
  EXPECT_EQ(first_fill_difference(device.get(), host.data(), sizeof(float), 100), "");
  host[42] += 1.0f;
  EXPECT_NE(first_fill_difference(device.get(), host.data(), sizeof(float), 100).find("element 42"), std::string::npos);
}
