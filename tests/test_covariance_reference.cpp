// Covariance family on the CPU: the reference on hand-computed matrices, the data, the sampled
// entries, the tolerance and comparison, the work models (CGMA) and the axes and sizes.
#include "harness/model/metrics.hpp"
#include "harness/family/registry.hpp"
#include "kernels/covariance/covariance.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <set>
#include <vector>

using namespace occbench;
using namespace occbench::covariance;

namespace {

const Family& family() { return *builtin_registry().find("covariance"); }

double cgma(const WorkModel& w) { return *cgma_flop_per_byte(w); }

Params sizes(std::int64_t m, std::int64_t n) {
  Params p;
  p.set("m", m);
  p.set("n", n);
  return p;
}

}  // namespace

TEST(CovarianceReference, HandComputedFullMatrix) {
  // D = [[1, 2], [3, 4], [-1, 0]] (3 entries x 2 features):
  // DᵀD = [[1+9+1, 2+12+0], [14, 4+16+0]] = [[11, 14], [14, 20]], C = DᵀD / 3.
  std::vector<float> d = {1, 2, 3, 4, -1, 0};
  auto c = reference_full(d.data(), 3, 2);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_DOUBLE_EQ(c[0], 11.0 / 3);
  EXPECT_DOUBLE_EQ(c[1], 14.0 / 3);
  EXPECT_DOUBLE_EQ(c[2], 14.0 / 3);
  EXPECT_DOUBLE_EQ(c[3], 20.0 / 3);
}

TEST(CovarianceReference, HandComputedPairs) {
  // D = [[1, 0, 2], [-1, 3, 0.5]] (2 x 3): C[2][0] = (2 - 0.5)/2, C[1][1] = 9/2, C[0][2] = C[2][0].
  std::vector<float> d = {1, 0, 2, -1, 3, 0.5f};
  auto v = reference_pairs(d.data(), 2, 3, {{2, 0}, {1, 1}, {0, 2}, {2, 1}});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_DOUBLE_EQ(v[0], 0.75);
  EXPECT_DOUBLE_EQ(v[1], 4.5);
  EXPECT_DOUBLE_EQ(v[2], 0.75);
  EXPECT_DOUBLE_EQ(v[3], 0.75);  // (0*2 + 3*0.5)/2
}

TEST(CovarianceReference, PairsAgreeWithFullOnRandomData) {
  // Large enough for several worker threads in both functions.
  const std::size_t m = 3001, n = 37;
  auto d = make_data(m, n, 3);
  auto full = reference_full(d.data(), m, n);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t a = 0; a < n; ++a)
    for (std::uint32_t b = 0; b < n; ++b) pairs.emplace_back(a, b);
  auto some = reference_pairs(d.data(), m, n, pairs);
  for (std::size_t k = 0; k < pairs.size(); ++k)
    EXPECT_NEAR(some[k], full[pairs[k].first * n + pairs[k].second], 1e-13) << k;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) EXPECT_EQ(full[a * n + b], full[b * n + a]);
}

TEST(CovarianceData, RandomCentredAndReproducible) {
  const std::size_t m = 5000, n = 13;
  auto d = make_data(m, n, 9);
  EXPECT_EQ(d, make_data(m, n, 9));
  EXPECT_NE(d, make_data(m, n, 10));
  std::size_t zeros = 0;
  for (float v : d) zeros += v == 0.0f;
  EXPECT_LT(zeros, 5u);
  for (std::size_t j = 0; j < n; ++j) {
    double sum = 0, squares = 0;
    for (std::size_t k = 0; k < m; ++k) {
      sum += d[k * n + j];
      squares += double(d[k * n + j]) * d[k * n + j];
    }
    EXPECT_LT(std::fabs(sum / m), 1e-6) << "column " << j << " not centred";
    EXPECT_NEAR(squares / m, 1.0 / 3, 0.03) << "column " << j;  // uniform [-1, 1) has variance 1/3
  }
}

TEST(CovarianceData, SingleRowIsNotCentredToZeros) {
  auto d = make_data(1, 50, 4);
  EXPECT_EQ(std::count(d.begin(), d.end(), 0.0f), 0);
  auto two = make_data(2, 50, 4);  // two rows: centred, each column +x and -x
  for (std::size_t j = 0; j < 50; ++j) EXPECT_NEAR(two[j] + two[50 + j], 0.0f, 1e-6f);
}

TEST(CovarianceSampling, IncludesDiagonalLastRowLastColumnAndBothTriangles) {
  const std::uint32_t n = 2475;
  auto positions = sample_positions(n, kRandomSamples, 42);
  std::set<std::pair<std::uint32_t, std::uint32_t>> set(positions.begin(), positions.end());
  EXPECT_EQ(set.size(), positions.size()) << "duplicates";
  EXPECT_TRUE(std::is_sorted(positions.begin(), positions.end()));
  for (std::uint32_t j = 0; j < n; ++j) {
    EXPECT_TRUE(set.count({j, j})) << "diagonal " << j;
    EXPECT_TRUE(set.count({n - 1, j})) << "last row " << j;
    EXPECT_TRUE(set.count({j, n - 1})) << "last column " << j;
  }
  std::size_t lower = 0, upper = 0;
  for (auto [row, col] : positions) {
    ASSERT_LT(row, n);
    ASSERT_LT(col, n);
    if (row == n - 1 || col == n - 1 || row == col) continue;
    lower += row > col;
    upper += row < col;
  }
  // The random draws alternate below/above the diagonal; a few may repeat.
  EXPECT_GT(lower, kRandomSamples / 2 - 50);
  EXPECT_GT(upper, kRandomSamples / 2 - 50);
  EXPECT_EQ(positions, sample_positions(n, kRandomSamples, 42));
  EXPECT_NE(positions, sample_positions(n, kRandomSamples, 43));
}

TEST(CovarianceSampling, TinyMatrices) {
  auto one = sample_positions(1, kRandomSamples, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], std::make_pair(0u, 0u));
  auto two = sample_positions(2, kRandomSamples, 1);
  EXPECT_EQ(two.size(), 4u);  // every entry
}

TEST(CovarianceVerify, FullCheckAtSmallSizesOnly) {
  EXPECT_TRUE(full_check(1000, 100));
  EXPECT_TRUE(full_check(1, 2475));
  EXPECT_FALSE(full_check(20000, 2475));
  EXPECT_FALSE(full_check(200000, 2475));
}

TEST(CovarianceVerify, FloatResultPassesCorruptionFails) {
  const std::size_t m = 1000, n = 33;
  auto d = make_data(m, n, 5);
  auto ref = reference_full(d.data(), m, n);
  std::vector<double> diagonal(n);
  for (std::size_t j = 0; j < n; ++j) diagonal[j] = ref[j * n + j];
  // What a float32 kernel produces: products summed in float, one after the other.
  std::vector<float> got(n * n);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      float sum = 0;
      for (std::size_t k = 0; k < m; ++k) sum = std::fma(d[k * n + a], d[k * n + b], sum);
      got[a * n + b] = sum / float(m);
    }
  double tol = tolerance(m);
  auto ok = compare_covariance(got.data(), n, {}, ref, diagonal, tol);
  EXPECT_EQ(ok.status, "passed") << ok.detail;
  EXPECT_EQ(ok.checked, n * n);
  EXPECT_GT(ok.max_rel_error, 0.0);
  EXPECT_LT(ok.max_rel_error, tol / 2) << "the tolerance should leave a margin";

  auto wrong = got;
  wrong[7 * n + 3] += float(1e-3 * std::sqrt(diagonal[7] * diagonal[3]));  // 0.1% of the column scale
  auto bad = compare_covariance(wrong.data(), n, {}, ref, diagonal, tol);
  EXPECT_EQ(bad.status, "failed");
  EXPECT_EQ(bad.mismatches, 1u);

  auto unwritten = got;
  unwritten[n * n - 1] = NAN;
  EXPECT_EQ(compare_covariance(unwritten.data(), n, {}, ref, diagonal, tol).mismatches, 1u);

  // A row shifted by one column (an indexing slip) fails.
  auto shifted = got;
  std::rotate(shifted.begin() + 5 * n, shifted.begin() + 5 * n + 1, shifted.begin() + 6 * n);
  EXPECT_EQ(compare_covariance(shifted.data(), n, {}, ref, diagonal, tol).status, "failed");
}

TEST(CovarianceVerify, SampledPositionsOnly) {
  const std::size_t m = 50, n = 40;
  auto d = make_data(m, n, 6);
  auto ref = reference_full(d.data(), m, n);
  std::vector<double> diagonal(n);
  for (std::size_t j = 0; j < n; ++j) diagonal[j] = ref[j * n + j];
  std::vector<float> got(ref.begin(), ref.end());
  auto positions = sample_positions(std::uint32_t(n), 10, 1);
  std::vector<double> expected;
  for (auto [r, c] : positions) expected.push_back(ref[r * n + c]);
  got[(n - 1) * n + 17] = -got[(n - 1) * n + 17];  // last row: always sampled
  auto v = compare_covariance(got.data(), n, positions, expected, diagonal, tolerance(m));
  EXPECT_EQ(v.checked, positions.size());
  EXPECT_EQ(v.mismatches, 1u);
}

TEST(CovarianceVerify, ToleranceGrowsWithSqrtM) {
  EXPECT_NEAR(tolerance(1), 4 * FLT_EPSILON, 1e-12);
  EXPECT_NEAR(tolerance(200000) / tolerance(2000), (2 * std::sqrt(200000.0) + 2) / (2 * std::sqrt(2000.0) + 2), 1e-9);
  EXPECT_LT(tolerance(200000), 2e-4);
}

TEST(CovarianceModel, SharedChunkStepCgmaIsChunkOverFour) {
  // Per chunk step: 2c^2 floats loaded, c^3 multiply-adds -> 2c^3 / 8c^2 = c/4 FLOP/B.
  EXPECT_DOUBLE_EQ(cgma(shared_chunk_step_work(2)), 0.5);
  EXPECT_DOUBLE_EQ(cgma(shared_chunk_step_work(8)), 2.0);
  for (int c : {2, 4, 8, 16, 32}) EXPECT_DOUBLE_EQ(cgma(shared_chunk_step_work(c)), c / 4.0);
  // Seed 000 counts a multiply-add as one operation: half of that, its 0.25 and 1.0.
  EXPECT_DOUBLE_EQ(shared_chunk_step_work(2).flops / 2 / shared_chunk_step_work(2).global_bytes, 0.25);
  EXPECT_DOUBLE_EQ(shared_chunk_step_work(8).flops / 2 / shared_chunk_step_work(8).global_bytes, 1.0);
}

TEST(CovarianceModel, SharedLaunchCgmaIsChunkOverFourUpToTheStores) {
  // The whole launch at the seed's size: only the stores of C (8 bytes per computed entry) move
  // it from c/4, by about c/m.
  EXPECT_NEAR(cgma(shared_work(200000, 2475, 2)), 0.5, 0.5 * 1e-4);
  EXPECT_NEAR(cgma(shared_work(200000, 2475, 8)), 2.0, 2.0 * 1e-4);
  for (int c : {2, 4, 8, 16, 32}) {
    double value = cgma(shared_work(20000, 2475, c));
    EXPECT_LT(value, c / 4.0);
    EXPECT_GT(value, c / 4.0 * (1 - 2.0 * c / 20000));
  }
  // Exact on sizes that are multiples of the chunk: blocks T(T+1)/2, steps m/c.
  WorkModel w = shared_work(64, 16, 8);  // T = 2: 3 blocks, 8 steps
  EXPECT_DOUBLE_EQ(w.flops, 3 * 8 * 2 * 512.0);
  EXPECT_DOUBLE_EQ(w.global_bytes, 3 * 8 * 8 * 64.0 + 8 * 136.0);
  EXPECT_DOUBLE_EQ(w.dram_bytes, 4.0 * 64 * 16 + 4.0 * 256);
  EXPECT_DOUBLE_EQ(w.equivalent_flops, 2.0 * 64 * 256);
}

TEST(CovarianceModel, NaiveSymmetricRegisterTiledAndCublas) {
  const std::int64_t m = 20000, n = 2475;
  // Naive: 2 loads per multiply-add -> 0.25 FLOP/B; symmetric does half the work at the same ratio.
  EXPECT_NEAR(cgma(naive_work(m, n)), 0.25, 1e-5);
  EXPECT_NEAR(cgma(symmetric_work(m, n)), 0.25, 1e-4);
  EXPECT_DOUBLE_EQ(naive_work(m, n).flops, 2.0 * m * n * n);
  EXPECT_DOUBLE_EQ(symmetric_work(m, n).flops, useful_flops(m, n));
  EXPECT_DOUBLE_EQ(cublas_work(m, n).flops, useful_flops(m, n));
  EXPECT_FALSE(cgma_flop_per_byte(cublas_work(m, n)).has_value()) << "no CGMA claimed for the library";
  // Register tiles: BM/4 up to the stores.
  EXPECT_NEAR(cgma(register_tiled_work(m, n, 128, 1)), 32.0, 32.0 * 0.01);
  EXPECT_NEAR(cgma(register_tiled_work(m, n, 64, 1)), 16.0, 16.0 * 0.01);
  // Splits do the same stages (m = 20000 is a multiple of 8 * 4).
  EXPECT_DOUBLE_EQ(register_tiled_work(m, n, 128, 4).flops, register_tiled_work(m, n, 128, 1).flops);
  for (auto* f : {&naive_work, &symmetric_work, &cublas_work}) {
    EXPECT_DOUBLE_EQ(f(m, n).dram_bytes, 4.0 * m * n + 4.0 * n * n);
    EXPECT_DOUBLE_EQ(f(m, n).equivalent_flops, 2.0 * m * n * n);
  }
}

TEST(CovarianceModel, RegisterTiledSplits) {
  EXPECT_EQ(register_tiled_rows_per_split(20000, 1), 20000u);
  EXPECT_EQ(register_tiled_splits(20000, 1), 1u);
  EXPECT_EQ(register_tiled_rows_per_split(20000, 3), 6672u);  // ceil(20000/3) = 6667 -> multiple of 8
  EXPECT_EQ(register_tiled_splits(20000, 3), 3u);
  EXPECT_EQ(register_tiled_splits(1, 8), 1u);  // one row: one split
  EXPECT_EQ(register_tiled_splits(31, 16), 4u);  // 8 rows each
  // Stages: 31 rows in splits of 8 -> 4 stages; one 128-tile at n = 7.
  EXPECT_DOUBLE_EQ(register_tiled_work(31, 7, 128, 16).flops, 4 * 8 * 2.0 * 128 * 128);
}

TEST(CovarianceFamily, AxesAndSizes) {
  const Family& f = family();
  EXPECT_EQ(f.variant_names(), (std::vector<std::string>{"naive", "symmetric", "shared_static", "shared_dynamic",
                                                         "register_tiled", "register_tiled_bounded", "cublas_syrk"}));
  const Axis* chunk = f.find_variant("shared_static")->find_axis("chunk_size");
  ASSERT_TRUE(chunk);
  EXPECT_EQ(chunk->legal_values, (std::vector<std::int64_t>{2, 4, 8, 16, 32}));
  EXPECT_NE(chunk->check(3), "");
  EXPECT_EQ(f.find_variant("shared_dynamic")->find_axis("chunk_size")->legal_values, chunk->legal_values);
  EXPECT_NE(f.find_variant("register_tiled")->find_axis("block_tile")->check(96), "");
  EXPECT_EQ(f.find_variant("naive")->find_axis("block_size")->default_value.value_or(0), 8);
  EXPECT_EQ(f.find_variant("symmetric")->find_axis("block_size")->default_value.value_or(0), 8);
  EXPECT_FALSE(f.find_variant("cublas_syrk")->notes.empty());
  // register_tiled_bounded: one __launch_bounds__ instantiation per min_blocks, all at 256 threads.
  const Variant& bounded = *f.find_variant("register_tiled_bounded");
  EXPECT_EQ(bounded.find_axis("min_blocks")->legal_values, (std::vector<std::int64_t>{1, 2, 3, 4}));
  Params bp = sizes(1000, 2476);
  bp.set("min_blocks", 1);
  bp.set("split_k", 1);
  LaunchSpec b1 = bounded.launch(bp);
  EXPECT_EQ(b1.block.count(), 256u);
  EXPECT_EQ(b1.kernel_name, "occbench::covariance::register_tiled_bounded_kernel<128, 8, true, 1>");
  bp.set("min_blocks", 4);
  EXPECT_NE(bounded.launch(bp).kernel, b1.kernel);

  EXPECT_EQ(f.check_sizes(sizes(200000, 2475)), "");
  EXPECT_EQ(f.check_sizes(sizes(65537, 65535)), "");  // 65537 * 65535 = 2^32 - 1
  EXPECT_NE(f.check_sizes(sizes(65538, 65535)), "");
  EXPECT_NE(f.check_sizes(sizes(2000000, 2475)).find("32-bit"), std::string::npos);
  EXPECT_NE(f.check_sizes(sizes(1, 65536)), "");  // n*n = 2^32
  EXPECT_EQ(f.device_bytes(sizes(200000, 2475)), (200000ull * 2475 + 2475ull * 2475) * 4 + (32ull << 20));
}

TEST(CovarianceFamily, LaunchShapes) {
  const Family& f = family();
  Params p = sizes(20000, 2475);
  p.set("chunk_size", 32);
  LaunchSpec s = f.find_variant("shared_static")->launch(p);
  EXPECT_EQ(s.block.count(), 1024u);
  EXPECT_EQ(s.grid.x, 78u);
  EXPECT_EQ(s.grid.y, 78u);
  EXPECT_EQ(s.dynamic_smem_bytes, 0u);
  EXPECT_EQ(s.kernel_name, "occbench::covariance::shared_static_kernel<32>");  // kernel_ref's spelling of 32u
  LaunchSpec d = f.find_variant("shared_dynamic")->launch(p);
  EXPECT_EQ(d.dynamic_smem_bytes, 2u * 32 * 32 * 4);
  EXPECT_NE(d.kernel, s.kernel);

  Params r = sizes(20000, 2475);
  r.set("block_tile", 128);
  r.set("thread_tile", 8);
  r.set("split_k", 4);
  LaunchSpec t = f.find_variant("register_tiled")->launch(r);
  EXPECT_EQ(t.block.count(), 256u);
  EXPECT_EQ(t.grid.x, 210u);  // T = 20 tiles per edge, 20 * 21 / 2 on or below the diagonal
  EXPECT_EQ(t.grid.y, 4u);
  EXPECT_EQ(t.kernel_name, "occbench::covariance::register_tiled_kernel<128, 8, false>");  // 2475 % 4 != 0
  r.set("n", 2476);
  EXPECT_EQ(f.find_variant("register_tiled")->launch(r).kernel_name,
            "occbench::covariance::register_tiled_kernel<128, 8, true>");
}
