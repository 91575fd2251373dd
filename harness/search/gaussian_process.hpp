#pragma once
// Gaussian-process regression, the model of a Bayesian optimisation (as Kernel Tuner's bayes_opt):
// a Matern 5/2 kernel with one length scale for every feature, chosen among a few by the profile
// likelihood, the amplitude in closed form. It knows a space where neighbouring values of an axis
// cost alike (a tile size's, a split's). Features in [0, 1] (SearchSpace::features).
// Predictions over a pool of candidates are kept and updated sample by sample (O(samples x pool)),
// instead of fitted again: a sample added with its predicted mean as its target (a point asked,
// not measured yet: the kriging believer) narrows the spread around it, and its target is revised
// once measured.
#include "harness/search/extra_trees.hpp"

#include <cstddef>
#include <vector>

namespace occbench {

class GaussianProcess {
 public:
  // x: one row of features per sample; pool: the candidates to predict, rows of the same length.
  GaussianProcess(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                  std::vector<std::vector<double>> pool = {});
  Prediction predict(std::size_t pool_index) const;
  Prediction predict(const std::vector<double>& x) const;  // anywhere: O(samples^2)
  // Another sample (its features and target): every pool prediction updated.
  void add(const std::vector<double>& x, double y);
  // A sample's target changed (a believed one measured).
  void revise(std::size_t sample, double y);
  std::size_t samples() const { return x_.size(); }
  double length_scale() const { return length_; }

  static constexpr double kNoise = 1e-3;  // of the amplitude: measured times repeat to a few per mille

 private:
  double kernel(const std::vector<double>& a, const std::vector<double>& b) const;
  // L^-1 k(samples in L, x): the first entries of x's row of L, were it a sample.
  std::vector<double> solved_kernel(const std::vector<double>& x) const;
  // x's row of L^-1 K(samples, pool), from its row of L (its diagonal last).
  std::vector<double> pool_row(const std::vector<double>& x, const std::vector<double>& lower_row) const;
  // Lower-triangular solve L u = b (b's first `from` entries known zero).
  std::vector<double> forward(const std::vector<double>& b, std::size_t from = 0) const;
  // The Cholesky factor of the samples' kernel (rows of growing length) and z = L^-1 (y - mean),
  // for one length scale; false where it is not positive definite.
  bool factor(double length);
  // The pool's rows of L^-1 K(samples, pool), its means and summed squares, from scratch.
  void predict_pool();
  void add_pool_row(const std::vector<double>& row, double z);
  std::vector<std::vector<double>> x_, pool_;
  std::vector<double> y_;
  double mean_ = 0, length_ = 1;
  std::vector<std::vector<double>> lower_;  // L, row i of length i + 1
  std::vector<double> z_;  // L^-1 (y - mean), the mean the fit's
  double zz_ = 0;           // z . z
  double amplitude() const;  // the kernel's variance, profiled: z . z / samples
  std::vector<std::vector<double>> v_;      // L^-1 K(samples, pool), a row per sample
  std::vector<double> pool_mean_, pool_explained_;  // per candidate: mean + v^T z, v^T v
};

}  // namespace occbench
