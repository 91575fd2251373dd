// matmul family on the CPU: the reference, the comparison, the work model, the axes.
#include "harness/sweep/config.hpp"
#include "data_dir.hpp"
#include "harness/family/random.hpp"
#include "harness/family/registry.hpp"
#include "kernels/matmul/matmul.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

using namespace occbench;

namespace {

std::vector<std::size_t> all_rows(std::size_t m) {
  std::vector<std::size_t> rows(m);
  std::iota(rows.begin(), rows.end(), std::size_t(0));
  return rows;
}

const Family& family() { return *builtin_registry().find("matmul"); }

}  // namespace

TEST(MatmulReference, HandComputed2x3x2) {
  // A (2 x 3), B (3 x 2): C = [[1*7+2*9+3*11, 1*8+2*10+3*12], [4*7+5*9+6*11, ...]]
  std::vector<float> a = {1, 2, -3, 4, 5, 6};
  std::vector<float> b = {7, 8, 9, -10, 11, 12};
  auto rows = all_rows(2);
  std::vector<double> ref(4), scale(4);
  matmul::reference(a.data(), b.data(), 2, 2, 3, rows, ref.data(), scale.data());
  EXPECT_EQ(ref, (std::vector<double>{1 * 7 + 2 * 9 - 3 * 11, 1 * 8 - 2 * 10 - 3 * 12, 4 * 7 + 5 * 9 + 6 * 11,
                                      4 * 8 - 5 * 10 + 6 * 12}));
  EXPECT_EQ(scale, (std::vector<double>{7 + 18 + 33, 8 + 20 + 36, 28 + 45 + 66, 32 + 50 + 72}));
}

TEST(MatmulReference, NonSquareAgainstNaiveLoopAndSampledRowsAgree) {
  const std::size_t m = 37, n = 19, k = 53;
  auto a = random_floats(m * k, 1), b = random_floats(k * n, 2);
  auto rows = all_rows(m);
  std::vector<double> ref(m * n), scale(m * n);
  matmul::reference(a.data(), b.data(), m, n, k, rows, ref.data(), scale.data());
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      long double s = 0;
      for (std::size_t p = 0; p < k; ++p) s += (long double)a[i * k + p] * b[p * n + j];
      EXPECT_NEAR(ref[i * n + j], double(s), 1e-12) << i << "," << j;
    }
  // A sample of rows gives the same values for those rows.
  std::vector<std::size_t> some = {0, 5, 36};
  std::vector<double> ref2(some.size() * n), scale2(some.size() * n);
  matmul::reference(a.data(), b.data(), m, n, k, some, ref2.data(), scale2.data());
  for (std::size_t i = 0; i < some.size(); ++i)
    for (std::size_t j = 0; j < n; ++j) EXPECT_EQ(ref2[i * n + j], ref[some[i] * n + j]);
}

TEST(MatmulReference, RowsAreAllAtSmallSizesAndASpreadSampleAtLargeOnes) {
  EXPECT_EQ(matmul::reference_rows(1, 1, 1), all_rows(1));
  EXPECT_EQ(matmul::reference_rows(1024, 1024, 1024), all_rows(1024));
  auto rows = matmul::reference_rows(4096, 4096, 4096);
  ASSERT_GE(rows.size(), 100u);
  ASSERT_LT(rows.size(), 200u);
  EXPECT_EQ(rows.front(), 0u);
  EXPECT_EQ(rows.back(), 4095u);
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_LT(rows[i - 1], rows[i]);
  // The sample falls at many positions inside a 32-row tile, not always at the same one.
  std::vector<bool> residues(32, false);
  for (auto r : rows) residues[r % 32] = true;
  EXPECT_GE(std::count(residues.begin(), residues.end(), true), 16);
  // Budget smaller than one row: still the first and the last.
  EXPECT_EQ(matmul::reference_rows(10, 100, 100, 1.0), (std::vector<std::size_t>{0, 9}));
}

TEST(MatmulCompare, PassesFp32AndFailsWrongUnwrittenAndTf32LikeResults) {
  const std::size_t m = 64, n = 48, k = 512;
  auto a = random_floats(m * k, 3), b = random_floats(k * n, 4);
  auto rows = all_rows(m);
  std::vector<double> ref(m * n), scale(m * n);
  matmul::reference(a.data(), b.data(), m, n, k, rows, ref.data(), scale.data());

  // float32 sequential sums (what the naive kernel does) pass.
  std::vector<float> c(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float s = 0;
      for (std::size_t p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
  auto ok = matmul::compare(c.data(), m, n, rows, ref.data(), scale.data(), matmul::kTolerance);
  EXPECT_EQ(ok.status, "passed") << ok.detail;
  EXPECT_EQ(ok.checked, m * n);
  EXPECT_LT(ok.max_rel_error, matmul::kTolerance / 10);

  // Inputs rounded to TF32 (10 explicit mantissa bits) before the product fail.
  auto tf32 = [](float x) {
    std::uint32_t bits;
    std::memcpy(&bits, &x, 4);
    bits = (bits + 0x1000u) & ~0x1FFFu;  // round to nearest on the 13 dropped bits
    std::memcpy(&x, &bits, 4);
    return x;
  };
  std::vector<float> t(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      float s = 0;
      for (std::size_t p = 0; p < k; ++p) s += tf32(a[i * k + p]) * tf32(b[p * n + j]);
      t[i * n + j] = s;
    }
  auto bad = matmul::compare(t.data(), m, n, rows, ref.data(), scale.data(), matmul::kTolerance);
  EXPECT_EQ(bad.status, "failed");
  EXPECT_GT(bad.mismatches, m * n / 10);

  // One element off by 1e-4 of its scale fails, and is named.
  auto wrong = c;
  wrong[5 * n + 7] += float(1e-4 * scale[5 * n + 7]);
  auto one = matmul::compare(wrong.data(), m, n, rows, ref.data(), scale.data(), matmul::kTolerance);
  EXPECT_EQ(one.status, "failed");
  EXPECT_EQ(one.mismatches, 1u);
  EXPECT_NE(one.detail.find("C[5][7]"), std::string::npos) << one.detail;

  // NaN (the poison) never passes.
  auto nan = c;
  nan[m * n - 1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(matmul::compare(nan.data(), m, n, rows, ref.data(), scale.data(), 1e30).mismatches, 1u);
}

TEST(MatmulCompare, UnsampledRowsMustBeWritten) {
  const std::size_t m = 10, n = 4, k = 3;
  auto a = random_floats(m * k, 5), b = random_floats(k * n, 6);
  std::vector<std::size_t> rows = {0, 9};
  std::vector<double> ref(rows.size() * n), scale(rows.size() * n);
  matmul::reference(a.data(), b.data(), m, n, k, rows, ref.data(), scale.data());
  std::vector<float> c(m * n, 0.5f);  // wrong values in rows 1..8 are not compared ...
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < n; ++j) c[rows[i] * n + j] = float(ref[i * n + j]);
  auto v = matmul::compare(c.data(), m, n, rows, ref.data(), scale.data(), matmul::kTolerance);
  EXPECT_EQ(v.status, "passed") << v.detail;
  EXPECT_EQ(v.checked, rows.size() * n);
  c[4 * n + 2] = std::numeric_limits<float>::quiet_NaN();  // ... but an unwritten one is caught
  c[6 * n + 0] = std::numeric_limits<float>::infinity();
  v = matmul::compare(c.data(), m, n, rows, ref.data(), scale.data(), matmul::kTolerance);
  EXPECT_EQ(v.status, "failed");
  EXPECT_EQ(v.mismatches, 2u);
  EXPECT_NE(v.detail.find("C[4][2]"), std::string::npos) << v.detail;
}

TEST(MatmulWork, FlopsCgmaAndDramBytes) {
  // naive: 2 loads per multiply-add, CGMA ~ 1/4 FLOP/B.
  auto naive = matmul::naive_work(1024, 1024, 1024);
  EXPECT_DOUBLE_EQ(naive.flops, 2.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(naive.global_bytes, 4.0 * (2.0 * 1024 * 1024 * 1024 + 1024 * 1024));
  EXPECT_DOUBLE_EQ(naive.dram_bytes, 4.0 * 3 * 1024 * 1024);
  EXPECT_NEAR(naive.flops / naive.global_bytes, 0.25, 1e-3);
  // tiled at a multiple of the tile: (m n k)(1/tile)·2·4 + 4mn bytes, CGMA ~ tile/4.
  for (double tile : {8.0, 16.0, 32.0}) {
    auto w = matmul::tiled_work(1024, 1024, 1024, tile);
    EXPECT_DOUBLE_EQ(w.global_bytes, 1024.0 * 1024 * 1024 / tile * 2 * 4 + 4.0 * 1024 * 1024);
    EXPECT_NEAR(w.flops / w.global_bytes, tile / 4, tile / 4 * 0.02);  // the stores of C take ~tile/2n
    EXPECT_DOUBLE_EQ(w.dram_bytes, naive.dram_bytes);
  }
  // Non-multiples: partial tiles are loaded only where they are inside the matrices.
  auto w = matmul::tiled_work(1000, 1500, 700, 32);
  EXPECT_DOUBLE_EQ(w.global_bytes, 4.0 * (1000.0 * 700 * 47 + 700.0 * 1500 * 32 + 1000.0 * 1500));
  EXPECT_DOUBLE_EQ(w.dram_bytes, 4.0 * (1000.0 * 700 + 700.0 * 1500 + 1000.0 * 1500));
  auto lib = matmul::library_work(1000, 1500, 700);
  EXPECT_DOUBLE_EQ(lib.flops, 2.0 * 1000 * 1500 * 700);
  EXPECT_DOUBLE_EQ(lib.global_bytes, lib.dram_bytes);
}

TEST(MatmulFamily, VariantsAxesAndLaunch) {
  const Family& f = family();
  EXPECT_EQ(f.variant_names(), (std::vector<std::string>{"naive", "tiled", "tiled_bounded", "cublas_sgemm"}));
  const Variant& bounded = *f.find_variant("tiled_bounded");
  Params bp;
  bp.set("m", 64);
  bp.set("n", 64);
  bp.set("k", 64);
  bp.set("tile", 32);
  bp.set("min_blocks", 4);  // 4 x 1024 threads cannot be resident: not instantiated
  EXPECT_NE(bounded.check(bp), "");
  bp.set("min_blocks", 2);
  EXPECT_EQ(bounded.check(bp), "");
  EXPECT_EQ(bounded.launch(bp).kernel_name, "occbench::matmul::tiled_bounded_kernel<32, 2>");
  const Variant& tiled = *f.find_variant("tiled");
  EXPECT_EQ(tiled.find_axis("tile")->check(16), "");
  EXPECT_NE(tiled.find_axis("tile")->check(64), "");
  EXPECT_NE(tiled.find_axis("tile")->check(4), "");
  const Variant& naive = *f.find_variant("naive");
  EXPECT_NE(naive.find_axis("block_size")->check(64), "");  // 64 x 64 = 4096 threads: illegal
  EXPECT_NE(f.find_variant("cublas_sgemm")->notes.find("CUBLAS_DEFAULT_MATH"), std::string::npos);

  Params p;
  p.set("m", 1000);
  p.set("n", 1500);
  p.set("k", 700);
  p.set("tile", 32);
  LaunchSpec l = tiled.launch(p);
  EXPECT_EQ(l.grid.x, 47u);  // ceil(1500 / 32): columns of C
  EXPECT_EQ(l.grid.y, 32u);  // ceil(1000 / 32): rows of C
  EXPECT_EQ(l.block.x, 32u);
  EXPECT_EQ(l.block.y, 32u);
  EXPECT_EQ(l.kernel_name, "occbench::matmul::tiled_kernel<32>");
  ASSERT_NE(l.kernel, nullptr);
  p.set("tile", 8);
  EXPECT_NE(tiled.launch(p).kernel, l.kernel);  // one instantiation per tile
  EXPECT_EQ(tiled.launch(p).kernel_name, "occbench::matmul::tiled_kernel<8>");

  // 32-bit indices and grid.y limits are refused before anything runs.
  Params big;
  big.set("m", 100000);
  big.set("n", 100000);
  big.set("k", 8);
  EXPECT_NE(f.check_sizes(big), "");
  Params tall;
  tall.set("m", 600000);
  tall.set("n", 1);
  tall.set("k", 1);
  tall.set("block_size", 8);
  EXPECT_EQ(f.check_sizes(tall), "");
  EXPECT_NE(naive.check(tall), "");
  tall.set("block_size", 32);
  EXPECT_EQ(naive.check(tall), "");
}

TEST(MatmulFamily, ShippedConfigsUseColdMode) {
  for (const char* name : {"matmul.json", "matmul_4096.json", "matmul_nonsquare.json"}) {
    auto spec = parse_sweep_file(std::string(OCCBENCH_SOURCE_DIR) + "/configs/" + name, builtin_registry());
    EXPECT_EQ(spec.measurement.mode, "cold") << name;  // the seed's cache-clearing step
    EXPECT_EQ(spec.family, "matmul");
    EXPECT_EQ(spec.baseline, "naive");
  }
}
