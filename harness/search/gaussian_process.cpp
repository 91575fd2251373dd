#include "harness/search/gaussian_process.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace occbench {

namespace {

// The length scales tried (features span [0, 1]): from a few steps of an axis to all of it.
constexpr double kLengthScales[] = {0.15, 0.25, 0.4, 0.6, 1.0};

double dot(const std::vector<double>& a, const std::vector<double>& b, std::size_t n) {
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace

GaussianProcess::GaussianProcess(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                                 std::vector<std::vector<double>> pool)
    : x_(x), pool_(std::move(pool)), y_(y) {
  if (!y_.empty()) mean_ = std::accumulate(y_.begin(), y_.end(), 0.0) / double(y_.size());
  // The length scale of the highest likelihood, the amplitude profiled out:
  // -n/2 log(z.z / n) - log det L.
  double best = -HUGE_VAL, chosen = kLengthScales[std::size(kLengthScales) - 1];
  for (double length : kLengthScales) {
    if (!factor(length)) continue;
    double n = double(y_.size()), likelihood = 0;
    for (std::size_t i = 0; i < lower_.size(); ++i) likelihood -= std::log(lower_[i][i]);
    if (n > 0) likelihood -= 0.5 * n * std::log(std::max(zz_ / n, 1e-300));
    if (likelihood > best) best = likelihood, chosen = length;
  }
  factor(chosen);
  predict_pool();
}

double GaussianProcess::kernel(const std::vector<double>& a, const std::vector<double>& b) const {
  double squared = 0;
  for (std::size_t i = 0; i < a.size(); ++i) squared += (a[i] - b[i]) * (a[i] - b[i]);
  double d = std::sqrt(5.0 * squared) / length_;
  return (1 + d + d * d / 3) * std::exp(-d);
}

std::vector<double> GaussianProcess::solved_kernel(const std::vector<double>& x) const {
  std::vector<double> k(lower_.size());
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = kernel(x_[i], x);
  return forward(k);
}

std::vector<double> GaussianProcess::pool_row(const std::vector<double>& x, const std::vector<double>& lower_row) const {
  std::size_t n = lower_row.size() - 1;
  std::vector<double> row(pool_.size());
  for (std::size_t j = 0; j < pool_.size(); ++j) {
    double sum = kernel(x, pool_[j]);
    for (std::size_t i = 0; i < n; ++i) sum -= lower_row[i] * v_[i][j];
    row[j] = sum / lower_row[n];
  }
  return row;
}

std::vector<double> GaussianProcess::forward(const std::vector<double>& b, std::size_t from) const {
  std::vector<double> u(lower_.size(), 0.0);
  for (std::size_t i = from; i < lower_.size(); ++i) u[i] = (b[i] - dot(lower_[i], u, i)) / lower_[i][i];
  return u;
}

bool GaussianProcess::factor(double length) {
  length_ = length;
  lower_.clear();
  for (std::size_t i = 0; i < x_.size(); ++i) {
    std::vector<double> solved = solved_kernel(x_[i]);  // the first i entries of L's row i
    solved.resize(i + 1);
    double diagonal = 1 + kNoise - dot(solved, solved, i);
    if (diagonal <= 0) return false;
    solved[i] = std::sqrt(diagonal);
    lower_.push_back(std::move(solved));
  }
  std::vector<double> centred(y_.size());
  for (std::size_t i = 0; i < y_.size(); ++i) centred[i] = y_[i] - mean_;
  z_ = forward(centred);
  zz_ = dot(z_, z_, z_.size());
  return true;
}

void GaussianProcess::predict_pool() {
  pool_mean_.assign(pool_.size(), mean_);
  pool_explained_.assign(pool_.size(), 0.0);
  v_.clear();
  for (std::size_t i = 0; i < x_.size(); ++i) add_pool_row(pool_row(x_[i], lower_[i]), z_[i]);
}

void GaussianProcess::add_pool_row(const std::vector<double>& row, double z) {
  for (std::size_t j = 0; j < row.size(); ++j) pool_mean_[j] += row[j] * z, pool_explained_[j] += row[j] * row[j];
  v_.push_back(row);
}

double GaussianProcess::amplitude() const { return samples() ? std::max(zz_ / double(samples()), 1e-12) : 1.0; }

Prediction GaussianProcess::predict(std::size_t pool_index) const {
  return {pool_mean_[pool_index], std::sqrt(amplitude() * std::max(1 - pool_explained_[pool_index], 1e-12))};
}

Prediction GaussianProcess::predict(const std::vector<double>& x) const {
  std::vector<double> l = solved_kernel(x);
  return {mean_ + dot(l, z_, l.size()), std::sqrt(amplitude() * std::max(1 - dot(l, l, l.size()), 1e-12))};
}

void GaussianProcess::add(const std::vector<double>& x, double y) {
  std::vector<double> l = solved_kernel(x);
  double z = (y - mean_ - dot(l, z_, l.size()));
  l.push_back(std::sqrt(std::max(1 + kNoise - dot(l, l, l.size()), kNoise)));
  z /= l.back();
  std::vector<double> row = pool_row(x, l);
  lower_.push_back(std::move(l));
  x_.push_back(x), y_.push_back(y), z_.push_back(z), zz_ += z * z;
  add_pool_row(row, z);
}

// z = L^-1 (y - mean) is linear in y: a target moved by delta moves z by delta L^-1 e_sample,
// and the pool's means by v^T of that.
void GaussianProcess::revise(std::size_t sample, double y) {
  double delta = y - y_[sample];
  y_[sample] = y;
  std::vector<double> unit(samples(), 0.0);
  unit[sample] = 1;
  std::vector<double> u = forward(unit, sample);
  for (std::size_t i = sample; i < samples(); ++i) {
    double dz = delta * u[i];
    zz_ += dz * (2 * z_[i] + dz);
    z_[i] += dz;
    for (std::size_t j = 0; j < pool_.size(); ++j) pool_mean_[j] += v_[i][j] * dz;
  }
}

}  // namespace occbench
