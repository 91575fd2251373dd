// The Gaussian process of the bayes search (harness/search/gaussian_process): it interpolates what
// it was told, is unsure away from it, picks a length scale to the data, and its pool predictions
// kept up to date sample by sample are those of the model asked afresh. No GPU needed.
#include "harness/search/gaussian_process.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace occbench;

namespace {

struct Samples {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
};

// `count` random points of [0, 1]^2 and f at them.
template <class F>
Samples sampled(F f, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  Samples out;
  for (std::size_t i = 0; i < count; ++i) {
    out.x.push_back({unit(generator), unit(generator)});
    out.y.push_back(f(out.x.back()));
  }
  return out;
}

double smooth(const std::vector<double>& x) { return 2 * x[0] - x[1] + 0.5 * x[0] * x[1]; }
double rugged(const std::vector<double>& x) { return std::sin(40 * x[0]) * std::cos(37 * x[1]); }

}  // namespace

TEST(GaussianProcess, InterpolatesItsSamplesAndIsUnsureAwayFromThem) {
  Samples s = sampled(smooth, 30, 1);
  GaussianProcess model(s.x, s.y);
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    Prediction p = model.predict(s.x[i]);
    EXPECT_NEAR(p.mean, s.y[i], 0.02) << "sample " << i;
  }
  Prediction near = model.predict(s.x[0]), far = model.predict({3.0, -2.0});
  EXPECT_LT(near.spread, 0.2 * far.spread);
  // Between the samples, a smooth function is predicted well.
  Samples unseen = sampled(smooth, 20, 2);
  for (std::size_t i = 0; i < unseen.x.size(); ++i) EXPECT_NEAR(model.predict(unseen.x[i]).mean, unseen.y[i], 0.1);
}

TEST(GaussianProcess, TheLengthScaleFollowsHowFastTheCostsChange) {
  Samples calm = sampled(smooth, 40, 3), wild = sampled(rugged, 40, 3);
  double calm_length = GaussianProcess(calm.x, calm.y).length_scale(), wild_length = GaussianProcess(wild.x, wild.y).length_scale();
  EXPECT_GE(calm_length, 0.6);
  EXPECT_LE(wild_length, 0.25);
}

// The pool's predictions are kept up to date by rank-one steps (add, revise); they must be what
// the same model predicts for those features from scratch.
TEST(GaussianProcess, PoolPredictionsKeptUpToDateAreThoseAskedAfresh) {
  Samples s = sampled(smooth, 40, 4), pool = sampled(smooth, 25, 5);
  GaussianProcess model({s.x.begin(), s.x.begin() + 20}, {s.y.begin(), s.y.begin() + 20}, pool.x), told = model;
  for (std::size_t i = 20; i < s.x.size(); ++i) model.add(s.x[i], i % 3 ? s.y[i] : 0.0), told.add(s.x[i], s.y[i]);
  for (std::size_t i = 21; i < s.x.size(); i += 3) model.revise(i, s.y[i]);  // believed 0, measured now
  EXPECT_EQ(model.samples(), 40u);
  for (std::size_t j = 0; j < pool.x.size(); ++j) {
    Prediction kept = model.predict(j), afresh = model.predict(pool.x[j]);
    EXPECT_NEAR(kept.mean, afresh.mean, 1e-9) << "pool " << j;
    EXPECT_NEAR(kept.spread, afresh.spread, 1e-9) << "pool " << j;
    EXPECT_NEAR(kept.mean, told.predict(j).mean, 1e-9) << "pool " << j << ": revised as though told the measured targets";
    EXPECT_NEAR(kept.spread, told.predict(j).spread, 1e-9) << "pool " << j;
    EXPECT_NEAR(kept.mean, pool.y[j], 0.1) << "pool " << j;
  }
}

// The bayes search's acquisitions (harness/search/extra_trees): a prediction at the best is as
// likely to improve as not, one far below surely does, and a certain one improves by what it gains.
TEST(Acquisitions, ImprovementIsWhatAPredictionGainsBelowTheBest) {
  EXPECT_NEAR(probability_of_improvement({1.0, 0.2}, 1.0), 0.5, 1e-12);
  EXPECT_NEAR(probability_of_improvement({0.0, 0.2}, 1.0), 1.0, 1e-6);
  EXPECT_NEAR(probability_of_improvement({2.0, 0.2}, 1.0), 0.0, 1e-6);
  EXPECT_NEAR(probability_of_improvement({1.2, 0.2}, 1.0), 0.5 * std::erfc(1.0 / std::sqrt(2.0)), 1e-12);  // one spread above
  EXPECT_EQ(probability_of_improvement({0.9, 0.0}, 1.0), 1.0);
  EXPECT_EQ(probability_of_improvement({1.1, 0.0}, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(expected_improvement({0.7, 0.0}, 1.0), 0.3);
  EXPECT_EQ(expected_improvement({1.3, 0.0}, 1.0), 0.0);
  EXPECT_NEAR(expected_improvement({1.0, 0.2}, 1.0), 0.2 / std::sqrt(2.0 * M_PI), 1e-12);  // at the best: the spread's share
  EXPECT_GT(expected_improvement({1.0, 0.4}, 1.0), expected_improvement({1.0, 0.2}, 1.0));    // more unsure, more to gain
}
