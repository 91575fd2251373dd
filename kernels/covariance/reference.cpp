// CPU side of the covariance family: the input data, the double-precision reference (full or at
// sampled entries), the entries sampled, and the tolerance.
#include "kernels/covariance/covariance.hpp"

#include "harness/family/random.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <random>
#include <thread>

namespace occbench::covariance {

namespace {

unsigned worker_count(std::size_t work_items, std::size_t min_items_per_worker) {
  unsigned hw = std::max(1u, std::min(std::thread::hardware_concurrency(), 64u));
  std::size_t useful = std::max<std::size_t>(1, work_items / std::max<std::size_t>(1, min_items_per_worker));
  return unsigned(std::min<std::size_t>(hw, useful));
}

// Runs body(worker, begin, end) over [0, count) split into `workers` contiguous ranges.
template <typename Body>
void parallel_ranges(std::size_t count, unsigned workers, Body&& body) {
  if (workers <= 1) {
    body(0u, std::size_t(0), count);
    return;
  }
  std::vector<std::thread> pool;
  std::size_t chunk = (count + workers - 1) / workers;
  for (unsigned w = 0; w < workers; ++w) {
    std::size_t begin = std::min(count, w * chunk), end = std::min(count, begin + chunk);
    pool.emplace_back([&body, w, begin, end] { body(w, begin, end); });
  }
  for (auto& t : pool) t.join();
}

}  // namespace

void center_columns(float* d, std::size_t m, std::size_t n) {
  if (m < 2 || n == 0) return;
  unsigned workers = worker_count(m, 4096);
  std::vector<std::vector<double>> partial(workers, std::vector<double>(n, 0.0));
  parallel_ranges(m, workers, [&](unsigned w, std::size_t begin, std::size_t end) {
    double* sum = partial[w].data();
    for (std::size_t k = begin; k < end; ++k) {
      const float* row = d + k * n;
      for (std::size_t j = 0; j < n; ++j) sum[j] += row[j];
    }
  });
  std::vector<double> mean(n, 0.0);
  for (const auto& p : partial)
    for (std::size_t j = 0; j < n; ++j) mean[j] += p[j];
  for (auto& v : mean) v /= double(m);
  parallel_ranges(m, workers, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      float* row = d + k * n;
      for (std::size_t j = 0; j < n; ++j) row[j] = float(double(row[j]) - mean[j]);
    }
  });
}

std::vector<float> make_data(std::size_t m, std::size_t n, std::uint64_t seed) {
  std::vector<float> d = random_floats(m * n, seed);
  center_columns(d.data(), m, n);
  return d;
}

std::vector<double> reference_full(const float* d, std::size_t m, std::size_t n) {
  // Columns of D as contiguous doubles, so each dot product streams two arrays.
  std::vector<double> columns(n * m);
  for (std::size_t k = 0; k < m; ++k)
    for (std::size_t j = 0; j < n; ++j) columns[j * m + k] = d[k * n + j];
  std::vector<double> c(n * n);
  unsigned workers = worker_count(n * (n + 1) / 2 * m, std::size_t(1) << 22);
  std::vector<std::thread> pool;
  auto rows = [&](unsigned w, unsigned stride) {
    for (std::size_t a = w; a < n; a += stride) {  // interleaved rows: balanced triangle
      const double* x = columns.data() + a * m;
      for (std::size_t b = 0; b <= a; ++b) {
        const double* y = columns.data() + b * m;
        double sum = 0;
        for (std::size_t k = 0; k < m; ++k) sum += x[k] * y[k];
        c[a * n + b] = c[b * n + a] = sum / double(m);
      }
    }
  };
  if (workers <= 1) {
    rows(0, 1);
  } else {
    for (unsigned w = 0; w < workers; ++w) pool.emplace_back(rows, w, workers);
    for (auto& t : pool) t.join();
  }
  return c;
}

std::vector<double> reference_pairs(const float* d, std::size_t m, std::size_t n,
                                    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) {
  const std::size_t count = pairs.size();
  std::vector<std::uint32_t> first(count), second(count);
  for (std::size_t p = 0; p < count; ++p) {
    first[p] = pairs[p].first;
    second[p] = pairs[p].second;
  }
  // Each worker takes a range of rows of D (one pass over D in all) with its own sums; the
  // partial sums are then added in worker order.
  unsigned workers = worker_count(m * std::max<std::size_t>(count, 1), std::size_t(1) << 22);
  std::vector<std::vector<double>> partial(workers, std::vector<double>(count, 0.0));
  parallel_ranges(m, workers, [&](unsigned w, std::size_t begin, std::size_t end) {
    double* sum = partial[w].data();
    for (std::size_t k = begin; k < end; ++k) {
      const float* row = d + k * n;
      for (std::size_t p = 0; p < count; ++p) sum[p] += double(row[first[p]]) * double(row[second[p]]);
    }
  });
  std::vector<double> result(count, 0.0);
  for (const auto& p : partial)
    for (std::size_t i = 0; i < count; ++i) result[i] += p[i];
  for (auto& v : result) v /= double(m);
  return result;
}

bool full_check(std::size_t m, std::size_t n) {
  // Up to 2^27 multiply-adds (~0.1 s on one core): every test size and any n at small m.
  double work = double(n) * double(n + 1) / 2.0 * double(m);
  return work <= double(std::size_t(1) << 27);
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> sample_positions(std::uint32_t n, std::size_t random_count,
                                                                      std::uint64_t seed) {
  std::vector<std::uint64_t> keys;  // row * n + col
  keys.reserve(3 * std::size_t(n) + random_count);
  const std::uint64_t last = n - 1;
  for (std::uint64_t j = 0; j < n; ++j) {
    keys.push_back(j * n + j);     // diagonal
    keys.push_back(last * n + j);  // last row
    keys.push_back(j * n + last);  // last column
  }
  if (n >= 2) {
    std::mt19937_64 rng(seed ^ 0x5a17c0de5a17c0deull);
    std::uniform_int_distribution<std::uint32_t> pick(0, n - 1);
    for (std::size_t s = 0; s < random_count; ++s) {
      std::uint32_t a = pick(rng), b = pick(rng);
      while (a == b) b = pick(rng);
      // Alternate: even draws strictly below the diagonal, odd draws strictly above.
      std::uint32_t row = s % 2 == 0 ? std::max(a, b) : std::min(a, b);
      std::uint32_t col = s % 2 == 0 ? std::min(a, b) : std::max(a, b);
      keys.push_back(std::uint64_t(row) * n + col);
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> positions;
  positions.reserve(keys.size());
  for (auto key : keys) positions.emplace_back(std::uint32_t(key / n), std::uint32_t(key % n));
  return positions;
}

// Why this tolerance. Each kernel (cuBLAS aside) sums the m products of one entry in float32,
// one after the other (a chunk or k-tile at a time, but in order). With round-to-nearest the
// rounding error of the add at step k is at most u|S_k| (u = 2^-24, S_k the partial sum) and is
// close to uniformly distributed, so the sum's error has a standard deviation of about
// u * sqrt(sum_k S_k^2 / 3). It is largest when the partial sums grow steadily: on the diagonal
// (and for fully correlated columns) S_k ~ k C_jj, giving u * sqrt(m/9) * m C_jj, i.e.
// u sqrt(m) / 3 relative to m C_jj; uncorrelated columns give far less (their partial sums
// random-walk). Measured against sqrt(C_jj C_JJ), the Cauchy-Schwarz bound of |C_jJ| (equal to
// C_jj on the diagonal), one standard deviation is therefore at most u sqrt(m)/3 =
// FLT_EPSILON sqrt(m)/6. We allow 2 FLT_EPSILON sqrt(m), twelve of those, plus 2 FLT_EPSILON
// for the final division by m (or cuBLAS's alpha = 1/m) and the rounding of the result. At
// m = 1 the product is exact and only that rounding remains. An entry whose covariance is near
// zero keeps the scale of its columns, so it never demands an impossible relative accuracy;
// a wrong, missing (NaN) or misplaced entry is off by about its columns' scale and fails.
// Split-K and cuBLAS's blocked sums only shorten the sequential runs, so they err less.
double tolerance(std::size_t m) { return double(FLT_EPSILON) * (2.0 * std::sqrt(double(std::max<std::size_t>(m, 1))) + 2.0); }

Verification compare_covariance(const float* got, std::size_t n,
                                const std::vector<std::pair<std::uint32_t, std::uint32_t>>& positions,
                                const std::vector<double>& expected, const std::vector<double>& diagonal,
                                double tol) {
  Verification v;
  v.tolerance = tol;
  const bool all = positions.empty();
  const std::size_t count = all ? n * n : positions.size();
  v.checked = count;
  for (std::size_t k = 0; k < count; ++k) {
    std::size_t row = all ? k / n : positions[k].first;
    std::size_t col = all ? k % n : positions[k].second;
    double value = double(got[row * n + col]);
    double want = expected[k];
    double scale = std::sqrt(std::max(diagonal[row], 0.0) * std::max(diagonal[col], 0.0));
    double error = std::fabs(value - want) / (scale > 0 ? scale : 1.0);
    bool bad = !std::isfinite(value) || !(error <= tol);
    v.max_rel_error = std::isfinite(error) ? std::max(v.max_rel_error, error) : INFINITY;
    if (bad) {
      if (v.mismatches == 0)
        v.detail = fmt::format("first at C[{}][{}]: got {:.9g}, expected {:.9g} (column scale {:.3g})", row, col, value,
                               want, scale);
      ++v.mismatches;
    }
  }
  v.status = v.mismatches == 0 ? "passed" : "failed";
  return v;
}

}  // namespace occbench::covariance
