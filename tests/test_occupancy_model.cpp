// Little's law, the occupancy knee and the latency probe's random cycle: pure CPU parts.
#include "harness/measure/latency_probe.hpp"
#include "harness/records/occupancy_knee.hpp"
#include "harness/model/occupancy_model.hpp"
#include "harness/records/report.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace occbench {
namespace {

TEST(LittlesLaw, BytesInFlightAndPredictedKnee) {
  // 3000 GB/s x 600 ns = 1.8 MB in flight over 132 SMs = 13636 B per SM; 2048 B per warp -> 7 warps of 64.
  auto m = littles_law(3000, 600, 132, 64, 2048);
  ASSERT_TRUE(m);
  EXPECT_NEAR(m->bytes_in_flight_per_sm, 13636.36, 0.01);
  EXPECT_EQ(m->warps_per_sm_needed, 7);
  EXPECT_DOUBLE_EQ(m->predicted_knee_occupancy, 7.0 / 64);
  EXPECT_TRUE(m->reachable);
  // 128 B per warp needs 107 warps: more than an SM holds, so the knee is full occupancy.
  auto scalar = littles_law(3000, 600, 132, 64, 128);
  EXPECT_EQ(scalar->warps_per_sm_needed, 107);
  EXPECT_DOUBLE_EQ(scalar->predicted_knee_occupancy, 1.0);
  EXPECT_FALSE(scalar->reachable);
  EXPECT_FALSE(littles_law(3000, 600, 132, 64, 0));  // not modelled
  EXPECT_FALSE(littles_law(0, 600, 132, 64, 128));   // no measurement
}

nlohmann::ordered_json point(const char* variant, int limit, double occupancy, double median_ms, int blocks) {
  return {{"family", "f"},
          {"variant", variant},
          {"params", {{"n", 10}, {"occupancy_limit", limit}}},
          {"status", "ok"},
          {"occupancy", {{"theoretical", occupancy}, {"active_blocks_per_sm", blocks}}},
          {"timing", {{"median_ms", median_ms}}},
          {"littles_law", {{"predicted_knee_occupancy", 0.25}}}};
}

TEST(OccupancyKnee, LowestOccupancyWithinFivePercentOfTheBest) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  results.push_back(point("a", 1, 0.125, 4.0, 1));
  results.push_back(point("a", 2, 0.25, 1.04, 2));  // within 5% of 1.0: the knee
  results.push_back(point("a", 4, 0.5, 1.0, 4));
  results.push_back(point("a", 8, 1.0, 1.01, 8));
  results.push_back(point("b", 1, 0.125, 1.0, 1));  // a curve of one point: no knee
  results.push_back(point("a", 0, 1.0, 0.8, 8));  // unforced reference: not on the curve
  auto failed = point("a", 3, 0.375, 0.1, 3);
  failed["status"] = "failed";  // never counted
  results.push_back(failed);
  auto knees = occupancy_knees(results);
  ASSERT_EQ(knees.size(), 1u);
  EXPECT_EQ(knees[0].curve, "f/a/n=10");
  EXPECT_EQ(knees[0].points, 4);
  EXPECT_DOUBLE_EQ(knees[0].occupancy_knee, 0.25);
  EXPECT_EQ(knees[0].knee_blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(knees[0].best_occupancy, 0.5);
  EXPECT_DOUBLE_EQ(knees[0].slowdown_at_lowest, 4.0);
  EXPECT_DOUBLE_EQ(knees[0].predicted_knee_occupancy.value_or(0), 0.25);
  EXPECT_FALSE(knees[0].achieved_occupancy_knee);
  EXPECT_DOUBLE_EQ(knees[0].unforced_median_ms.value_or(0), 0.8);
  EXPECT_DOUBLE_EQ(knees[0].carveout_slowdown.value_or(0), 1.01 / 0.8);  // forced at occupancy 1.0 over unforced
  EXPECT_EQ(to_json(knees[0])["occupancy_knee"], 0.25);

  // The report shows the section and the JSON report carries the field.
  nlohmann::ordered_json doc = {{"schema_version", kSchemaVersion}, {"results", results}};
  std::vector<ResultsFile> files = {results_from_json(doc, "x.json")};
  EXPECT_NE(report_markdown(files).find("| f/a/n=10 | 4 |"), std::string::npos) << report_markdown(files);
  EXPECT_EQ(report_json(files)["sources"][0]["occupancy_knees"][0]["occupancy_knee"], 0.25);
}

TEST(LatencyProbe, RandomCycleVisitsEveryLineOnce) {
  const std::size_t count = 10007;
  std::vector<std::uint32_t> next = random_cycle(count, 7);
  std::vector<bool> seen(count, false);
  std::uint32_t j = 0;
  for (std::size_t step = 0; step < count; ++step) {
    ASSERT_FALSE(seen[j]) << "returned early at step " << step;
    seen[j] = true;
    j = next[j];
  }
  EXPECT_EQ(j, 0u);  // back at the start after exactly count steps
  EXPECT_NE(random_cycle(count, 8), next);
  auto shape = latency_probe_shape(50u << 20, 80ull << 30);  // H100: 50 MiB L2 -> 400 MiB
  EXPECT_EQ(shape.buffer_bytes, 400u << 20);
  EXPECT_EQ(latency_probe_shape(4u << 20, 16ull << 30).buffer_bytes, 256u << 20);
}

}  // namespace
}  // namespace occbench
