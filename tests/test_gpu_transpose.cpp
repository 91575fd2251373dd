// transpose on the GPU: every variant x block_rows against the CPU reference at awkward shapes
// (1, primes, non-multiples of 32, both orientations), outputs poisoned; verification catches
// unwritten elements.
#include "gpu_test_support.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/family/registry.hpp"
#include "kernels/transpose/transpose.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <array>

using namespace occbench;

namespace {

const Family& family() { return *builtin_registry().find("transpose"); }

Params sizes_of(std::int64_t rows, std::int64_t cols) {
  Params p;
  p.set("rows", rows);
  p.set("cols", cols);
  return p;
}

}  // namespace

TEST(GpuTranspose, EveryVariantCorrectAtAwkwardSizes) {
  OCCBENCH_REQUIRE_GPU();
  const std::array<std::array<std::int64_t, 2>, 13> shapes = {{{1, 1},
                                                               {31, 33},
                                                               {33, 31},
                                                               {32, 32},
                                                               {64, 96},
                                                               {1000, 1},
                                                               {1, 1000},
                                                               {2, 3},
                                                               {257, 509},
                                                               {1009, 997},
                                                               {5000, 3001},
                                                               {3001, 5000},
                                                               {100003, 7}}};
  for (const auto& [rows, cols] : shapes) {
    Params sizes = sizes_of(rows, cols);
    ASSERT_EQ(family().check_sizes(sizes), "");
    auto problem = family().make_problem(sizes, 7 + rows * 3 + cols);
    for (const auto& v : family().variants) {
      for (auto block_rows : transpose::kBlockRows) {
        Params params = sizes;
        params.set("block_rows", block_rows);
        auto result = run_and_verify(v, *problem, params);
        EXPECT_EQ(result.status, "passed") << v.name << " " << params.to_string() << ": " << result.detail;
        EXPECT_EQ(result.checked, std::uint64_t(rows * cols));
      }
    }
  }
}

TEST(GpuTranspose, VerificationCatchesUnwrittenOutput) {
  OCCBENCH_REQUIRE_GPU();
  auto problem = family().make_problem(sizes_of(70, 50), 5);
  problem->poison_outputs();
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.mismatches, 70u * 50u);
}

TEST(GpuTranspose, VerificationCatchesAKernelThatSkipsTheLastTiles) {
  OCCBENCH_REQUIRE_GPU();
  // One tile column short: input columns 96..99 (4 of them, all 70 rows) are never moved.
  for (const auto& v : family().variants) {
    Params params = sizes_of(70, 100);
    params.set("block_rows", 8);
    auto problem = family().make_problem(params, 9);
    LaunchSpec launch = v.launch(params);
    ASSERT_EQ(launch.grid.x, 4u);
    launch.grid.x -= 1;
    problem->poison_outputs();
    v.run(*problem, params, launch, nullptr);
    OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    auto result = problem->verify();
    EXPECT_EQ(result.status, "failed") << v.name;
    EXPECT_EQ(result.mismatches, 70u * 4u) << v.name;
  }
}
