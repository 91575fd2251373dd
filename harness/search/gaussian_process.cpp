#include "harness/search/gaussian_process.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace occbench {

GaussianProcess::GaussianProcess(std::vector<std::vector<double>> features, const std::vector<double>& targets,
                                 double length_scale, double noise)
    : x_(std::move(features)), length_scale_(length_scale) {
  std::size_t n = x_.size();
  mean_ = std::accumulate(targets.begin(), targets.end(), 0.0) / double(n);
  double square = 0;
  for (double t : targets) square += (t - mean_) * (t - mean_);
  scale_ = std::sqrt(square / double(n)) + 1e-9;
  cholesky_.assign(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double sum = kernel(x_[i], x_[j]) + (i == j ? noise : 0.0);
      for (std::size_t k = 0; k < j; ++k) sum -= cholesky_[i * n + k] * cholesky_[j * n + k];
      cholesky_[i * n + j] = i == j ? std::sqrt(std::max(sum, 1e-12)) : sum / cholesky_[j * n + j];
    }
  weights_.resize(n);
  for (std::size_t i = 0; i < n; ++i) weights_[i] = (targets[i] - mean_) / scale_;
  forward(weights_);
  for (std::size_t i = n; i-- > 0;) {  // then L^T w = z
    for (std::size_t k = i + 1; k < n; ++k) weights_[i] -= cholesky_[k * n + i] * weights_[k];
    weights_[i] /= cholesky_[i * n + i];
  }
}

double GaussianProcess::kernel(const std::vector<double>& a, const std::vector<double>& b) const {
  double square = 0;
  for (std::size_t d = 0; d < a.size(); ++d) square += (a[d] - b[d]) * (a[d] - b[d]);
  double r = std::sqrt(3.0 * square) / length_scale_;
  return (1.0 + r) * std::exp(-r);
}

void GaussianProcess::forward(std::vector<double>& b) const {
  std::size_t n = x_.size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= cholesky_[i * n + k] * b[k];
    b[i] /= cholesky_[i * n + i];
  }
}

Prediction GaussianProcess::predict(const std::vector<double>& features) const {
  std::vector<double> k(x_.size());
  for (std::size_t i = 0; i < x_.size(); ++i) k[i] = kernel(features, x_[i]);
  double mean = std::inner_product(k.begin(), k.end(), weights_.begin(), 0.0);
  forward(k);  // the variance explained by the samples is |L^-1 k|^2
  double variance = 1.0 - std::inner_product(k.begin(), k.end(), k.begin(), 0.0);
  return {mean_ + scale_ * mean, scale_ * std::sqrt(std::max(variance, 1e-12))};
}

}  // namespace occbench
