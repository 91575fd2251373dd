// User kernels on the GPU: NVRTC's cubin loaded as a library, its cudaKernel_t taken by the
// runner's resource, occupancy and launch code; verification against the reference variant.
#include "gpu_test_support.hpp"

#include "harness/sweep/config.hpp"
#include "harness/measure/point.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"
#include "harness/measure/kernel_attributes.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace occbench {
namespace {

// The source tree's examples/, else ./examples (the device machine runs the tests from a copy).
const std::string kExamples = std::filesystem::is_directory(std::string(OCCBENCH_SOURCE_DIR) + "/examples")
                                  ? std::string(OCCBENCH_SOURCE_DIR) + "/examples"
                                  : std::string("examples");

// The example config at a small size, parsed as if it were the file itself (relative paths hold).
SweepSpec small_example(const std::string& relative_path, std::int64_t n) {
  std::string path = kExamples + "/" + relative_path;
  std::ifstream in(path);
  auto doc = ordered_json::parse(in);
  doc["sizes"] = {{"n", {n}}};
  return parse_sweep_json(doc, path, builtin_registry());
}

// Hot timing with a few samples: these tests check the path, not the numbers.
struct QuickMeasurement {
  DeviceInfo device = query_device(0);
  MeasurementSettings settings;
  QuickMeasurement() {
    OCCBENCH_CUDA_CHECK(cudaSetDevice(0));
    settings.mode = "hot";
    settings.min_samples = 3;
    settings.max_samples = 5;
    settings.min_time_s = 0;
  }
  PointContext context() const { return PointContext{&device, &settings, nullptr, nullptr}; }
};

std::vector<ordered_json> measure_all(const SweepSpec& spec) {
  QuickMeasurement quick;
  std::vector<ordered_json> records;
  std::unique_ptr<Problem> problem;
  for (const auto& point : expand_sweep(spec, builtin_registry())) {
    if (!problem) problem = point.family->make_problem(point.sizes, 7);
    records.push_back(measure_point(point, *problem, quick.context()));
  }
  return records;
}

TEST(GpuSourceFamily, UserAdjacentDifferenceVerifiesWithTheBuiltInResources) {
  OCCBENCH_REQUIRE_GPU();
  SweepSpec spec = small_example("adjacent_difference/adjacent_difference.json", 100003);
  auto records = measure_all(spec);
  ASSERT_EQ(records.size(), 16u);
  const Family& builtin = *builtin_registry().find("adjacent_difference");
  for (const auto& r : records) {
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r["status"], "ok");
    EXPECT_EQ(r["verification"]["status"], "passed");
    EXPECT_TRUE(r["occupancy"]["api_agrees"].get<bool>());  // the occupancy API took the cudaKernel_t
    EXPECT_TRUE(r["compile"].is_object());
    EXPECT_GT(r["timing"]["median_ms"].get<double>(), 0);
    Params params;
    for (const auto& item : r["params"].items()) params.set(item.key(), item.value().get<std::int64_t>());
    LaunchSpec l = builtin.find_variant(r["variant"].get<std::string>())->launch(params);
    EXPECT_EQ(r["resources"]["registers_per_thread"].get<int>(), kernel_resources(l.kernel).registers_per_thread);
    EXPECT_EQ(r["resources"]["static_smem_bytes"].get<std::size_t>(), kernel_resources(l.kernel).static_smem_bytes);
  }
}

TEST(GpuSourceFamily, WrongKernelFailsVerificationAndIsNeverTimed) {
  OCCBENCH_REQUIRE_GPU();
  SweepSpec spec = small_example("broken/wrong.json", 4099);
  auto records = measure_all(spec);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0]["status"], "ok");
  EXPECT_EQ(records[1]["variant"], "wrong");
  EXPECT_EQ(records[1]["status"], "failed");
  EXPECT_TRUE(records[1]["timing"].is_null());
  EXPECT_NE(records[1]["reason"].get<std::string>().find("out[7]"), std::string::npos) << records[1]["reason"];
  EXPECT_EQ(records[2]["status"], "ok");
}

TEST(GpuSourceFamily, CompileErrorFailsOnlyItsVariant) {
  OCCBENCH_REQUIRE_GPU();
  SweepSpec spec = small_example("broken/compile_error.json", 4099);
  QuickMeasurement quick;
  PointContext context = quick.context();
  auto points = expand_sweep(spec, builtin_registry());
  auto problem = points[0].family->make_problem(points[0].sizes, 7);
  ASSERT_EQ(points[0].variant->name, "broken");
  try {
    measure_point(points[0], *problem, context);
    FAIL() << "the broken variant compiled";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("compile_error.cu(7): error"), std::string::npos) << e.what();
  }
  EXPECT_EQ(measure_point(points[1], *problem, context)["status"], "ok");
}

}  // namespace
}  // namespace occbench
