// Stencil: both variants x filters x block shapes against the CPU reference at awkward sizes, with
// poisoned outputs (a poisoned pixel is neither 0 nor 255), and verification that can fail.
#include "gpu_test_support.hpp"
#include "stencil_test_support.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/family/registry.hpp"
#include "kernels/stencil/stencil.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

using namespace occbench;

namespace {

const Family& family() { return *builtin_registry().find("stencil"); }

}  // namespace

// Sizes stay small (a few thousand pixels, except one 1080p-like image at two small filters) so that
// compute-sanitizer's racecheck, which tracks every shared-memory access, finishes in seconds.
TEST(GpuStencil, EveryVariantCorrectAtAwkwardSizes) {
  OCCBENCH_REQUIRE_GPU();
  // 1x1, smaller than every block and every filter, single rows/columns, primes, and widths and
  // heights that no block shape divides.
  const int sizes[][2] = {{1, 1}, {7, 5}, {1, 37}, {37, 1}, {33, 17}, {67, 45}};
  const int blocks[][2] = {{32, 4}, {32, 8}, {16, 16}, {7, 3}, {1, 1}, {1024, 1}, {1, 1024}, {33, 5}};
  for (auto [w, h] : sizes) {
    Params sizes_only;
    sizes_only.set("width", w);
    sizes_only.set("height", h);
    auto problem = family().make_problem(sizes_only, 4321 + w + 7 * h);
    for (const auto& v : family().variants)
      for (int f : {3, 7, 31})
        for (auto [bx, by] : blocks) {
          Params params = stencil_point(w, h, f, bx, by);
          auto result = run_and_verify(v, *problem, params);
          EXPECT_EQ(result.status, "passed") << v.name << " " << params.to_string() << ": " << result.detail;
          EXPECT_EQ(result.checked, std::uint64_t(w) * h);
        }
  }
}

TEST(GpuStencil, EveryFilterSize) {
  OCCBENCH_REQUIRE_GPU();
  Params sizes;
  sizes.set("width", 61);
  sizes.set("height", 37);
  auto problem = family().make_problem(sizes, 99);
  for (const auto& v : family().variants)
    for (int f = stencil::kMinFilter; f <= stencil::kMaxFilter; f += 2)
      for (auto [bx, by] : {std::pair{32, 4}, std::pair{16, 16}}) {
        auto result = run_and_verify(v, *problem, stencil_point(61, 37, f, bx, by));
        EXPECT_EQ(result.status, "passed") << v.name << " filter " << f << " " << bx << "x" << by << ": " << result.detail;
      }
}

TEST(GpuStencil, ConfigSizeNoBlockDivides) {
  OCCBENCH_REQUIRE_GPU();
  Params sizes;
  sizes.set("width", 1921);
  sizes.set("height", 1081);
  auto problem = family().make_problem(sizes, 1921);
  for (const auto& v : family().variants)
    for (int f : {3, 7}) {  // the sweeps verify every filter at this size; here racecheck must stay quick
      auto result = run_and_verify(v, *problem, stencil_point(1921, 1081, f, 32, 4));
      EXPECT_EQ(result.status, "passed") << v.name << " filter " << f << ": " << result.detail;
    }
}

TEST(GpuStencil, VerificationCatchesUnwrittenOutput) {
  OCCBENCH_REQUIRE_GPU();
  Params sizes;
  sizes.set("width", 40);
  sizes.set("height", 25);
  auto problem = family().make_problem(sizes, 5);
  problem->poison_outputs();  // nothing runs
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.mismatches, 1000u);
}

TEST(GpuStencil, VerificationCatchesAMissingRowOfBlocks) {
  OCCBENCH_REQUIRE_GPU();
  // Both variants launched one block row short (as the seed's integer-division grid would be on a
  // height that is not a multiple of block_y): the bottom rows stay poisoned.
  for (const auto& v : family().variants) {
    Params params = stencil_point(100, 30, 5, 32, 4);
    auto problem = family().make_problem(params, 9);
    LaunchSpec launch = v.launch(params);
    launch.grid.y -= 1;  // 8 block rows -> 7: rows 28 and 29 unwritten
    problem->poison_outputs();
    v.run(*problem, params, launch, nullptr);
    OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    auto result = problem->verify();
    EXPECT_EQ(result.status, "failed") << v.name;
    EXPECT_EQ(result.mismatches, 200u) << v.name;
  }
}

TEST(GpuStencil, VerificationChecksTheFilterThatRan) {
  OCCBENCH_REQUIRE_GPU();
  // The output of filter 3 is not that of filter 31: verify() must use the filter run() launched with.
  const Variant& global = *family().find_variant("global");
  Params p3 = stencil_point(64, 64, 3, 32, 4), p31 = stencil_point(64, 64, 31, 32, 4);
  auto problem = family().make_problem(p3, 17);
  EXPECT_EQ(run_and_verify(global, *problem, p3).status, "passed");
  EXPECT_EQ(run_and_verify(global, *problem, p31).status, "passed");
  // Output of filter 31, then run() told filter 3 with a zero-block grid: nothing overwrites it.
  LaunchSpec empty = global.launch(p3);
  global.run(*problem, p31, global.launch(p31), nullptr);
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  empty.grid.x = 1;
  empty.grid.y = 1;
  empty.block.x = 1;
  empty.block.y = 1;  // writes pixel (0, 0) only, with filter 3
  global.run(*problem, p3, empty, nullptr);
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_GT(result.mismatches, 100u);
}
