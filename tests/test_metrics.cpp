#include "harness/model/metrics.hpp"

#include <gtest/gtest.h>

using namespace occbench;
using json = nlohmann::ordered_json;

TEST(Metrics, BandwidthFlopsAndPercentages) {
  WorkModel w;
  w.flops = 2e9;
  w.global_bytes = 4e9;
  w.dram_bytes = 1e9;
  auto m = compute_metrics(w, 0.5, 3000.0, 2500.0);  // 0.5 ms
  EXPECT_DOUBLE_EQ(m.achieved_bandwidth_gbps, 2000.0);  // 1e9 B / 5e-4 s = 2e12 B/s
  EXPECT_DOUBLE_EQ(m.gflops, 4000.0);
  EXPECT_DOUBLE_EQ(*m.pct_of_measured_bandwidth, 80.0);
  EXPECT_NEAR(m.pct_of_peak_bandwidth, 66.6666666667, 1e-9);
  EXPECT_FALSE(m.gflops_equivalent.has_value());
  EXPECT_DOUBLE_EQ(*cgma_flop_per_byte(w), 0.5);
  EXPECT_FALSE(compute_metrics(w, 0.5, 3000.0, std::nullopt).pct_of_measured_bandwidth.has_value());
}

TEST(Metrics, CovarianceSharedCgmaIsChunkOverFour) {
  // Per chunk step a c x c block loads 2c^2 floats (8c^2 bytes) and does c^3 multiply-adds (2c^3 FLOP).
  for (double c : {2.0, 8.0, 32.0}) {
    WorkModel w;
    w.flops = 2 * c * c * c;
    w.global_bytes = 8 * c * c;
    EXPECT_DOUBLE_EQ(*cgma_flop_per_byte(w), c / 4);
  }
  EXPECT_FALSE(cgma_flop_per_byte(WorkModel{}).has_value());
}

namespace {
json result(const std::string& variant, json params, double median_ms, const std::string& status = "ok") {
  return {{"variant", variant}, {"params", params}, {"status", status},
          {"timing", {{"median_ms", median_ms}}}, {"metrics", json::object()}};
}
}  // namespace

TEST(Metrics, SpeedupsMatchTheBaselineOnSharedParameters) {
  std::vector<json> results = {
      result("global", {{"n", 10}, {"block_size", 128}}, 2.0),
      result("global", {{"n", 10}, {"block_size", 256}}, 1.0),
      result("shared", {{"n", 10}, {"block_size", 256}}, 4.0),
      result("host", {{"n", 10}}, 10.0),                      // no block_size: the fastest global at n=10
      result("shared", {{"n", 20}, {"block_size", 256}}, 1.0),  // no baseline at n=20
      result("shared", {{"n", 10}, {"block_size", 128}}, 1.0, "failed"),
  };
  assign_speedups(results, "global");
  EXPECT_DOUBLE_EQ(results[0]["metrics"]["speedup_vs_baseline"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(results[2]["metrics"]["speedup_vs_baseline"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(results[3]["metrics"]["speedup_vs_baseline"].get<double>(), 0.1);
  EXPECT_TRUE(results[4]["metrics"]["speedup_vs_baseline"].is_null());
  EXPECT_FALSE(results[5]["metrics"].contains("speedup_vs_baseline"));
}

// A log's records as the fuzzer tore them (docs/fuzzing.md): no params, params that are not an
// object, a status or a median that are not what they should be. None is a baseline, none throws,
// and none reads past its object (AddressSanitizer found a const operator[] on a missing key).
TEST(Speedup, RecordsWithoutParamsOrWithOddFieldsMatchNoBaseline) {
  std::vector<json> results = {
      result("global", {{"n", 10}}, 2.0),
      result("shared", {{"n", 10}}, 1.0),
  };
  results.push_back(results[0]);
  results.back().erase("params");
  results.push_back(results[1]);
  results.back()["params"] = 7;
  results.push_back(results[0]);
  results.back()["status"] = 3;
  results.push_back(results[0]);
  results.back()["timing"]["median_ms"] = "fast";
  results.push_back(results[1]);
  results.back().erase("params");
  assign_speedups(results, "global");
  EXPECT_DOUBLE_EQ(results[1]["metrics"]["speedup_vs_baseline"].get<double>(), 2.0);
  EXPECT_TRUE(results[3]["metrics"]["speedup_vs_baseline"].is_null());
  EXPECT_TRUE(results[6]["metrics"]["speedup_vs_baseline"].is_null());
}
