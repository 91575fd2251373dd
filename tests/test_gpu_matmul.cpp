// matmul on the GPU: every variant x legal parameter against the double-precision reference at
// awkward sizes (1, primes, non-multiples of every tile), outputs poisoned; verification catches
// unwritten rows and TF32 results.
#include "gpu_test_support.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/family/registry.hpp"
#include "kernels/matmul/matmul.hpp"
#include "kernels/matmul/problem.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

using namespace occbench;

namespace {

const Family& family() { return *builtin_registry().find("matmul"); }

Params sizes_of(std::int64_t m, std::int64_t n, std::int64_t k) {
  Params p;
  p.set("m", m);
  p.set("n", n);
  p.set("k", k);
  return p;
}

// Every point of every variant: each combination of its axes' legal values that the variant
// accepts (tiled_bounded instantiates only some tile/min_blocks pairs), or the sizes alone.
std::vector<Params> points_of(const Variant& v, const Params& sizes) {
  std::vector<Params> points = {sizes};
  for (const auto& axis : v.axes) {
    std::vector<Params> next;
    for (const auto& p : points)
      for (auto value : axis.legal_values) {
        Params q = p;
        q.set(axis.name, value);
        next.push_back(q);
      }
    points = next;
  }
  std::vector<Params> accepted;
  for (const auto& p : points)
    if (!v.check || v.check(p).empty()) accepted.push_back(p);
  return accepted;
}

}  // namespace

namespace {

void check_every_variant(std::int64_t m, std::int64_t n, std::int64_t k) {
  Params sizes = sizes_of(m, n, k);
  ASSERT_EQ(family().check_sizes(sizes), "");
  auto problem = family().make_problem(sizes, 100 + m + n + k);
  for (const auto& v : family().variants) {
    for (const auto& params : points_of(v, sizes)) {
      if (v.check) ASSERT_EQ(v.check(params), "") << params.to_string();
      auto result = run_and_verify(v, *problem, params);
      EXPECT_EQ(result.status, "passed") << v.name << " " << params.to_string() << ": " << result.detail;
      EXPECT_EQ(result.checked, std::uint64_t(m * n)) << v.name << " " << params.to_string();
      EXPECT_LT(result.max_rel_error, matmul::kTolerance) << v.name << " " << params.to_string();
    }
  }
}

}  // namespace

// Small enough for compute-sanitizer.
TEST(GpuMatmul, EveryVariantCorrectAtAwkwardSizes) {
  OCCBENCH_REQUIRE_GPU();
  const std::array<std::array<std::int64_t, 3>, 11> shapes = {{{1, 1, 1},
                                                               {31, 33, 17},
                                                               {33, 31, 65},
                                                               {1000, 1, 1},
                                                               {1, 1000, 1},
                                                               {1, 1, 1000},
                                                               {7, 5, 3},
                                                               {127, 131, 257},
                                                               {97, 1009, 31},
                                                               {257, 263, 269},
                                                               {64, 96, 128}}};
  for (const auto& [m, n, k] : shapes) check_every_variant(m, n, k);
}

// The shape of configs/matmul_nonsquare.json, checked in full.
TEST(GpuMatmul, EveryVariantCorrectAtTheNonSquareConfigShape) {
  OCCBENCH_REQUIRE_GPU();
  check_every_variant(1000, 1500, 700);
}

TEST(GpuMatmul, SampledReferenceAtALargeSize) {
  OCCBENCH_REQUIRE_GPU();
  // 3000 x 2900 x 300 is over the full-reference budget: a sample of rows is compared by value,
  // the rest only checked for being written.
  Params sizes = sizes_of(3000, 2900, 300);
  auto problem = family().make_problem(sizes, 77);
  auto& mp = dynamic_cast<matmul::MatmulProblem&>(*problem);
  ASSERT_LT(mp.rows().size(), 3000u);
  for (const auto& v : family().variants) {
    for (const auto& params : points_of(v, sizes)) {
      auto result = run_and_verify(v, *problem, params);
      EXPECT_EQ(result.status, "passed") << v.name << " " << params.to_string() << ": " << result.detail;
      EXPECT_EQ(result.checked, mp.rows().size() * 2900);
    }
  }
  // The tiled kernel one block row short: rows 2976..2999 stay poisoned, sampled or not.
  const Variant& tiled = *family().find_variant("tiled");
  Params params = sizes;
  params.set("tile", 32);
  LaunchSpec launch = tiled.launch(params);
  launch.grid.y -= 1;
  problem->poison_outputs();
  tiled.run(*problem, params, launch, nullptr);
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.mismatches, std::uint64_t(3000 - 2976) * 2900);
}

TEST(GpuMatmul, VerificationCatchesUnwrittenOutput) {
  OCCBENCH_REQUIRE_GPU();
  auto problem = family().make_problem(sizes_of(40, 50, 60), 5);
  problem->poison_outputs();  // nothing runs: every element stays NaN
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.mismatches, 40u * 50u);
}

TEST(GpuMatmul, VerificationCatchesAKernelThatSkipsTheLastColumns) {
  OCCBENCH_REQUIRE_GPU();
  // The naive kernel launched one block column short: the last 1000 - 62*16 = 8 columns stay NaN.
  const Variant& naive = *family().find_variant("naive");
  Params params = sizes_of(100, 1000, 10);
  params.set("block_size", 16);
  auto problem = family().make_problem(params, 9);
  LaunchSpec launch = naive.launch(params);
  ASSERT_EQ(launch.grid.x, 63u);
  launch.grid.x -= 1;
  problem->poison_outputs();
  naive.run(*problem, params, launch, nullptr);
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.mismatches, 100u * 8u);
}

TEST(GpuMatmul, CublasRunsOnTheGivenStream) {
  OCCBENCH_REQUIRE_GPU();
  const Variant& sgemm = *family().find_variant("cublas_sgemm");
  Params sizes = sizes_of(513, 257, 129);
  auto problem = family().make_problem(sizes, 21);
  cudaStream_t stream;
  OCCBENCH_CUDA_CHECK(cudaStreamCreate(&stream));
  problem->poison_outputs();
  sgemm.run(*problem, sizes, LaunchSpec{}, stream);
  OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  auto result = problem->verify();
  EXPECT_EQ(result.status, "passed") << result.detail;
  OCCBENCH_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(GpuMatmul, ToleranceRejectsTf32Sgemm) {
  OCCBENCH_REQUIRE_GPU();
  // The same SGEMM with TF32 tensor-core math allowed must fail verification: that is what
  // keeps the cublas_sgemm ceiling plain FP32.
  if (const char* o = std::getenv("NVIDIA_TF32_OVERRIDE"); o && std::string(o) == "0")
    GTEST_SKIP() << "NVIDIA_TF32_OVERRIDE=0 disables TF32 in cuBLAS: nothing to reject";
  const Variant& sgemm = *family().find_variant("cublas_sgemm");
  Params sizes = sizes_of(1024, 1024, 1024);
  auto problem = family().make_problem(sizes, 33);
  auto& mp = dynamic_cast<matmul::MatmulProblem&>(*problem);
  auto fp32 = run_and_verify(sgemm, *problem, sizes);
  EXPECT_EQ(fp32.status, "passed") << fp32.detail;
  OCCBENCH_CUBLAS_CHECK(cublasSetMathMode(mp.cublas(), CUBLAS_TF32_TENSOR_OP_MATH));
  auto tf32 = run_and_verify(sgemm, *problem, sizes);
  OCCBENCH_CUBLAS_CHECK(cublasSetMathMode(mp.cublas(), matmul::kCublasMathMode));
  EXPECT_EQ(tf32.status, "failed") << "max relative error " << tf32.max_rel_error
                                   << ": did cuBLAS not use TF32 when allowed?";
  EXPECT_GT(tf32.max_rel_error, 10 * fp32.max_rel_error);
}
