// occbench best: the best point per variant and size by an objective, the JSON and the header a
// user's build includes, and the refusals.
#include "harness/records/best.hpp"
#include "results_test_support.hpp"

#include <gtest/gtest.h>

namespace occbench {
namespace {

using testing_support::make_record;

nlohmann::ordered_json sized(nlohmann::ordered_json r, int n) {
  r["params"]["n"] = n;
  r["point_id"] = "f/" + r["variant"].get<std::string>() + "/n=" + std::to_string(n) + "/block_size=" + r["params"]["block_size"].dump();
  return r;
}

std::string write_run(const testing_support::TempDir& dir) {
  std::vector<nlohmann::ordered_json> results = {
      sized(make_record("global", 128, 0.20), 1024), sized(make_record("global", 256, 0.10), 1024),
      sized(make_record("global", 128, 0.90), 4096), sized(make_record("global", 256, 1.10), 4096),
      sized(make_record("shared", 256, 0.05, 0.01, 20, "failed"), 1024), sized(make_record("shared", 512, 0.30), 1024)};
  results[0]["metrics"]["achieved_bandwidth_gbps"] = 900.0;  // slower but, in this made-up record, more GB/s
  nlohmann::ordered_json doc = testing_support::make_doc("NVIDIA H100 80GB HBM3", results);
  doc["config"]["sizes"] = {{"n", {1024, 4096}}};
  return dir.write("run.json", doc.dump());
}

TEST(Best, PicksTheBestOkPointPerVariantAndSize) {
  testing_support::TempDir dir;
  ShardOutput run = read_shard_output(write_run(dir));
  std::vector<BestPoint> best = best_points(run, Objective{});
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[0].record["point_id"], "f/global/n=1024/block_size=256");
  EXPECT_EQ(best[0].params, (nlohmann::ordered_json{{"block_size", 256}}));
  EXPECT_EQ(best[0].sizes, (nlohmann::ordered_json{{"n", 1024}}));
  EXPECT_EQ(best[0].candidates, 2);
  EXPECT_EQ(best[1].record["point_id"], "f/global/n=4096/block_size=128");
  EXPECT_EQ(best[2].record["point_id"], "f/shared/n=1024/block_size=512");  // the failed point never wins
  EXPECT_EQ(best[2].candidates, 1);

  std::vector<BestPoint> by_bandwidth = best_points(run, parse_objective("metrics.achieved_bandwidth_gbps:max"));
  EXPECT_EQ(by_bandwidth[0].record["point_id"], "f/global/n=1024/block_size=128");
  EXPECT_DOUBLE_EQ(by_bandwidth[0].value, 900.0);
}

TEST(Best, WritesAHeaderAUsersBuildCanInclude) {
  testing_support::TempDir dir;
  ShardOutput run = read_shard_output(write_run(dir));
  std::vector<BestPoint> best = best_points(run, Objective{});
  std::string header = best_header(best, run, Objective{});
  EXPECT_NE(header.find("#pragma once"), std::string::npos);
  EXPECT_NE(header.find("GPU: NVIDIA H100 80GB HBM3"), std::string::npos) << header;
  // global was measured at two sizes: they are in its names; shared at one: not.
  EXPECT_NE(header.find("#define OCCBENCH_F_GLOBAL_N1024_BLOCK_SIZE 256\n"), std::string::npos) << header;
  EXPECT_NE(header.find("#define OCCBENCH_F_GLOBAL_N4096_BLOCK_SIZE 128\n"), std::string::npos) << header;
  EXPECT_NE(header.find("#define OCCBENCH_F_SHARED_BLOCK_SIZE 512\n"), std::string::npos) << header;
  EXPECT_NE(header.find("// f global at n=1024: min timing.median_ms = 0.1; median 100.0 µs (of 2 point(s))"), std::string::npos)
      << header;
  nlohmann::ordered_json json = best_json(best, run, Objective{});
  EXPECT_EQ(json["objective"], "timing.median_ms:min");
  EXPECT_EQ(json["best"][0]["params"]["block_size"], 256);
}

TEST(Best, RefusesAnObjectiveItCannotReadAndARecordWithoutIt) {
  EXPECT_THROW(parse_objective("timing.median_ms:fastest"), std::invalid_argument);
  EXPECT_THROW(parse_objective(":max"), std::invalid_argument);
  EXPECT_TRUE(parse_objective("energy.joules_per_launch").field == "energy.joules_per_launch");
  testing_support::TempDir dir;
  std::string path = write_run(dir);
  testing_support::CliResult nothing = testing_support::run_cli({"best", path, "--objective", "energy.joules_per_launch"});
  EXPECT_EQ(nothing.code, 2);
  EXPECT_NE(nothing.err.find("no ok point"), std::string::npos) << nothing.err;
  testing_support::CliResult written = testing_support::run_cli({"best", path, "--out", dir.file("best")});
  EXPECT_EQ(written.code, 0) << written.err;
  EXPECT_NE(written.out.find("| f | global | n=1024 | block_size=256 | 0.1 | 100.0 µs | 2 |"), std::string::npos) << written.out;
}

}  // namespace
}  // namespace occbench
