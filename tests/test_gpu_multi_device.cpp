// run --devices on two GPUs of this machine: one document with every point once, each with its
// device, one device record per GPU; run --resume of it; --each-device. The occbench binary is
// run as a user would (its workers are processes of that binary), from beside this test binary.
#include "gpu_test_support.hpp"
#include "data_dir.hpp"
#include "harness/core/files.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/run/supervisor.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/sweep/config.hpp"
#include "kernels/families.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

using namespace occbench;
namespace fs = std::filesystem;

namespace {

// Two problem sizes, 32 quick points: enough for both workers to take some.
const char* kConfig = R"({
  "name": "multi_device_test", "family": "stencil", "variants": ["global", "shared_dynamic"], "baseline": "global",
  "sizes": {"width": [1024, 2048], "height": [1024]},
  "axes": {"filter_size": [3, 9], "block_x": [16, 32], "block_y": [4, 8]},
  "measurement": {"mode": "cold", "min_samples": 5, "max_samples": 50, "target_noise": 0.05, "min_time_s": 0.002, "timeout_s": 0.1, "seed": 7}
})";

#define REQUIRE_TWO_GPUS()                                                                   \
  do {                                                                                       \
    OCCBENCH_REQUIRE_GPU();                                                                  \
    int count = 0;                                                                           \
    OCCBENCH_CUDA_CHECK(cudaGetDeviceCount(&count));                                         \
    if (count < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << count;             \
  } while (0)

std::string occbench_binary() { return (fs::path(self_executable()).parent_path().parent_path() / "occbench").string(); }

int run_occbench(const std::string& args) { return WEXITSTATUS(std::system((occbench_binary() + " " + args).c_str())); }

struct SweepDir {
  fs::path dir, config;
  std::set<std::string> ids;
};

SweepDir make_sweep_dir(const std::string& name) {
  SweepDir s;
  s.dir = fs::temp_directory_path() / ("occbench_multi_device_" + name);
  fs::remove_all(s.dir);
  fs::create_directories(s.dir);
  s.config = s.dir / "config.json";
  std::ofstream(s.config) << kConfig;
  for (const auto& point : expand_sweep(parse_sweep_file(s.config.string(), builtin_registry()), builtin_registry()))
    s.ids.insert(point.id);
  return s;
}

std::vector<std::string> files_with(const fs::path& dir, const std::string& extension) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == extension) found.push_back(entry.path().string());
  return found;
}

// Every point once, verified, with a device index naming one of two device records.
void expect_whole_sweep_on_two(const ordered_json& doc, const std::set<std::string>& ids) {
  ASSERT_EQ(doc["devices"].size(), 2u);
  EXPECT_EQ(doc["devices"][0]["ordinal"], 0);
  EXPECT_EQ(doc["devices"][1]["ordinal"], 1);
  std::set<std::string> seen;
  std::set<int> used;
  for (const auto& r : doc["results"]) {
    EXPECT_TRUE(seen.insert(r["point_id"].get<std::string>()).second) << r["point_id"] << " twice";
    EXPECT_EQ(r["status"], "ok") << r["point_id"] << ": " << r["reason"];
    EXPECT_EQ(r["verification"]["status"], "passed") << r["point_id"];
    used.insert(r["device"].get<int>());
  }
  EXPECT_EQ(seen, ids);
  EXPECT_EQ(used, (std::set<int>{0, 1})) << "both GPUs measured points";
}

}  // namespace

TEST(GpuMultiDevice, TwoGpusOneDocumentAndResume) {
  REQUIRE_TWO_GPUS();
  SweepDir s = make_sweep_dir("two");
  ASSERT_EQ(run_occbench("run " + s.config.string() + " --devices 0,1 --out " + s.dir.string()), 0);
  auto documents = files_with(s.dir, ".json");
  documents.erase(std::remove(documents.begin(), documents.end(), s.config.string()), documents.end());
  ASSERT_EQ(documents.size(), 1u);
  std::string stem = documents[0].substr(0, documents[0].size() - 5);
  expect_whole_sweep_on_two(read_json_file(documents[0]), s.ids);
  EXPECT_TRUE(fs::exists(stem + ".csv"));

  // Lose most of device 1's points and the merged document, as if the run had been killed.
  fs::path part_dir = stem + ".parts/device1";
  auto part_jsonl = files_with(part_dir, ".jsonl");
  ASSERT_EQ(part_jsonl.size(), 1u);
  JsonlContents part = read_jsonl(part_jsonl[0]);
  ASSERT_GE(part.results.size(), 2u);
  {
    std::ofstream out(part_jsonl[0], std::ios::trunc);
    out << part.header.dump() << "\n" << part.results[0].dump() << "\n";
  }
  fs::remove(documents[0]);
  ASSERT_EQ(run_occbench("run --resume " + stem + ".jsonl"), 0);
  ordered_json resumed = read_json_file(documents[0]);
  expect_whole_sweep_on_two(resumed, s.ids);
  std::size_t kept = 0;
  for (const auto& run : resumed["run"]["parts"]) kept += run["resumed_points"].get<std::size_t>();
  EXPECT_EQ(kept, s.ids.size() - part.results.size() + 1) << "finished points are kept, not measured again";
}

TEST(GpuMultiDevice, EachDeviceRunsTheWholeSweep) {
  REQUIRE_TWO_GPUS();
  SweepDir s = make_sweep_dir("each");
  fs::path out = s.dir / "out";
  ASSERT_EQ(run_occbench("run " + s.config.string() + " --devices 0,1 --each-device --out " + out.string()), 0);
  auto documents = files_with(out / "device0", ".json");
  auto second = files_with(out / "device1", ".json");
  documents.insert(documents.end(), second.begin(), second.end());
  ASSERT_EQ(documents.size(), 2u);
  std::set<std::string> bus_ids;
  for (const auto& path : documents) {
    ordered_json doc = read_json_file(path);
    std::set<std::string> seen;
    for (const auto& r : doc["results"]) {
      seen.insert(r["point_id"].get<std::string>());
      EXPECT_EQ(r["verification"]["status"], "passed") << r["point_id"];
    }
    EXPECT_EQ(seen, s.ids) << path;
    bus_ids.insert(doc["device"]["pci_bus_id"].get<std::string>());
  }
  EXPECT_EQ(bus_ids.size(), 2u) << "one file per GPU";
}

TEST(GpuMultiDevice, BadDeviceListIsRefused) {
  OCCBENCH_REQUIRE_GPU();
  SweepDir s = make_sweep_dir("bad");
  EXPECT_EQ(run_occbench("run " + s.config.string() + " --devices 0,0"), 2);
  EXPECT_EQ(run_occbench("run " + s.config.string() + " --devices 99"), 2);
  EXPECT_EQ(run_occbench("run " + s.config.string() + " --each-device"), 2);
}

// A search shared by --devices compiles ahead in each worker, as a run on one GPU does: without, a
// cold search of one's own kernels waited on the compiler for nine tenths of its wall. One GPU
// is enough: --devices 0 runs the same worker.
TEST(GpuMultiDevice, ASearchOnDevicesCompilesItsLikelyNextKernelsAhead) {
  OCCBENCH_REQUIRE_GPU();
  fs::path dir = fs::temp_directory_path() / "occbench_multi_device_search";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string config = std::string(OCCBENCH_SOURCE_DIR) + "/examples/search/syrk/syrk.json";
  fs::path log = dir / "log.txt";
  ASSERT_EQ(run_occbench("run " + config + " --devices 0 --strategy local --max-points 6 --seed 3 --out " + (dir / "out").string() +
                         " > " + log.string() + " 2>&1"),
            0)
      << read_file(log.string()).value_or("");
  std::string text = read_file(log.string()).value_or("");
  EXPECT_NE(text.find("compiling the search's likely next kernels ahead in"), std::string::npos) << text;
  EXPECT_NE(text.find("all devices: 6 ok"), std::string::npos) << text;
}
