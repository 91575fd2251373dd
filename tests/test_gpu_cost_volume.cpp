// Cost volume: both variants x launch axes against the double-precision reference at awkward sizes
// (clamped pixels included in every problem), poisoned outputs, and verification that can fail.
#include "gpu_test_support.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/family/registry.hpp"
#include "kernels/cost_volume/cost_volume.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

using namespace occbench;

namespace {

const Family& family() { return *builtin_registry().find("cost_volume"); }

Params sizes(int views, int width, int height) {
  Params p;
  p.set("views", views);
  p.set("width", width);
  p.set("height", height);
  return p;
}

// As the runner does: opt in to more than the default dynamic shared memory; "" when launched,
// else why not (more than the device allows).
std::string run(const Variant& v, Problem& problem, const Params& params) {
  LaunchSpec launch = v.launch(params);
  if (launch.dynamic_smem_bytes > 48 * 1024) {
    int device = 0, optin = 0;
    OCCBENCH_CUDA_CHECK(cudaGetDevice(&device));
    OCCBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (launch.dynamic_smem_bytes > std::size_t(optin)) return "more shared memory than the device allows";
    OCCBENCH_CUDA_CHECK(cudaFuncSetAttribute(launch.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             int(launch.dynamic_smem_bytes)));
  }
  problem.poison_outputs();
  v.run(problem, params, launch, nullptr);
  OCCBENCH_CHECK_LAUNCH();
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  return "";
}

}  // namespace

TEST(GpuCostVolume, EveryVariantCorrectAtAwkwardSizes) {
  OCCBENCH_REQUIRE_GPU();
  // (views, width, height): one pixel, one view, widths that no block_pixels divides, views that are
  // not multiples of 32 (the strided weight load), more views than channels, and a 640-wide row.
  const int cases[][3] = {{1, 1, 1}, {2, 7, 5}, {3, 33, 17}, {32, 61, 3}, {33, 5, 7}, {128, 5, 2}, {8, 640, 4}};
  int launched = 0;
  for (auto [n, w, h] : cases) {
    Params s = sizes(n, w, h);
    auto problem = family().make_problem(s, 77 + n + w * h);
    for (const auto& v : family().variants) {
      const char* axis = v.name == "global" ? "block_size" : "block_pixels";
      auto values = v.name == "global" ? std::vector<int>{32, 96, 256, 1024} : std::vector<int>{1, 3, 8, 32};
      for (int value : values) {
        Params params = s;
        params.set(axis, value);
        std::string skipped = run(v, *problem, params);
        if (!skipped.empty()) continue;
        ++launched;
        auto result = problem->verify();
        EXPECT_EQ(result.status, "passed") << v.name << " " << params.to_string() << ": " << result.detail
                                           << " (max rel error " << result.max_rel_error << ")";
        EXPECT_EQ(result.checked, std::uint64_t(w) * h * cost_volume::kChannels);
      }
    }
  }
  EXPECT_GE(launched, 50);
}

// The seed's row width at 32 views; 48 rows rather than 480 so that compute-sanitizer's racecheck
// (every shared access tracked) stays quick.
TEST(GpuCostVolume, SeedRowWidthAtManyViews) {
  OCCBENCH_REQUIRE_GPU();
  Params s = sizes(32, 640, 48);
  auto problem = family().make_problem(s, 2025);
  for (const auto& v : family().variants) {
    Params params = s;
    params.set(v.name == "global" ? "block_size" : "block_pixels", v.name == "global" ? 256 : 1);
    ASSERT_EQ(run(v, *problem, params), "");
    auto result = problem->verify();
    EXPECT_EQ(result.status, "passed") << v.name << ": " << result.detail;
    EXPECT_LT(result.max_rel_error, result.tolerance);
  }
}

TEST(GpuCostVolume, VerificationCatchesUnwrittenOutput) {
  OCCBENCH_REQUIRE_GPU();
  auto problem = family().make_problem(sizes(4, 10, 10), 5);
  problem->poison_outputs();
  auto result = problem->verify();
  EXPECT_EQ(result.status, "failed");
  EXPECT_EQ(result.mismatches, 100u * cost_volume::kChannels);
}

TEST(GpuCostVolume, VerificationCatchesMissingBlocks) {
  OCCBENCH_REQUIRE_GPU();
  // global one block short (the last 8 pixels' 256 outputs), shared one row short (10 pixels).
  Params s = sizes(4, 10, 9);
  auto problem = family().make_problem(s, 8);
  for (const auto& v : family().variants) {
    Params params = s;
    params.set(v.name == "global" ? "block_size" : "block_pixels", v.name == "global" ? 256 : 2);
    LaunchSpec launch = v.launch(params);
    launch.grid.x -= 1;
    problem->poison_outputs();
    v.run(*problem, params, launch, nullptr);
    OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
    auto result = problem->verify();
    EXPECT_EQ(result.status, "failed") << v.name;
    EXPECT_EQ(result.mismatches, (v.name == "global" ? 2880u - 2816u : 10u * 32u)) << v.name;
  }
}
