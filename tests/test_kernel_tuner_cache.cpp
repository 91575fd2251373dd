// Kernel Tuner's cache files as occbench's records (harness/records/kernel_tuner_cache): replay
// runs its strategies on them, an open (interrupted) cache is read, and a cache whose parameters
// are not integers is refused naming the entry.
#include "harness/records/kernel_tuner_cache.hpp"
#include "data_dir.hpp"
#include "harness/records/merge.hpp"
#include "harness/records/report.hpp"
#include "harness/search/replay.hpp"

#include <gtest/gtest.h>

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

TEST(KernelTunerCache, ParametersThatAreNotIntegersAreRefusedNamingTheEntry) {
  try {
    read_shard_output(kData + "kernel_tuner_cache_mixed_params.json");
    FAIL() << "accepted";
  } catch (const ResultsFileError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("kernel_tuner_cache_mixed_params.json: cache[\""), std::string::npos) << what;
    EXPECT_NE(what.find("test_string: expected an integer"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace occbench
