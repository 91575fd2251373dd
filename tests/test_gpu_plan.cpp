// `plan` against the GPU itself: for every registered variant (at every legal template value) and
// every point of every shipped config, the registers and shared memory plan reads from the build's
// ptxas output equal cudaFuncGetAttributes', and its active blocks per SM equal
// cudaOccupancyMaxActiveBlocksPerMultiprocessor, exactly.
#include "gpu_test_support.hpp"
#include "data_dir.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/model/occupancy_limit.hpp"
#include "harness/run/plan.hpp"
#include "harness/measure/kernel_attributes.hpp"
#include "plan_test_support.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

using namespace occbench;

TEST(GpuPlan, PlanEqualsTheRuntimeForEveryPointOfEveryShippedConfig) {
  OCCBENCH_REQUIRE_GPU();
  DeviceInfo device = query_device(0);
  PlanTarget target = plan_target(device, built_cuda_architectures());
  std::cout << "[ device   ] " << device.name << " (sm_" << device.compute_major << device.compute_minor
            << "), planned with the build's sm_" << target.resource_arch << " resources\n";
  int compared = 0, skipped = 0;
  std::set<std::string> local_mismatches, bounds_mismatches;
  for (const auto& [point, origin] : test_support::reachable_points(builtin_registry())) {
    if (point.variant->executor != Executor::device || !point.variant->launch) continue;
    LaunchSpec launch = point.variant->launch(point.params);
    if (!launch.kernel) continue;
    SCOPED_TRACE(point.id + " (" + origin + ")");
    ordered_json r = plan_point(point, target, built_kernel_resources());
    ASSERT_NE(r["status"], "failed") << r["reason"];

    cudaFuncAttributes a{};
    OCCBENCH_CUDA_CHECK(cudaFuncGetAttributes(&a, launch.kernel));
    ASSERT_TRUE(r["resources"].is_object());
    EXPECT_EQ(r["resources"]["registers_per_thread"].get<int>(), a.numRegs) << launch.kernel_name;
    EXPECT_EQ(r["resources"]["static_smem_bytes"].get<std::size_t>(), a.sharedSizeBytes) << launch.kernel_name;
    if (r["resources"]["local_bytes_per_thread"].get<std::size_t>() != a.localSizeBytes)  // informative only
      local_mismatches.insert(launch.kernel_name + ": plan " + r["resources"]["local_bytes_per_thread"].dump() +
                              " B, cudaFuncGetAttributes " + std::to_string(a.localSizeBytes) + " B");

    int threads = int(launch.block.count());
    if (r["status"] == "skipped") {
      // The runner skips it too: same blocker from the runtime's own attributes.
      KernelResources k = kernel_resources(launch.kernel);
      k.max_dynamic_smem_bytes.reset();
      if (forces_occupancy(point.params) && launch_blocker(device.limits, k, threads, launch.dynamic_smem_bytes).empty()) {
        // A target the ballast cannot reach: the runtime's attributes give the same verdict.
        int target = int(point.params.get(kOccupancyLimitAxis));
        EXPECT_FALSE(plan_ballast(device.limits, k, threads, launch.dynamic_smem_bytes, target).skip_reason.empty())
            << r["reason"];
      } else {
        EXPECT_FALSE(launch_blocker(device.limits, k, threads, launch.dynamic_smem_bytes).empty()) << r["reason"];
      }
      ++skipped;
      continue;
    }
    ASSERT_EQ(r["status"], "planned") << r["reason"];
    // Planned means `run` will launch it, unless a __launch_bounds__ below the block size (which
    // ptxas's summary does not show) makes the runner skip it: reported, not failed.
    if (threads > a.maxThreadsPerBlock)
      bounds_mismatches.insert(launch.kernel_name + ": block of " + std::to_string(threads) + " planned, kernel allows " +
                               std::to_string(a.maxThreadsPerBlock));
    if (launch.dynamic_smem_bytes > std::size_t(a.maxDynamicSharedSizeBytes))
      OCCBENCH_CUDA_CHECK(cudaFuncSetAttribute(launch.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               int(launch.dynamic_smem_bytes)));
    int api = -1;
    if (r["occupancy"].contains("forced")) {
      // occupancy_limit: the API's answer for the ballasted launch at the forced carveout, as `run` asks it.
      std::size_t total = launch.dynamic_smem_bytes + r["occupancy"]["forced"]["ballast_bytes"].get<std::size_t>();
      api = apply_ballast(launch.kernel, threads, total);
      restore_default_carveout(launch.kernel);
      EXPECT_EQ(r["occupancy"]["forced"]["calculator_blocks_per_sm"].get<int>(), api) << launch.kernel_name;
    } else {
      OCCBENCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api, launch.kernel, threads, launch.dynamic_smem_bytes));
    }
    EXPECT_EQ(r["occupancy"]["active_blocks_per_sm"].get<int>(), api)
        << launch.kernel_name << " block " << threads << " dynamic smem " << launch.dynamic_smem_bytes;
    ++compared;
  }
  EXPECT_GT(compared, 0);
  std::cout << "[ checked  ] " << compared << " planned points against the occupancy API, " << skipped << " skipped\n";
  for (const auto& m : local_mismatches) std::cout << "[ note     ] local memory differs: " << m << "\n";
  for (const auto& m : bounds_mismatches) std::cout << "[ note     ] run would skip (launch bounds): " << m << "\n";
}

TEST(GpuPlan, WithoutGpuFlagPlansForThisGpu) {
  OCCBENCH_REQUIRE_GPU();
  auto dir = std::filesystem::temp_directory_path() / "occbench-gpu-plan";
  std::filesystem::remove_all(dir);
  PlanOptions options;
  options.config = std::string(OCCBENCH_SOURCE_DIR) + "/configs/adjacent_difference.json";
  options.out_dir = dir.string();
  std::ostringstream out, err;
  ASSERT_EQ(plan_main(options, builtin_registry(), out, err), 0) << err.str();
  EXPECT_EQ(out.str().find("no GPU here"), std::string::npos);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".json") continue;
    ++files;
    ordered_json doc = read_json_file(e.path().string());
    EXPECT_EQ(doc["device"]["name"], query_device(0).name);
    EXPECT_EQ(doc["device"]["sm_count"], query_device(0).sm_count);
    EXPECT_EQ(doc["run"]["kind"], "plan");
  }
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(dir);
}
