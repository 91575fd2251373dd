// CPU side of the matmul family: work models, the double-precision reference, the comparison.
#include "kernels/matmul/matmul.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace occbench::matmul {

WorkModel naive_work(double m, double n, double k) {
  WorkModel w;
  w.flops = 2 * m * n * k;
  // Each output loads a row of A and a column of B (2k floats) and stores one float.
  w.global_bytes = 4 * (2 * m * n * k + m * n);
  w.dram_bytes = 4 * (m * k + k * n + m * n);
  return w;
}

WorkModel tiled_work(double m, double n, double k, double tile) {
  WorkModel w;
  w.flops = 2 * m * n * k;
  // Every block column (ceil(n/tile) of them) loads all of A once, every block row all of B once;
  // out-of-range tile elements are zero-filled, not loaded. mnk·2·4/tile for multiples of the tile.
  w.global_bytes = 4 * (m * k * std::ceil(n / tile) + k * n * std::ceil(m / tile) + m * n);
  w.dram_bytes = 4 * (m * k + k * n + m * n);
  return w;
}

WorkModel library_work(double m, double n, double k) {
  WorkModel w;
  w.flops = 2 * m * n * k;
  // cuBLAS's own traffic is not modelled: its global bytes are taken as the minimal DRAM bytes,
  // so its CGMA is the problem's arithmetic intensity.
  w.dram_bytes = 4 * (m * k + k * n + m * n);
  w.global_bytes = w.dram_bytes;
  return w;
}

std::vector<std::size_t> reference_rows(std::size_t m, std::size_t n, std::size_t k, double max_macs) {
  std::vector<std::size_t> rows;
  double per_row = double(n) * double(k);
  std::size_t count = m;
  if (double(m) * per_row > max_macs) count = std::min(m, std::max<std::size_t>(2, std::size_t(max_macs / std::max(per_row, 1.0))));
  if (count >= m) {
    rows.resize(m);
    for (std::size_t i = 0; i < m; ++i) rows[i] = i;
    return rows;
  }
  // Evenly spread from row 0 to row m-1 (a spacing that is not a multiple of any tile, so the
  // rows fall at every position inside a tile).
  for (std::size_t i = 0; i < count; ++i) {
    std::size_t r = std::size_t(double(i) * double(m - 1) / double(count - 1) + 0.5);
    if (rows.empty() || r != rows.back()) rows.push_back(r);
  }
  return rows;
}

void reference(const float* a, const float* b, std::size_t m, std::size_t n, std::size_t k,
               const std::vector<std::size_t>& rows, double* ref, double* scale) {
  (void)m;
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < rows.size(); i = next++) {
      std::size_t row = rows[i];
      double* out = ref + i * n;
      double* mag = scale + i * n;
      std::fill(out, out + n, 0.0);
      std::fill(mag, mag + n, 0.0);
      for (std::size_t p = 0; p < k; ++p) {
        double av = a[row * k + p];
        double aa = std::fabs(av);
        const float* brow = b + p * n;
        for (std::size_t j = 0; j < n; ++j) {
          double bv = brow[j];
          out[j] += av * bv;
          mag[j] += aa * std::fabs(bv);
        }
      }
    }
  };
  unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 64u));
  if (double(rows.size()) * double(n) * double(k) < 1e7) threads = 1;
  threads = unsigned(std::min<std::size_t>(threads, std::max<std::size_t>(rows.size(), 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& thread : pool) thread.join();
}

Verification compare(const float* c, std::size_t m, std::size_t n, const std::vector<std::size_t>& rows,
                     const double* ref, const double* scale, double tolerance) {
  Verification v;
  v.tolerance = tolerance;
  v.checked = rows.size() * n;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      std::size_t at = i * n + j;
      double got = c[rows[i] * n + j];
      double expected = ref[at];
      // sum |a||b| is 0 only when a row of A or a column of B is all zeros (never for random data):
      // then the product must be exact.
      double s = scale[at] > 0 ? scale[at] : 1.0;
      double error = std::fabs(got - expected) / s;
      bool bad = !std::isfinite(got) || !(error <= tolerance);
      v.max_rel_error = std::isfinite(error) ? std::max(v.max_rel_error, error) : INFINITY;
      if (bad) {
        if (v.mismatches == 0)
          v.detail = fmt::format("first at C[{}][{}]: got {:.9g}, expected {:.9g} (error {:.3g} of sum |a||b| = {:.6g})",
                                 rows[i], j, got, expected, error, scale[at]);
        ++v.mismatches;
      }
    }
  }
  // Rows the reference did not compute: every element must at least have been written.
  if (rows.size() < m) {
    std::size_t unwritten = 0, first = 0;
    std::vector<bool> sampled(m, false);
    for (auto r : rows) sampled[r] = true;
    for (std::size_t r = 0; r < m; ++r) {
      if (sampled[r]) continue;
      for (std::size_t j = 0; j < n; ++j) {
        if (!std::isfinite(c[r * n + j])) {
          if (unwritten == 0) first = r * n + j;
          ++unwritten;
        }
      }
    }
    if (unwritten) {
      if (v.mismatches == 0)
        v.detail = fmt::format("first at C[{}][{}]: got {}, not a finite value (unwritten)", first / n, first % n,
                               c[first]);
      v.mismatches += unwritten;
      v.max_rel_error = INFINITY;
    }
  }
  v.status = v.mismatches == 0 ? "passed" : "failed";
  return v;
}

}  // namespace occbench::matmul
