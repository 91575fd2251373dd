// User kernels on the GPU: NVRTC's cubin loaded as a library, its cudaKernel_t taken by the
// runner's resource, occupancy and launch code; verification against the reference variant.
#include "gpu_test_support.hpp"
#include "data_dir.hpp"

#include "harness/sweep/config.hpp"
#include "harness/measure/point.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"
#include "harness/measure/kernel_attributes.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/run/runner.hpp"
#include "harness/compile/nvcc_compiler.hpp"
#include "harness/sweep/source_kernels.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <regex>
#include <sstream>

namespace occbench {
namespace {

// The shipped examples (tests/data_dir.hpp: found from the test binary, in a copied tree too).
const std::string kExamples = std::string(OCCBENCH_SOURCE_DIR) + "/examples";

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
    EXPECT_GT(r["compile"]["nvrtc_ms"].get<double>(), 0) << "what compiling the kernel took, whoever compiled it";
    EXPECT_GT(r["timing"]["median_ms"].get<double>(), 0);
    Params params;
    for (const auto& item : r["params"].items()) params.set(item.key(), item.value().get<std::int64_t>());
    LaunchSpec l = builtin.find_variant(r["variant"].get<std::string>())->launch(params);
    EXPECT_EQ(r["resources"]["registers_per_thread"].get<int>(), kernel_resources(l.kernel).registers_per_thread);
    EXPECT_EQ(r["resources"]["static_smem_bytes"].get<std::size_t>(), kernel_resources(l.kernel).static_smem_bytes);
  }
}

// Axes of strings, floats and booleans (examples/precision): each point compiled with its own
// template argument and #define, verified, and recorded with the values themselves.
TEST(GpuSourceFamily, LabelledAxesVerifyAndAreRecordedAsTheirValues) {
  OCCBENCH_REQUIRE_GPU();
  SweepSpec spec = small_example("precision/precision.json", 100003);
  auto records = measure_all(spec);
  ASSERT_EQ(records.size(), 20u);
  std::set<std::string> types;
  for (const auto& r : records) {
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r["status"], "ok");
    EXPECT_EQ(r["verification"]["status"], "passed");
    ASSERT_TRUE(r["params"]["float_type"].is_string());
    types.insert(r["params"]["float_type"].get<std::string>());
    EXPECT_TRUE(r["params"]["use_fma"].is_boolean());
    EXPECT_TRUE(r["params"]["grid_share"].is_number_float());
    EXPECT_NE(r["point_id"].get<std::string>().find("/float_type=" + r["params"]["float_type"].get<std::string>() + "/"), std::string::npos);
    EXPECT_EQ(r["compile"]["defines"]["USE_FMA"], r["params"]["use_fma"].get<bool>() ? "true" : "false");
  }
  EXPECT_EQ(types, (std::set<std::string>{"float", "double"}));
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

// Writes outside a buffer land in its guard zones: the point fails, named with the buffer and the
// side, and the process goes on (the point after it runs in the same context).
TEST(GpuSourceFamily, OutOfBoundsWritesAreCaughtInTheGuardZonesWithoutAFault) {
  OCCBENCH_REQUIRE_GPU();
  std::string path = kExamples + "/broken/out_of_bounds.json";
  std::ifstream in(path);
  auto doc = ordered_json::parse(in);
  const std::int64_t n = 4099;
  doc["sizes"] = {{"n", {n}}};
  for (const char* name : {"past_end", "before_start"})
    doc["kernels"][name] = {{"kernel", std::string(name) + "_kernel"}, {"grid", "ceil_div(n, block_size)"}, {"block", "block_size"}};
  doc["variants"] = {"copy", "out_of_bounds", "past_end", "before_start", "after"};
  std::vector<ordered_json> records = measure_all(parse_sweep_json(doc, path, builtin_registry()));
  ASSERT_EQ(records.size(), 5u);
  // Where each variant writes outside, and how many bytes: a byte it writes as 0xFF (the zones'
  // filling) is not seen, so at least 95% of them.
  const std::pair<std::string, std::int64_t> caught[] = {{"", 0}, {"after 'out'", n * 4}, {"after 'out'", 4}, {"before 'out'", 4}, {"", 0}};
  for (std::size_t i = 0; i < records.size(); ++i) {
    const ordered_json& r = records[i];
    SCOPED_TRACE(r["point_id"].get<std::string>());
    EXPECT_EQ(r["verification"]["guard_zones"], "16 GiB on each side of every buffer");
    if (caught[i].first.empty()) {
      EXPECT_EQ(r["status"], "ok") << r.dump();
      EXPECT_FALSE(r["verification"].contains("out_of_bounds"));
      continue;
    }
    EXPECT_EQ(r["status"], "failed");
    std::smatch m;
    std::string reason = r["reason"];
    ASSERT_TRUE(std::regex_match(reason, m, std::regex("out-of-bounds write: (\\d+) bytes changed (.*) \\(caught in the guard zones, no fault\\)")))
        << reason;
    EXPECT_EQ(m[2], caught[i].first);
    EXPECT_LE(std::stoll(m[1]), caught[i].second);
    EXPECT_GE(std::stoll(m[1]), caught[i].second * 95 / 100);
    EXPECT_EQ(r["verification"]["out_of_bounds"], reason.substr(std::string("out-of-bounds write: ").size()));
    EXPECT_TRUE(r["timing"].is_null());
  }
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

namespace occbench {
namespace {

void expect_all_verified(const std::vector<ordered_json>& records) {
  for (const auto& r : records) {
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r["status"], "ok");
    EXPECT_EQ(r["verification"]["status"], "passed");
  }
}

// An example config with other sizes and axes, parsed as if it were the file itself.
// Null `axes` keeps the config's; a `compiler` other than "" sets $.compile.compiler.
SweepSpec example_with(const std::string& relative_path, ordered_json sizes, ordered_json axes, const std::string& compiler = "") {
  std::string path = kExamples + "/" + relative_path;
  std::ifstream in(path);
  auto doc = ordered_json::parse(in);
  doc["sizes"] = std::move(sizes);
  if (!axes.is_null()) doc["axes"] = std::move(axes);
  if (!compiler.empty()) doc["compile"]["compiler"] = compiler;
  return parse_sweep_json(doc, path, builtin_registry());
}

// Global arguments: a __constant__ array and a __device__ scalar filled before launch. The kernel
// that reads them must match the one that takes the same values as parameters; unfilled (zero)
// globals would write zeros, or nothing, and fail verification.
TEST(GpuSourceFamily, ConstantAndDeviceGlobalsAreFilledBeforeLaunch) {
  OCCBENCH_REQUIRE_GPU();
  auto dir = std::filesystem::temp_directory_path() / "occbench_gpu_globals";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "globals.cu") << R"cu(
__constant__ float c_factor[2];
__device__ unsigned d_n;
extern "C" __global__ void by_parameters(float* out, const float* in, float factor, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * factor;
}
extern "C" __global__ void by_globals(float* out, const float* in, float, unsigned) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < d_n) out[i] = in[i] * c_factor[1];
})cu";
  auto doc = ordered_json::parse(R"json({"name": "globals", "source": "globals.cu", "sizes": {"n": [100003]},
    "axes": {"block_size": [128, 256]},
    "arguments": [
      {"name": "out", "role": "output", "type": "float32", "count": "n"},
      {"name": "in", "role": "input", "type": "float32", "count": "n"},
      {"name": "c_factor", "role": "input", "type": "float32", "count": "2", "global": true, "init": {"kind": "constant", "value": 3}},
      {"name": "d_n", "role": "scalar", "type": "uint32", "value": "n", "global": true},
      {"name": "factor", "role": "scalar", "type": "float32", "value": "3"},
      {"name": "n", "role": "scalar", "type": "uint32", "value": "n"}],
    "kernels": {"by_parameters": {"kernel": "by_parameters", "grid": "ceil_div(n, block_size)", "block": "block_size"},
                "by_globals": {"kernel": "by_globals", "grid": "ceil_div(n, block_size)", "block": "block_size"}},
    "reference": {"variant": "by_parameters"}})json");
  SweepSpec spec = parse_sweep_json(doc, (dir / "globals.json").string(), builtin_registry());
  auto records = measure_all(spec);
  ASSERT_EQ(records.size(), 4u);
  expect_all_verified(records);
  std::filesystem::remove_all(dir);
}

// Outputs of one partial result per block ("compare": "sum"): their sum against the reference's,
// so the partial sums pass in any block count and a planted bug (a block's sum dropped) fails.
TEST(GpuSourceFamily, OutputsComparedBySumsCatchADroppedBlock) {
  OCCBENCH_REQUIRE_GPU();
  auto dir = std::filesystem::temp_directory_path() / "occbench_gpu_sums";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "sums.cu") << R"cu(
extern "C" __global__ void total(float* sums, const float* x, unsigned n, unsigned blocks) {
  if (threadIdx.x != 0) return;
  float s = 0;
  for (unsigned i = 0; i < n; ++i) s += x[i];
  for (unsigned b = 0; b < blocks; ++b) sums[b] = b == 0 ? s : 0.0f;
}
template <bool drop>
__global__ void partial(float* sums, const float* x, unsigned n, unsigned) {
  __shared__ float block[128];
  float s = 0;
  for (unsigned i = blockIdx.x * 128 + threadIdx.x; i < n; i += gridDim.x * 128) s += x[i];
  block[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x) return;
  for (int k = 1; k < 128; ++k) s += block[k];
  sums[blockIdx.x] = drop && blockIdx.x == 1 ? 0.0f : s;
})cu";
  auto doc = ordered_json::parse(R"json({"name": "sums", "source": "sums.cu", "sizes": {"n": [65536]},
    "axes": {"blocks": [8, 32]},
    "arguments": [
      {"name": "sums", "role": "output", "type": "float32", "count": "32", "compare": "sum", "zero_before_launch": true, "tolerance": {"rel": 1e-4}},
      {"name": "x", "role": "input", "type": "float32", "count": "n", "init": {"kind": "uniform", "min": 0, "max": 1}},
      {"name": "n", "role": "scalar", "type": "uint32", "value": "n"},
      {"name": "blocks", "role": "scalar", "type": "uint32", "value": "32"}],
    "kernels": {"total": {"kernel": "total", "axes": [], "grid": 1, "block": 32},
                "partial": {"kernel": "partial<false>", "grid": "blocks", "block": 128},
                "dropped": {"kernel": "partial<true>", "grid": "blocks", "block": 128}},
    "reference": {"variant": "total"}})json");
  SweepSpec spec = parse_sweep_json(doc, (dir / "sums.json").string(), builtin_registry());
  for (const auto& r : measure_all(spec)) {
    std::string variant = r["variant"];
    if (variant == "dropped") {
      EXPECT_EQ(r["status"], "failed") << r.dump();
      EXPECT_NE(r["reason"].get<std::string>().find("sum of sums"), std::string::npos) << r.dump();
    } else {
      EXPECT_EQ(r["status"], "ok") << r.dump();
      EXPECT_EQ(r["verification"]["status"], "passed") << r.dump();
    }
  }
  std::filesystem::remove_all(dir);
}

// The Kernel-Tuner-style convolution (examples/kernel_tuner/convolution) at 256 x 256: tiles of
// several shapes, padded or not, read-only loads or not, each verified against the naive kernel.
TEST(GpuSourceFamily, KernelTunerConvolutionVerifiesAcrossTileShapes) {
  OCCBENCH_REQUIRE_GPU();
  auto records = measure_all(example_with("kernel_tuner/convolution/convolution.json", {{"image_width", {256}}, {"image_height", {256}}},
                                          {{"block_size_x", {16, 48}}, {"block_size_y", {4, 8}}, {"tile_size_x", {1, 3}},
                                           {"tile_size_y", {2}}, {"use_padding", {0, 1}}, {"read_only", {1}}}));
  ASSERT_GE(records.size(), 9u);
  expect_all_verified(records);
}

// The Kernel-Tuner-style matmul (examples/kernel_tuner/matmul) at n = 1000 (partial tiles): its
// alpha is a __constant__ scalar the naive reference takes as a parameter, so an unfilled one fails.
TEST(GpuSourceFamily, KernelTunerMatmulVerifiesWithItsConstantScale) {
  OCCBENCH_REQUIRE_GPU();
  auto records = measure_all(example_with("kernel_tuner/matmul/matmul.json", {{"n", {1000}}},
                                          {{"block_size_x", {16, 32}}, {"block_size_y", {4, 32}}, {"tile_size_x", {1, 4}},
                                           {"tile_size_y", {2}}}));
  ASSERT_EQ(records.size(), 9u) << "8 tiled points and the naive one";
  expect_all_verified(records);
}

// Built by nvcc instead of NVRTC ("compile": {"compiler": "nvcc"}): a template kernel's instances
// (adjacent_difference's vectorized_kernel<N>) and a __constant__ scalar (matmul's alpha) are
// found in nvcc's cubin by name, launched, filled and verified as NVRTC's are.
TEST(GpuSourceFamily, KernelsBuiltByNvccVerifyAsNvrtcsDo) {
  OCCBENCH_REQUIRE_GPU();
  if (nvcc_version().empty()) GTEST_SKIP() << "no nvcc runs here (looked in " << occbench::kNvccPlaces << ")";
  auto records = measure_all(example_with("adjacent_difference/adjacent_difference.json", {{"n", {100003}}}, nullptr, "nvcc"));
  auto matmul = measure_all(example_with("kernel_tuner/matmul/matmul.json", {{"n", {1000}}},
                                         {{"block_size_x", {16}}, {"block_size_y", {4}}, {"tile_size_x", {1, 4}}, {"tile_size_y", {2}}},
                                         "nvcc"));
  records.insert(records.end(), matmul.begin(), matmul.end());
  ASSERT_EQ(records.size(), 16u + 3u);
  expect_all_verified(records);
  for (const auto& r : records) EXPECT_EQ(r["compile"]["compiler"].get<std::string>().rfind("nvcc ", 0), 0u) << r.dump();
}

// The register-tiled SYRK of examples/search/syrk at an awkward size (n = 333: partial 64-wide tiles):
// scalar and 16-byte shared-memory reads, padding, single and double buffering, split-k with
// atomics (3: m = 1001 split unevenly), each verified against the naive kernel.
TEST(GpuSourceFamily, SearchSpaceSyrkVerifiesAcrossItsChoices) {
  OCCBENCH_REQUIRE_GPU();
  auto records = measure_all(example_with("search/syrk/syrk.json", {{"m", {1001}}, {"n", {333}}},
                                          {{"block_tile", {64}}, {"thread_rows", {4}}, {"thread_cols", {4}}, {"k_step", {8}},
                                           {"smem_vector", {1, 4}}, {"padding", {0, 4}}, {"double_buffer", {0, 1}}, {"split_k", {1, 3}}}));
  ASSERT_EQ(records.size(), 17u) << "16 register-tiled points and the naive one";
  expect_all_verified(records);
}

// A run measures first what is compiled (a compile worker's kernels; here one the test compiled
// beforehand into an empty cache) instead of waiting for the next kernel in order, and still
// writes its results in the sweep's order. Parameters no other test compiles in this process.
TEST(GpuSourceFamily, ARunMeasuresCompiledPointsFirstAndKeepsTheSweepsOrder) {
  OCCBENCH_REQUIRE_GPU();
  auto dir = std::filesystem::temp_directory_path() / "occbench_gpu_ready_first";
  std::filesystem::remove_all(dir);
  const char* old_cache = std::getenv("OCCBENCH_CACHE_DIR");
  std::string kept_cache = old_cache ? old_cache : "";
  ::setenv("OCCBENCH_CACHE_DIR", (dir / "cache").c_str(), 1);
  SweepSpec spec = example_with("kernel_tuner/convolution/convolution.json", {{"image_width", {192}}, {"image_height", {160}}},
                                {{"block_size_x", {32}}, {"block_size_y", {2}}, {"tile_size_x", {2, 4, 5}}, {"tile_size_y", {1}},
                                 {"use_padding", {1}}, {"read_only", {0}}});
  spec.measurement.mode = "hot";
  spec.measurement.min_samples = 3;
  spec.measurement.max_samples = 5;
  spec.measurement.min_time_s = 0;
  std::vector<Point> points = expand_sweep(spec, builtin_registry());
  ASSERT_EQ(points.size(), 4u) << "the naive point and three tiles";
  const Point& last = points.back();
  last.variant->compile(last.params, current_device_arch());  // as a worker would have
  RunOptions options;
  options.out_dir = dir.string();
  std::ostringstream log;
  RunSummary summary = run_sweep(spec, builtin_registry(), options, log);
  ::setenv("OCCBENCH_CACHE_DIR", kept_cache.c_str(), 1);
  if (!old_cache) ::unsetenv("OCCBENCH_CACHE_DIR");
  ASSERT_EQ(summary.exit_code, 0) << log.str();
  EXPECT_EQ(summary.ok, 4u) << log.str();
  std::vector<std::string> measured, recorded, in_order;
  for (const auto& r : read_jsonl(summary.jsonl_path).results) measured.push_back(r["point_id"]);
  ordered_json doc = read_json_file(summary.json_path);  // kept: the loop reads inside it
  for (const auto& r : doc["results"]) recorded.push_back(r["point_id"]);
  for (const auto& p : points) in_order.push_back(p.id);
  auto at = [&](const std::string& id) { return std::find(measured.begin(), measured.end(), id) - measured.begin(); };
  EXPECT_LT(at(last.id), at(points[1].id)) << "the compiled kernel was measured before the ones to compile";
  EXPECT_EQ(recorded, in_order) << "the results in the sweep's order";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace occbench
