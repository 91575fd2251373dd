// The selection rule an application's launches take (harness/records/launch_choice.hpp): this
// GPU's best at the nearest recorded size, else its architecture's, else the defaults, each with
// a reason; and where a size is too far to compare, never that size.
#include "harness/records/launch_choice.hpp"
#include "harness/records/kernel_launcher_wisdom.hpp"
#include "harness/records/report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

using namespace occbench;
using nlohmann::ordered_json;

namespace {

// One GPU's run of a tiled matmul at square sizes: for each size, the `tiles` with their times.
ShardOutput run_on(const std::string& gpu, const std::string& cc, const std::vector<std::pair<int, std::vector<std::pair<int, double>>>>& sizes) {
  ShardOutput out;
  out.path = gpu + ".json";
  out.config = {{"sizes", {{"m", ordered_json::array()}, {"n", ordered_json::array()}}}};
  out.devices.push_back({{"name", gpu}, {"compute_capability", cc}});
  for (const auto& [size, tiles] : sizes)
    for (const auto& [tile, ms] : tiles)
      out.results.push_back({{"point_id", "matmul/tiled/m=" + std::to_string(size) + "/tile=" + std::to_string(tile)},
                             {"family", "matmul"}, {"variant", "tiled"}, {"status", "ok"},
                             {"params", {{"m", size}, {"n", size}, {"tile", tile}}}, {"timing", {{"median_ms", ms}}}});
  return out;
}

LaunchTarget target(const std::string& gpu, const std::string& cc, double size) { return {gpu, cc, {{"m", size}, {"n", size}}}; }

int tile_of(const LaunchChoice& choice) { return choice.best->params["tile"].get<int>(); }

}  // namespace

TEST(LaunchChoice, ThisGpusBestAtTheNearestRecordedSize) {
  std::vector<ShardOutput> results = {run_on("NVIDIA H200", "9.0", {{1024, {{16, 0.20}, {32, 0.25}}}, {4096, {{16, 9.0}, {32, 7.0}}}}),
                                      run_on("NVIDIA H100 80GB HBM3", "9.0", {{3000, {{8, 1.0}}}})};
  LaunchChoice small = choose_launch(results, "tiled", target("NVIDIA H200", "9.0", 1500));
  EXPECT_EQ(small.from, LaunchChoice::From::this_gpu);
  EXPECT_EQ(tile_of(small), 16) << "1500 is nearer 1024 than 4096 (0.55 against 1.45 octaves an axis)";
  EXPECT_NE(small.reason.find("this GPU's (NVIDIA H200) best at m=1024 n=1024, the recorded size nearest m=1500 n=1500"), std::string::npos)
      << small.reason;
  LaunchChoice large = choose_launch(results, "matmul/tiled", target("NVIDIA H200", "9.0", 4096));
  EXPECT_EQ(tile_of(large), 32);
  EXPECT_NE(large.reason.find("best at this size"), std::string::npos) << large.reason;
}

TEST(LaunchChoice, ElseTheSameArchitecturesElseTheDefaults) {
  std::vector<ShardOutput> results = {run_on("NVIDIA H100 80GB HBM3", "9.0", {{2048, {{8, 1.0}, {16, 0.8}}}}),
                                      run_on("NVIDIA A100-SXM4-80GB", "8.0", {{2048, {{32, 0.5}}}})};
  LaunchChoice hopper = choose_launch(results, "tiled", target("NVIDIA H200", "9.0", 2048));
  EXPECT_EQ(hopper.from, LaunchChoice::From::same_architecture);
  EXPECT_EQ(hopper.gpu, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(tile_of(hopper), 16);
  EXPECT_NE(hopper.reason.find("the same architecture (sm 9.0)"), std::string::npos) << hopper.reason;
  LaunchChoice blackwell = choose_launch(results, "tiled", target("NVIDIA B200", "10.0", 2048));
  EXPECT_EQ(blackwell.from, LaunchChoice::From::defaults);
  EXPECT_STREQ(from_name(hopper.from), "same_architecture");
  EXPECT_STREQ(from_name(blackwell.from), "defaults");
  EXPECT_STREQ(from_name(LaunchChoice::From::this_gpu), "this_gpu");
  EXPECT_FALSE(blackwell.best);
  EXPECT_NE(blackwell.reason.find("the defaults: no results of NVIDIA B200 (sm 10.0) or of its architecture"), std::string::npos)
      << blackwell.reason;
  EXPECT_EQ(choose_launch({}, "tiled", target("NVIDIA H200", "9.0", 2048)).from, LaunchChoice::From::defaults);
  EXPECT_EQ(choose_launch(results, "naive", target("NVIDIA H100 80GB HBM3", "9.0", 2048)).from, LaunchChoice::From::defaults)
      << "no records of that variant";
}

TEST(LaunchChoice, TiesGoToTheLargerSizeAndOtherAxesNeverMatch) {
  // 2048 and 8192 are both two octaves an axis from 4096: the larger one's tiles fit the problem.
  std::vector<ShardOutput> results = {run_on("NVIDIA H200", "9.0", {{1024, {{8, 0.1}}}, {16384, {{64, 90.0}}}})};
  EXPECT_EQ(tile_of(choose_launch(results, "tiled", target("NVIDIA H200", "9.0", 4096))), 64);
  EXPECT_EQ(size_distance({{"m", 2048}, {"n", 8192}}, {{"m", 4096}, {"n", 4096}}), 2.0);
  EXPECT_FALSE(size_distance({{"m", 2048}}, {{"m", 4096}, {"n", 4096}})) << "an axis missing";
  EXPECT_FALSE(size_distance({{"m", 2048}, {"k", 2048}}, {{"m", 4096}, {"n", 4096}})) << "another axis";
  EXPECT_FALSE(size_distance({{"m", 0}, {"n", 2048}}, {{"m", 4096}, {"n", 4096}})) << "not a positive size";
  LaunchTarget other_axes{"NVIDIA H200", "9.0", {{"width", 4096}}};
  EXPECT_EQ(choose_launch(results, "tiled", other_axes).from, LaunchChoice::From::defaults);
}

// Kernel Launcher's wisdom files are read as results (harness/records/kernel_launcher_wisdom.hpp):
// per device, the problem size as x, y, z, the tunable parameters as axes, "time" the median.
TEST(LaunchChoice, KernelLaunchersWisdomFilesChooseAsResultsDo) {
  std::string path = testing::TempDir() + "vector_add.wisdom";
  std::ofstream(path) << R"({"version": "1.0", "key": "vector_add", "objective": "time", "tunable_parameters": ["BLOCK", "ITEMS"]}
{"config": [128, 1], "problem_size": [1000000], "environment": {"device_name": "NVIDIA H200"}, "time": 0.05}
{"config": [256, 2], "problem_size": [1000000], "environment": {"device_name": "NVIDIA H200"}, "time": 0.03}
{"config": [512, 4], "problem_size": [4000000], "environment": {"device_name": "NVIDIA H200"}, "time": 0.09}
{"config": [64, 1], "problem_size": [1000000], "environment": {"device_name": "NVIDIA A100-SXM4-80GB"}, "time": 0.02}
{"config": ["wide", 1], "problem_size": [1000000], "environment": {"device_name": "NVIDIA H200"}, "time": 0.001}
)";
  ASSERT_TRUE(is_kernel_launcher_wisdom(path));
  std::vector<ShardOutput> results = kernel_launcher_wisdom(path);
  ASSERT_EQ(results.size(), 2u) << "one per device";
  LaunchChoice h200 = choose_launch(results, "vector_add", {"NVIDIA H200", "9.0", {{"x", 1.2e6}, {"y", 1}, {"z", 1}}});
  EXPECT_EQ(h200.from, LaunchChoice::From::this_gpu);
  EXPECT_EQ(h200.best->params["BLOCK"], 256) << "a string value does not map: its line is left out";
  EXPECT_EQ(h200.best->params["ITEMS"], 2);
  std::ofstream(path) << R"({"version": "1.0", "key": "vector_add", "objective": "gflops", "tunable_parameters": ["BLOCK"]})" << "\n";
  EXPECT_THROW(kernel_launcher_wisdom(path), ResultsFileError);
}
