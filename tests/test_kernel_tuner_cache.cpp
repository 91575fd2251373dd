// Kernel Tuner's cache files as occbench's records (harness/records/kernel_tuner_cache): replay
// runs its strategies on them, an open (interrupted) cache is read, parameters of every type Kernel
// Tuner takes are read as they are, and a value of no parameter's type is refused naming the entry.
#include "harness/records/kernel_tuner_cache.hpp"
#include "data_dir.hpp"
#include "harness/records/merge.hpp"
#include "harness/records/report.hpp"
#include "harness/search/replay.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace occbench {
namespace {

const std::string kData = std::string(OCCBENCH_SOURCE_DIR) + "/tests/data/";

TEST(KernelTunerCache, ACacheKernelTunerWroteIsAResultsFileOfItsPoints) {
  ShardOutput out = read_shard_output(kData + "kernel_tuner_cache_vector_add.json");
  ASSERT_EQ(out.results.size(), 15u);
  EXPECT_EQ(out.devices.at(0)["name"], "NVIDIA RTX A4000");
  const auto& first = out.results.front();
  EXPECT_EQ(first["point_id"], "kernel_tuner/vector_add/block_size_x=128");
  EXPECT_EQ(first["status"], "ok");
  EXPECT_NEAR(first["timing"]["median_ms"].get<double>(), 0.040736, 1e-6);
}

TEST(KernelTunerCache, ReplayRunsTheStrategiesOnIt) {
  ReplayOptions options;
  options.seeds = 3;
  options.max_points = 5;
  auto spaces = replay(read_shard_output(kData + "kernel_tuner_cache_vector_add.json"), options);
  ASSERT_EQ(spaces.size(), 1u);
  EXPECT_EQ(spaces[0].points, 15u);
  EXPECT_EQ(spaces[0].optimum_point, "kernel_tuner/vector_add/block_size_x=768");
  EXPECT_EQ(spaces[0].curves.size(), options.strategies.size());
}

TEST(KernelTunerCache, AnOpenCacheIsReadAsKernelTunerReadsIt) {
  std::ifstream in(kData + "kernel_tuner_cache_vector_add.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string open = text.str();
  open = open.substr(0, open.rfind('}', open.rfind('}') - 1)) + ",";  // as Kernel Tuner leaves it while tuning
  auto path = std::filesystem::temp_directory_path() / "occbench_open_cache.json";
  std::ofstream(path) << open;
  EXPECT_EQ(read_shard_output(path.string()).results.size(), 15u);
  std::filesystem::remove(path);
}

// Kernel Tuner's own test cache of strings, a boolean and a list of mixed types (it was refused:
// occbench's parameters were integers).
TEST(KernelTunerCache, ParametersOfEveryTypeAreReadAndReplayed) {
  ShardOutput out = read_shard_output(kData + "kernel_tuner_cache_mixed_params.json");
  ASSERT_FALSE(out.results.empty());
  const auto& params = out.results.front()["params"];
  EXPECT_TRUE(params["test_string"].is_string()) << params.dump();
  EXPECT_TRUE(params["test_bool"].is_boolean()) << params.dump();
  EXPECT_EQ(out.results.front()["point_id"], "kernel_tuner/vector_add/block_size_x=128/test_string=alg_2/test_single=15/"
                                             "test_bool=true/test_mixed=2.45");
  ReplayOptions options;
  options.seeds = 2;
  options.max_points = 4;
  auto spaces = replay(out, options);
  ASSERT_EQ(spaces.size(), 1u);
  EXPECT_EQ(spaces[0].curves.size(), options.strategies.size());
}

TEST(KernelTunerCache, AValueOfNoParametersTypeIsRefusedNamingTheEntry) {
  std::ifstream in(kData + "kernel_tuner_cache_mixed_params.json");
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(in);
  doc["cache"].begin().value()["test_string"] = nlohmann::ordered_json::array({"alg_1"});
  auto path = std::filesystem::temp_directory_path() / "occbench_cache_list_value.json";
  std::ofstream(path) << doc.dump();
  try {
    read_shard_output(path.string());
    FAIL() << "accepted";
  } catch (const ResultsFileError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("occbench_cache_list_value.json: cache[\""), std::string::npos) << what;
    EXPECT_NE(what.find("test_string: expected a number, a string or true/false, got [\"alg_1\"]"), std::string::npos) << what;
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace occbench
