#include "harness/search/gaussian_process.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace occbench;

namespace {

// Samples of (x - 0.3)^2 at x = 0, 0.2, ..., 1.
GaussianProcess parabola() {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (int i = 0; i <= 5; ++i) x.push_back({0.2 * i}), y.push_back((0.2 * i - 0.3) * (0.2 * i - 0.3));
  return GaussianProcess(x, y);
}

}  // namespace

// At a sample the posterior is the sample, with (nearly) no doubt; between samples it lies
// between their values; far from every sample it falls back to the samples' mean and spread.
TEST(GaussianProcess, PassesThroughItsSamplesAndDoubtsMoreFarFromThem) {
  GaussianProcess model = parabola();
  Prediction at = model.predict({0.4});
  EXPECT_NEAR(at.mean, 0.01, 1e-4);
  EXPECT_LT(at.spread, 1e-3);
  Prediction between = model.predict({0.3});
  EXPECT_LT(between.mean, 0.01 + 1e-4) << "between two samples of 0.01";
  EXPECT_GT(between.spread, at.spread);
  Prediction far = model.predict({25.0});
  double mean = 0, square = 0;
  for (int i = 0; i <= 5; ++i) mean += (0.2 * i - 0.3) * (0.2 * i - 0.3) / 6;
  for (int i = 0; i <= 5; ++i) square += std::pow((0.2 * i - 0.3) * (0.2 * i - 0.3) - mean, 2) / 6;
  EXPECT_NEAR(far.mean, mean, 1e-6);
  EXPECT_NEAR(far.spread, std::sqrt(square), 1e-3);
  EXPECT_GT(far.spread, 10 * between.spread);
}

// Expected improvement under it prefers the gap beside the best samples to a gap near the worst.
TEST(GaussianProcess, ExpectsMostImprovementBesideTheBestSamples) {
  GaussianProcess model = parabola();
  double best = 0.01;
  EXPECT_GT(expected_improvement(model.predict({0.3}), best), expected_improvement(model.predict({0.9}), best));
  EXPECT_GT(expected_improvement(model.predict({0.3}), best), 0.0);
}
