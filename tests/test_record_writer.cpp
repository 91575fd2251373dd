#include "harness/records/record_writer.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace occbench;

namespace {
ordered_json sample_result(const std::string& variant, double median) {
  return {{"point_id", "f/" + variant + "/n=3"},
          {"variant", variant},
          {"params", {{"n", 3}}},
          {"status", "ok"},
          {"reason", "a, \"quoted\" reason"},
          {"launch", {{"grid", {4, 1, 1}}, {"block", {256, 1, 1}}, {"dynamic_smem_bytes", 0}}},
          {"timing", {{"median_ms", median}, {"samples", 10}}},
          {"metrics", {{"speedup_vs_baseline", nullptr}}}};
}
std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("occbench_test_" + name)).string();
}
}  // namespace

TEST(Report, FlattenUsesUnderscoresAndXyz) {
  auto flat = flatten(sample_result("global", 0.25));
  auto find = [&](const std::string& key) {
    for (const auto& [k, v] : flat)
      if (k == key) return v;
    return std::string("<missing>");
  };
  EXPECT_EQ(find("timing_median_ms"), "0.25");
  EXPECT_EQ(find("params_n"), "3");
  EXPECT_EQ(find("launch_grid_x"), "4");
  EXPECT_EQ(find("launch_block_x"), "256");
  EXPECT_EQ(find("metrics_speedup_vs_baseline"), "");
}

TEST(Report, CsvRoundTrip) {
  std::vector<ordered_json> results = {sample_result("global", 0.25), sample_result("shared", 1.0 / 3.0)};
  results[1]["params"]["block_size"] = 128;  // a column only the second row has
  auto rows = parse_csv(to_csv(results));
  ASSERT_EQ(rows.size(), 3u);
  const auto& header = rows[0];
  auto column = [&](const std::string& name) {
    auto it = std::find(header.begin(), header.end(), name);
    EXPECT_NE(it, header.end()) << name;
    return std::size_t(it - header.begin());
  };
  EXPECT_EQ(rows[1][column("variant")], "global");
  EXPECT_EQ(rows[1][column("reason")], "a, \"quoted\" reason");
  EXPECT_EQ(std::stod(rows[2][column("timing_median_ms")]), 1.0 / 3.0);  // shortest round-trip digits
  EXPECT_EQ(rows[1][column("params_block_size")], "");
  EXPECT_EQ(rows[2][column("params_block_size")], "128");
  for (const auto& row : rows) EXPECT_EQ(row.size(), header.size());
}

TEST(Report, JsonDocumentRoundTrip) {
  auto doc = make_document({{"kind", "run"}}, {{"name", "GPU"}}, {{"family", "f"}}, {sample_result("global", 0.5)});
  std::string path = temp_path("doc.json");
  write_text_file(path, doc.dump(2));
  auto back = read_json_file(path);
  EXPECT_EQ(back, doc);
  EXPECT_EQ(back["schema_version"], kSchemaVersion);
  EXPECT_EQ(back["units"]["timing.median_ms"], "ms");
  EXPECT_EQ(back["tool"]["name"], "occbench");
  std::filesystem::remove(path);
}

TEST(Report, JsonlKeepsFinishedPointsAndIgnoresATornLastLine) {
  std::string path = temp_path("run.jsonl");
  {
    JsonlWriter writer(path, false);
    writer.write({{"occbench_jsonl", 1}, {"config", {{"family", "f"}}}});
    writer.write(sample_result("global", 0.5));
    writer.write(sample_result("shared", 0.7));
  }
  { std::ofstream(path, std::ios::app) << "{\"point_id\": \"f/x"; }  // killed mid-line
  auto contents = read_jsonl(path);
  EXPECT_EQ(contents.header["config"]["family"], "f");
  ASSERT_EQ(contents.results.size(), 2u);
  EXPECT_EQ(contents.results[1]["variant"], "shared");
  std::filesystem::remove(path);
}

TEST(Report, JsonlWithoutHeaderIsRefused) {
  std::string path = temp_path("bad.jsonl");
  { std::ofstream(path) << "{\"a\": 1}\n"; }
  EXPECT_THROW(read_jsonl(path), std::runtime_error);
  std::filesystem::remove(path);
}

TEST(Report, OutputStemNamesSweepDeviceAndTime) {
  EXPECT_EQ(output_stem("results", "adj", "NVIDIA H100 80GB HBM3", "20261122T180000Z"),
            "results/adj-NVIDIA-H100-80GB-HBM3-20261122T180000Z");
}

TEST(Report, TableAndProgressShowTheHeadlineFigures) {
  auto r = sample_result("global", 0.0632);
  r["family"] = "adjacent_difference";
  r["timing"]["noise"] = 0.006;
  r["metrics"]["achieved_bandwidth_gbps"] = 2124.0;
  r["occupancy"] = {{"theoretical", 1.0}, {"limiter", "warps"}};
  auto line = format_progress(r, 3, 34);
  EXPECT_NE(line.find("[3/34] adjacent_difference/global n=3: 63.20 µs"), std::string::npos) << line;
  EXPECT_NE(line.find("2124 GB/s"), std::string::npos) << line;
  EXPECT_NE(line.find("(warps)"), std::string::npos) << line;
  EXPECT_EQ(line.find("mJ/launch"), std::string::npos) << line;  // no energy section, no energy
  auto with_energy = r;
  with_energy["energy"] = {{"status", "ok"}, {"joules_per_launch", 2.178}, {"average_w", 699.7}, {"at_power_limit", true}};
  line = format_progress(with_energy, 3, 34);
  EXPECT_NE(line.find(", 2178 mJ/launch at 700 W, at the power limit"), std::string::npos) << line;
  with_energy["energy"]["at_power_limit"] = false;
  EXPECT_EQ(format_progress(with_energy, 3, 34).find("power limit"), std::string::npos);
  auto table = format_table({r});
  EXPECT_NE(table.find("63.20 µs"), std::string::npos) << table;
  EXPECT_NE(table.find("warps"), std::string::npos) << table;
  EXPECT_EQ(table.find("!floor"), std::string::npos) << table;
  // Timing flags mark the median.
  r["timing"]["near_timing_floor"] = true;
  r["timing"]["conditions"] = {{"flags", {"throttled (sw_power_cap)"}}};
  table = format_table({r});
  EXPECT_NE(table.find("63.20 µs !floor !clocks"), std::string::npos) << table;
}
