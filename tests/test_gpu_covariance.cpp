// Covariance on the GPU: every variant at every legal tile/chunk/block value against the
// double-precision CPU reference, outputs poisoned first, at sizes that are multiples of no tile
// (full-matrix check), at the seed's width (sampled check), and verification catching wrong,
// unwritten and skipped entries.
#include "gpu_test_support.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/family/registry.hpp"
#include "kernels/covariance/covariance.hpp"
#include "kernels/covariance/problem.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace occbench;

namespace {

const Family& family() { return *builtin_registry().find("covariance"); }

Params sizes(std::int64_t m, std::int64_t n) {
  Params p;
  p.set("m", m);
  p.set("n", n);
  return p;
}

// Every combination of the variant's axes: all legal values, and for split_k (a range) 1, 3 and 16.
std::vector<Params> every_point(const Variant& v, const Params& base) {
  std::vector<Params> points = {base};
  for (const auto& axis : v.axes) {
    std::vector<std::int64_t> values = axis.legal_values;
    if (values.empty()) values = {axis.min, 3, axis.max};
    std::vector<Params> next;
    for (const auto& p : points)
      for (auto value : values) {
        Params q = p;
        q.set(axis.name, value);
        next.push_back(q);
      }
    points = next;
  }
  return points;
}

Params defaults(const Variant& v, const Params& base) {
  Params p = base;
  for (const auto& axis : v.axes) p.set(axis.name, *axis.default_value);
  return p;
}

void run(const Variant& v, Problem& problem, const Params& params, const LaunchSpec* override_launch = nullptr) {
  LaunchSpec launch = override_launch ? *override_launch : (v.launch ? v.launch(params) : LaunchSpec{});
  v.run(problem, params, launch, nullptr);
  OCCBENCH_CHECK_LAUNCH();
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
}

void set_entry(Problem& problem, std::size_t row, std::size_t col, float value) {
  auto& p = covariance::problem_of(problem);
  OCCBENCH_CUDA_CHECK(cudaMemcpy(p.cov() + row * p.n() + col, &value, sizeof(float), cudaMemcpyHostToDevice));
}

float get_entry(Problem& problem, std::size_t row, std::size_t col) {
  auto& p = covariance::problem_of(problem);
  float value = 0;
  OCCBENCH_CUDA_CHECK(cudaMemcpy(&value, p.cov() + row * p.n() + col, sizeof(float), cudaMemcpyDeviceToHost));
  return value;
}

}  // namespace

TEST(GpuCovariance, EveryVariantEveryParameterFullMatrix) {
  OCCBENCH_REQUIRE_GPU();
  for (std::int64_t n : {1, 7, 33, 100}) {
    for (std::int64_t m : {1, 31, 1000}) {
      Params s = sizes(m, n);
      auto problem = family().make_problem(s, 1000 + 7 * n + m);
      ASSERT_TRUE(covariance::problem_of(*problem).checks_full_matrix());
      for (const auto& v : family().variants) {
        for (const auto& params : every_point(v, s)) {
          auto result = run_and_verify(v, *problem, params);
          EXPECT_EQ(result.status, "passed") << v.name << " " << params.to_string() << ": " << result.detail;
          EXPECT_EQ(result.checked, std::uint64_t(n * n)) << v.name << " " << params.to_string();
        }
      }
    }
  }
}

TEST(GpuCovariance, SampledCheckAtTheSeedsWidth) {
  OCCBENCH_REQUIRE_GPU();
  // 2475 features (the seed's), not a multiple of 4 or of any tile; m = 300 makes the full
  // reference too costly, so a sample is checked.
  const std::int64_t m = 300, n = 2475;
  auto problem = family().make_problem(sizes(m, n), 77);
  ASSERT_FALSE(covariance::problem_of(*problem).checks_full_matrix());
  for (const auto& v : family().variants) {
    std::vector<Params> points = {defaults(v, sizes(m, n))};
    if (v.name == "register_tiled")
      for (const auto& p : every_point(v, sizes(m, n))) points.push_back(p);
    if (v.name == "shared_static" || v.name == "shared_dynamic")
      for (std::int64_t c : {2, 32}) {
        Params p = sizes(m, n);
        p.set("chunk_size", c);
        points.push_back(p);
      }
    for (const auto& params : points) {
      auto result = run_and_verify(v, *problem, params);
      EXPECT_EQ(result.status, "passed") << v.name << " " << params.to_string() << ": " << result.detail;
      EXPECT_GE(result.checked, std::uint64_t(3 * n - 2)) << "diagonal, last row and last column";
      EXPECT_LT(result.checked, std::uint64_t(n * n));
    }
  }
}

TEST(GpuCovariance, SixteenByteLoadPath) {
  OCCBENCH_REQUIRE_GPU();
  // n % 4 == 0 takes register_tiled's float4 loads; the sizes above mostly take the 4-byte path.
  const Variant& v = *family().find_variant("register_tiled");
  for (std::int64_t n : {4, 68, 260}) {
    auto problem = family().make_problem(sizes(333, n), 5 + n);
    for (const auto& params : every_point(v, sizes(333, n))) {
      ASSERT_NE(v.launch(params).kernel_name.find("true>"), std::string::npos);
      auto result = run_and_verify(v, *problem, params);
      EXPECT_EQ(result.status, "passed") << params.to_string() << ": " << result.detail;
      EXPECT_EQ(result.checked, std::uint64_t(n * n));
    }
  }
}

TEST(GpuCovariance, VerificationCatchesUnwrittenOutput) {
  OCCBENCH_REQUIRE_GPU();
  auto problem = family().make_problem(sizes(31, 33), 5);
  problem->poison_outputs();  // nothing runs: every entry stays NaN
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.mismatches, 33u * 33u);
}

TEST(GpuCovariance, VerificationCatchesACorruptedEntry) {
  OCCBENCH_REQUIRE_GPU();
  for (const char* name : {"shared_static", "register_tiled", "cublas_syrk"}) {
    const Variant& v = *family().find_variant(name);
    auto problem = family().make_problem(sizes(1000, 33), 6);
    Params params = defaults(v, sizes(1000, 33));
    ASSERT_EQ(run_and_verify(v, *problem, params).status, "passed") << name;
    // 1% of the entry's column scale (C_jj ~ 1/3): far beyond the tolerance (~8e-6 at m = 1000).
    set_entry(*problem, 20, 5, get_entry(*problem, 20, 5) + 3e-3f);
    auto result = problem->verify();
    EXPECT_EQ(result.status, "failed") << name;
    EXPECT_EQ(result.mismatches, 1u) << name;
  }
}

TEST(GpuCovariance, SampledVerificationCatchesCorruptedDiagonalLastRowAndColumn) {
  OCCBENCH_REQUIRE_GPU();
  const std::size_t m = 300, n = 2475;
  auto problem = family().make_problem(sizes(m, n), 8);
  const Variant& v = *family().find_variant("register_tiled");
  Params params = defaults(v, sizes(m, n));
  struct Entry {
    std::size_t row, col;
  };
  for (Entry e : {Entry{n - 1, 0}, Entry{0, n - 1}, Entry{1234, 1234}, Entry{n - 1, n - 1}}) {
    ASSERT_EQ(run_and_verify(v, *problem, params).status, "passed");
    set_entry(*problem, e.row, e.col, get_entry(*problem, e.row, e.col) + 1e-2f);
    auto result = problem->verify();
    EXPECT_EQ(result.status, "failed") << e.row << "," << e.col;
    EXPECT_EQ(result.mismatches, 1u) << e.row << "," << e.col;
  }
}

TEST(GpuCovariance, VerificationCatchesAKernelThatSkipsTheLastTiles) {
  OCCBENCH_REQUIRE_GPU();
  // The seed kernel launched one row of blocks short: the last rows of C (and, mirrored, the
  // last columns) stay poisoned.
  const Variant& v = *family().find_variant("shared_static");
  Params params = sizes(31, 33);
  params.set("chunk_size", 8);
  auto problem = family().make_problem(params, 9);
  LaunchSpec launch = v.launch(params);
  launch.grid.y -= 1;  // 5 -> 4 block rows: rows 32 of C never computed
  problem->poison_outputs();
  run(v, *problem, params, &launch);
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.mismatches, 2u * 33 - 1);  // row 32 and column 32
}
