// The occupancy_limit axis on a real GPU: the forced blocks per SM equal the occupancy API's
// answer for the ballasted launch, targets above the natural occupancy are skipped, every forced
// point is still verified, and a later point without the axis gets the default carveout back.
#include "gpu_test_support.hpp"
#include "data_dir.hpp"
#include "harness/sweep/config.hpp"
#include "harness/measure/latency_probe.hpp"
#include "harness/model/occupancy_limit.hpp"
#include "harness/measure/point.hpp"
#include "kernels/families.hpp"
#include "harness/sweep/sweep.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace occbench;

namespace {

// prepare_point for every point of the sweep (poisoned outputs, one run, verification), as `run` does.
std::vector<ordered_json> prepare_all(const SweepSpec& spec, const Registry& registry) {
  DeviceInfo device = query_device(0);
  MeasurementSettings settings;
  PointContext context{&device, &settings, nullptr, nullptr};
  std::vector<ordered_json> records;
  std::unique_ptr<Problem> problem;
  Params sizes;
  for (const Point& point : expand_sweep(spec, registry)) {
    if (!problem || !(sizes == point.sizes)) {
      problem = point.family->make_problem(point.sizes, 42);
      sizes = point.sizes;
    }
    ordered_json r = prepare_point(point, *problem, context).record;
    r["point_id"] = point.id;
    records.push_back(r);
  }
  return records;
}

void expect_forced_or_skipped(const std::vector<ordered_json>& records) {
  int forced = 0, skipped = 0;
  for (const auto& r : records) {
    SCOPED_TRACE(r["point_id"].get<std::string>() + " " + r["reason"].get<std::string>());
    int target = r["params"]["occupancy_limit"];
    if (target == kUnforced) {  // the launch as it is: no ballast, verified like the rest
      EXPECT_EQ(r["status"], "ok");
      EXPECT_EQ(r["verification"]["status"], "passed");
      EXPECT_FALSE(r["occupancy"].contains("forced"));
      EXPECT_FALSE(r["launch"].contains("ballast_bytes"));
      continue;
    }
    if (r["status"] == "skipped") {
      EXPECT_NE(r["reason"].get<std::string>().find("above this launch's natural occupancy"), std::string::npos);
      ++skipped;
      continue;
    }
    ASSERT_EQ(r["status"], "ok");
    EXPECT_EQ(r["verification"]["status"], "passed");
    const auto& o = r["occupancy"];
    EXPECT_EQ(o["active_blocks_per_sm"], target);
    EXPECT_EQ(o["api_active_blocks_per_sm"], target);
    EXPECT_EQ(o["forced"]["api_active_blocks_per_sm"], target);
    EXPECT_EQ(o["forced"]["calculator_blocks_per_sm"], target);
    EXPECT_EQ(o["forced"]["api_agrees"], true);
    EXPECT_EQ(r["launch"]["ballast_bytes"], o["forced"]["ballast_bytes"]);
    ++forced;
  }
  EXPECT_GT(forced, 0);
  EXPECT_GT(skipped, 0);
}

}  // namespace

TEST(GpuOccupancyLimit, ForcedBlocksPerSmEqualTheApiForBuiltInKernels) {
  OCCBENCH_REQUIRE_GPU();
  // Kernels without shared memory, with dynamic shared memory of their own (the ballast goes on
  // top), with static shared memory, tiny blocks (covariance chunk 4: 16 threads) and the
  // __launch_bounds__ variants.
  const char* configs[] = {
      R"({"name": "a", "family": "adjacent_difference", "variants": ["global", "shared_dynamic", "vectorized"],
          "sizes": {"n": [1000003]}, "axes": {"block_size": [256], "occupancy_limit": [0, 1, 2, 3, 5, 8, 9]}})",
      R"({"name": "c", "family": "covariance", "variants": ["shared_static", "shared_dynamic"],
          "sizes": {"m": [300], "n": [130]}, "axes": {"chunk_size": [4, 16], "occupancy_limit": [1, 3, 7, 24, 32]}})",
      R"({"name": "m", "family": "matmul", "variants": ["tiled", "tiled_bounded"],
          "sizes": {"m": [200], "n": [130], "k": [70]}, "axes": {"tile": [16], "occupancy_limit": [1, 2, 4, 6, 8, 9]},
          "variant_axes": {"tiled_bounded": {"min_blocks": [1, 8]}}})",
  };
  for (const char* text : configs) expect_forced_or_skipped(prepare_all(parse_sweep_text(text, "t.json", builtin_registry()), builtin_registry()));
}

TEST(GpuOccupancyLimit, ForcedBlocksPerSmEqualTheApiForAUserKernel) {
  OCCBENCH_REQUIRE_GPU();
  const std::string examples = std::string(OCCBENCH_SOURCE_DIR) + "/examples";
  std::string path = examples + "/my_scale/my_scale.json";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  auto doc = ordered_json::parse(in);
  doc["sizes"]["n"] = {100003};
  doc["axes"] = {{"block_size", {128}}, {"items", {4}}, {"occupancy_limit", {1, 4, 16, 17}}};
  SweepSpec spec = parse_sweep_json(doc, path, builtin_registry());
  expect_forced_or_skipped(prepare_all(spec, builtin_registry()));
}

TEST(GpuOccupancyLimit, APointWithoutTheAxisGetsTheDefaultCarveoutBack) {
  OCCBENCH_REQUIRE_GPU();
  const char* text = R"({"name": "a", "family": "adjacent_difference", "variants": ["global"],
      "sizes": {"n": [4096]}, "axes": {"block_size": [256]}})";
  SweepSpec plain = parse_sweep_text(text, "t.json", builtin_registry());
  SweepSpec forced = plain;
  forced.axes.emplace_back(kOccupancyLimitAxis, std::vector<std::int64_t>{2});
  auto kernel_of = [&](const SweepSpec& s) { return expand_sweep(s, builtin_registry())[0]; };
  const void* kernel = kernel_of(plain).variant->launch(kernel_of(plain).params).kernel;
  cudaFuncAttributes attributes{};
  ASSERT_EQ(prepare_all(forced, builtin_registry())[0]["status"], "ok");
  OCCBENCH_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  EXPECT_EQ(attributes.preferredShmemCarveout, kForcedCarveoutPercent);
  auto r = prepare_all(plain, builtin_registry())[0];
  EXPECT_FALSE(r["occupancy"].contains("forced"));
  OCCBENCH_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  EXPECT_EQ(attributes.preferredShmemCarveout, int(cudaSharedmemCarveoutDefault));
  EXPECT_EQ(r["occupancy"]["active_blocks_per_sm"], 8);
}

TEST(GpuLatencyProbe, DramLatencyIsPlausible) {
  OCCBENCH_REQUIRE_GPU();
  DeviceInfo device = query_device(0);
  double ns = measure_dram_latency_ns(latency_probe_shape(device.l2_bytes, device.total_memory_bytes));
  // A buffer an eighth of the L2: the first chase brings its lines in, the other two hit in L2.
  LatencyProbeShape in_l2;
  in_l2.buffer_bytes = device.l2_bytes / 8 / in_l2.line_bytes * in_l2.line_bytes;
  in_l2.steps = int(in_l2.buffer_bytes / in_l2.line_bytes);  // every line once per chase
  double l2_ns = measure_dram_latency_ns(in_l2);
  std::cout << "dependent-load latency: " << ns << " ns over the DRAM probe's buffer, " << l2_ns << " ns over "
            << (in_l2.buffer_bytes >> 20) << " MiB (L2-resident)\n";
  // DRAM answers a dependent load in some hundreds of ns, slower than an L2 hit.
  EXPECT_GT(ns, 250.0);
  EXPECT_LT(ns, 3000.0);
  EXPECT_LT(l2_ns * 1.2, ns);
}
