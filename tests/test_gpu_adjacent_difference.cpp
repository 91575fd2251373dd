// Every variant against the CPU reference at awkward sizes, with poisoned outputs.
#include "gpu_test_support.hpp"
#include "harness/sweep/spec.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/family/registry.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

using namespace occbench;

namespace {

const Family& family() { return *builtin_registry().find("adjacent_difference"); }

}  // namespace

TEST(GpuAdjacentDifference, EveryVariantCorrectAtAwkwardSizes) {
  OCCBENCH_REQUIRE_GPU();
  for (std::int64_t n : {1, 2, 3, 5, 127, 1023, 1025, 4097, 1000003}) {
    Params sizes;
    sizes.set("n", n);
    auto problem = family().make_problem(sizes, 1234 + n);
    for (const auto& v : family().variants) {
      std::vector<std::int64_t> blocks = v.find_axis("block_size") ? std::vector<std::int64_t>{32, 96, 256, 1024}
                                                                    : std::vector<std::int64_t>{0};
      for (auto block : blocks) {
        Params params = sizes;
        if (block) params.set("block_size", block);
        auto result = run_and_verify(v, *problem, params);
        EXPECT_EQ(result.status, "passed") << v.name << " " << params.to_string() << ": " << result.detail;
        EXPECT_EQ(result.checked, std::uint64_t(n));
      }
    }
  }
}

TEST(GpuAdjacentDifference, VerificationCatchesUnwrittenOutput) {
  OCCBENCH_REQUIRE_GPU();
  Params sizes;
  sizes.set("n", 1000);
  auto problem = family().make_problem(sizes, 5);
  problem->poison_outputs();  // nothing runs: every element stays NaN
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.mismatches, 1000u);
}

TEST(GpuAdjacentDifference, VerificationCatchesAKernelThatSkipsTheTail) {
  OCCBENCH_REQUIRE_GPU();
  // The global kernel launched one block short: the last elements stay poisoned.
  const Variant& global = *family().find_variant("global");
  Params params;
  params.set("n", 1000);
  params.set("block_size", 128);
  auto problem = family().make_problem(params, 9);
  LaunchSpec launch = global.launch(params);
  launch.grid.x -= 1;
  problem->poison_outputs();
  global.run(*problem, params, launch, nullptr);
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.mismatches, 1000u - 7 * 128);
}
