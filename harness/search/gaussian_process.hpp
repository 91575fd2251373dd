#pragma once
// A Gaussian process regression (Rasmussen & Williams, algorithm 2.1): a Matérn 3/2 kernel of
// one length scale over the features, the targets standardized, a small noise for conditioning.
// The posterior's mean and standard deviation are what expected improvement weighs. Exact: its
// cost grows as the cube of the samples, so callers keep them to a few hundred.
#include "harness/search/extra_trees.hpp"

#include <vector>

namespace occbench {

class GaussianProcess {
 public:
  // features: one row per sample, all rows of the same length; at least one sample.
  GaussianProcess(std::vector<std::vector<double>> features, const std::vector<double>& targets, double length_scale = 1.0,
                  double noise = 1e-6);
  // In the targets' units.
  Prediction predict(const std::vector<double>& features) const;

 private:
  double kernel(const std::vector<double>& a, const std::vector<double>& b) const;
  // Solves L z = b in place (L lower triangular, row-major).
  void forward(std::vector<double>& b) const;
  std::vector<std::vector<double>> x_;
  std::vector<double> cholesky_;  // K + noise I = L L^T, row-major
  std::vector<double> weights_;   // (K + noise I)^-1 y, y standardized
  double length_scale_, mean_ = 0, scale_ = 1;
};

}  // namespace occbench
