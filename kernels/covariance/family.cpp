// The covariance family: sizes, the problem (data, outputs, cuBLAS handle, reference) and the
// variants built next to their kernels.
#include "kernels/covariance/covariance.hpp"
#include "kernels/covariance/problem.hpp"

#include "harness/family/family_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <stdexcept>

namespace occbench::covariance {

CovarianceProblem::CovarianceProblem(std::uint32_t m, std::uint32_t n, std::uint64_t seed)
    : m_(m),
      n_(n),
      seed_(seed),
      host_data_(make_data(m, n, seed)),
      data_(std::size_t(m) * n),
      cov_(std::size_t(n) * n),
      workspace_(kCublasWorkspaceBytes) {
  data_.upload(host_data_);
  OCCBENCH_CUBLAS_CHECK(cublasCreate(&cublas_));
}

CovarianceProblem::~CovarianceProblem() {
  if (cublas_) cublasDestroy(cublas_);
}

bool CovarianceProblem::checks_full_matrix() const { return full_check(m_, n_); }

void CovarianceProblem::compute_reference() {
  const std::size_t n = n_;
  if (checks_full_matrix()) {
    positions_.clear();
    expected_ = reference_full(host_data_.data(), m_, n);
    diagonal_.resize(n);
    for (std::size_t j = 0; j < n; ++j) diagonal_[j] = expected_[j * n + j];
  } else {
    positions_ = sample_positions(n_, kRandomSamples, seed_);
    // Each distinct unordered pair once, the diagonal first (its values are the column scales).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (std::uint32_t j = 0; j < n_; ++j) pairs.emplace_back(j, j);
    std::vector<std::size_t> pair_of(positions_.size());
    std::vector<std::uint64_t> keys;
    for (const auto& [row, col] : positions_)
      if (row != col) keys.push_back(std::uint64_t(std::max(row, col)) * n + std::min(row, col));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (auto key : keys) pairs.emplace_back(std::uint32_t(key / n), std::uint32_t(key % n));
    std::vector<double> values = reference_pairs(host_data_.data(), m_, n, pairs);
    diagonal_.assign(values.begin(), values.begin() + n);
    expected_.resize(positions_.size());
    for (std::size_t k = 0; k < positions_.size(); ++k) {
      auto [row, col] = positions_[k];
      if (row == col) {
        expected_[k] = diagonal_[row];
      } else {
        std::uint64_t key = std::uint64_t(std::max(row, col)) * n + std::min(row, col);
        auto at = std::lower_bound(keys.begin(), keys.end(), key) - keys.begin();
        expected_[k] = values[n + std::size_t(at)];
      }
    }
  }
  have_reference_ = true;
}

Verification CovarianceProblem::verify() {
  if (!have_reference_) compute_reference();
  std::vector<float> got = cov_.download();
  return compare_covariance(got.data(), n_, positions_, expected_, diagonal_, tolerance(m_));
}

double useful_flops(double m, double n) { return n * (n + 1) * m; }

Family make_family() {
  return FamilyBuilder("covariance",
                       "C = (1/m) DᵀD for a mean-centred m x n float32 D (seeds 000, 002): naive, symmetric, shared-memory "
                       "tiles (static and dynamic) over chunk sizes, a register-tiled kernel and cuBLAS SSYRK")
      .size(axis("m", "entries (rows of D), the length of each dot product").in(1, std::numeric_limits<std::uint32_t>::max()))
      .size(axis("n", "features (columns of D); C is n x n; the kernels index with 32-bit unsigned integers")
                .in(1, 65535))  // n*n must fit 32 bits
      .check_sizes([](const Params& s) -> std::string {
        const std::uint64_t limit = std::numeric_limits<std::uint32_t>::max();
        std::uint64_t mv = std::uint64_t(s.get("m")), nv = std::uint64_t(s.get("n"));
        if (mv * nv > limit)
          return fmt::format("m*n = {} elements of D exceeds the 32-bit unsigned indexing of the kernels (at most {})",
                             mv * nv, limit);
        if (nv * nv > limit)
          return fmt::format("n*n = {} elements of C exceeds the 32-bit unsigned indexing of the kernels (at most {})",
                             nv * nv, limit);
        return "";
      })
      .device_bytes([](const Params& s) {
        std::uint64_t mv = std::uint64_t(s.get("m")), nv = std::uint64_t(s.get("n"));
        return (mv * nv + nv * nv) * sizeof(float) + kCublasWorkspaceBytes;
      })
      .problem([](const Params& s, std::uint64_t seed) -> std::unique_ptr<Problem> {
        return std::make_unique<CovarianceProblem>(std::uint32_t(s.get("m")), std::uint32_t(s.get("n")), seed);
      })
      .variant(naive_variant())
      .variant(symmetric_variant())
      .variant(shared_static_variant())
      .variant(shared_dynamic_variant())
      .variant(register_tiled_variant())
      .variant(register_tiled_bounded_variant())
      .variant(cublas_syrk_variant());
}

}  // namespace occbench::covariance
