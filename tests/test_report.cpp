// occbench report: loading results files (and refusing bad ones), markdown tables for one file
// and for several merged side by side, CSV and JSON conversion.
#include "harness/records/report.hpp"
#include "results_test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace occbench;
using namespace occbench::testing_support;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::size_t count_lines_starting(const std::string& text, const std::string& prefix) {
  std::size_t n = 0, pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (text.compare(pos, prefix.size(), prefix) == 0) ++n;
    pos = end + 1;
  }
  return n;
}

// The error message load_results_file gives for a file with this text.
std::string refusal(const TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.write(name, text);
  try {
    load_results_file(path);
  } catch (const ResultsFileError& e) {
    std::string message = e.what();
    EXPECT_TRUE(contains(message, path)) << message;
    return message;
  }
  ADD_FAILURE() << name << " was accepted";
  return "";
}

}  // namespace

TEST(Summary, BadFilesAreRefusedNamingFileAndExpectation) {
  TempDir dir;
  EXPECT_TRUE(contains(refusal(dir, "notjson.json", "{\"schema_version\": 1,"), "malformed JSON"));
  EXPECT_TRUE(contains(refusal(dir, "array.json", "[1, 2]"), "found an array"));
  EXPECT_TRUE(contains(refusal(dir, "noversion.json", "{\"results\": []}"), "no schema_version"));
  EXPECT_TRUE(contains(refusal(dir, "v2.json", "{\"schema_version\": 2, \"results\": [{}]}"), "schema_version is 2, expected 1"));
  EXPECT_TRUE(contains(refusal(dir, "vstring.json", "{\"schema_version\": \"1\", \"results\": [{}]}"), "expected 1"));
  EXPECT_TRUE(contains(refusal(dir, "noresults.json", "{\"schema_version\": 1}"), "expected a 'results' array"));
  EXPECT_TRUE(contains(refusal(dir, "empty.json", "{\"schema_version\": 1, \"results\": []}"), "'results' is empty"));
  EXPECT_TRUE(contains(refusal(dir, "scalar.json", "{\"schema_version\": 1, \"results\": [3]}"), "$.results[0]: expected a point's record (an object), got a number"));
  EXPECT_TRUE(contains(refusal(dir, "noid.json", "{\"schema_version\": 1, \"results\": [{\"status\": \"ok\"}]}"),
                       "$.results[0]: no point_id"));
  EXPECT_TRUE(contains(refusal(dir, "run.jsonl", "{\"occbench_jsonl\": 1}\n{\"point_id\": \"x\"}\n"), ".jsonl log"));
  try {
    load_results_file(dir.file("missing.json"));
    ADD_FAILURE() << "a missing file was accepted";
  } catch (const ResultsFileError& e) {
    EXPECT_TRUE(contains(e.what(), "missing.json: the file does not exist")) << e.what();
  }
}

TEST(Summary, PointIdIsRebuiltWhenAbsent) {
  ordered_json r = {{"family", "f"}, {"variant", "global"}, {"params", {{"n", 7}, {"block_size", 32}}}};
  EXPECT_EQ(record_point_id(r), "f/global/n=7/block_size=32");
  r["point_id"] = "given";
  EXPECT_EQ(record_point_id(r), "given");
}

TEST(Summary, ReportCommandExitsTwoForABadFileAndWritesNothing) {
  TempDir dir;
  std::string good = dir.write("good.json", make_doc("NVIDIA H100", {make_record("global", 256, 0.1)}).dump());
  std::string bad = dir.write("bad.json", "{\"schema_version\": 7, \"results\": [{}]}");
  std::string out = dir.file("table.md");
  CliResult r = run_cli({"report", good, bad, "--out", out});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "bad.json: schema_version is 7")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(run_cli({"report", dir.file("nope.json")}).code, 2);
  EXPECT_EQ(run_cli({"report", good, "--format", "xml"}).code, 2);
}

TEST(Summary, SingleFileMarkdownTable) {
  auto doc = make_doc("NVIDIA H100 80GB HBM3",
                      {make_record("global", 256, 0.06678, 0.012), make_record("shared", 256, 1.5),
                       make_record("shared", 2048, 0, 0, 0, "skipped")});
  std::vector<ResultsFile> files = {results_from_json(doc, "run.json")};
  assign_labels(files);
  std::string md = report_markdown(files);
  EXPECT_TRUE(contains(md, "**f_sweep** on NVIDIA H100 80GB HBM3")) << md;
  EXPECT_TRUE(contains(md, "| variant | params | median | GB/s | % copy | GFLOP/s | CGMA (FLOP/B) | occupancy | speedup |")) << md;
  EXPECT_TRUE(contains(md, "|---|---|---:|---:|---:|---:|---:|---:|---:|")) << md;
  // 8192 B / 66.78 us = 0.1227 GB/s; 1024 FLOP / 66.78 us = 0.01533 GFLOP/s.
  EXPECT_TRUE(contains(md, "| global | n=1024 block_size=256 | 66.78 µs ±1.2% | 0.123 | 12.5 | 0.0153 | 0.125 | 0.50 (registers) | 2.00× |"))
      << md;
  EXPECT_TRUE(contains(md, "| shared | n=1024 block_size=256 | 1.500 ms ±1.0% |")) << md;
  EXPECT_TRUE(contains(md, "| shared | n=1024 block_size=2048 | skipped | – | – | – | 0.125 | 0.50 (registers) | – |")) << md;
  EXPECT_TRUE(contains(md, "Not timed:")) << md;
  EXPECT_TRUE(contains(md, "- `f/shared/n=1024/block_size=2048`: skipped - a reason \\| with a pipe")) << md;
  EXPECT_TRUE(contains(md, "baseline (`global`)")) << md;
  EXPECT_EQ(count_lines_starting(md, "| "), 4u);  // header + 3 rows
}

TEST(Summary, MergedTableKeysRowsByPointIdWithOneColumnGroupPerDevice) {
  auto h100 = make_doc("NVIDIA H100 80GB HBM3", {make_record("global", 128, 0.050), make_record("global", 256, 0.040)});
  auto a100 = make_doc("NVIDIA A100-SXM4-80GB", {make_record("global", 256, 0.080), make_record("global", 512, 0.090)});
  std::vector<ResultsFile> files = {results_from_json(h100, "h100.json"), results_from_json(a100, "a100.json")};
  assign_labels(files);
  EXPECT_EQ(files[0].label, "H100 80GB HBM3");
  EXPECT_EQ(files[1].label, "A100-SXM4-80GB");
  std::string md = report_markdown(files);
  EXPECT_TRUE(contains(md, "| variant | params | CGMA (FLOP/B) | H100 80GB HBM3 median | H100 80GB HBM3 GB/s | "
                           "H100 80GB HBM3 occupancy | H100 80GB HBM3 speedup | A100-SXM4-80GB median |"))
      << md;
  EXPECT_TRUE(contains(md, "- **A100-SXM4-80GB**: `a100.json`")) << md;
  // Union of the point ids in first-seen order: 128 (H100 only), 256 (both), 512 (A100 only).
  auto row128 = md.find("| global | n=1024 block_size=128 | 0.125 | 50.00 µs ±1.0% |");
  auto row256 = md.find("| global | n=1024 block_size=256 | 0.125 | 40.00 µs ±1.0% | 0.205 | 0.50 (registers) | 2.00× | 80.00 µs ±1.0% |");
  auto row512 = md.find("| global | n=1024 block_size=512 | 0.125 | not run | – | – | – | 90.00 µs ±1.0% |");
  ASSERT_NE(row128, std::string::npos) << md;
  ASSERT_NE(row256, std::string::npos) << md;
  ASSERT_NE(row512, std::string::npos) << md;
  EXPECT_LT(row128, row256);
  EXPECT_LT(row256, row512);
  EXPECT_TRUE(contains(md.substr(row128, md.find('\n', row128) - row128), "| not run | – | – | – |")) << md;
  EXPECT_EQ(count_lines_starting(md, "| "), 4u);
}

TEST(Summary, LabelsOfTheSameDeviceAreMadeUnique) {
  auto doc = make_doc("NVIDIA H100", {make_record("global", 256, 0.1)});
  std::vector<ResultsFile> files = {results_from_json(doc, "a/run1.json"), results_from_json(doc, "b/run2.json"),
                                    results_from_json(doc, "c/run2.json")};
  assign_labels(files);
  EXPECT_EQ(files[0].label, "H100 (run1.json)");
  EXPECT_NE(files[1].label, files[2].label);
  EXPECT_TRUE(contains(files[1].label, "H100 (run2.json)"));
}

TEST(Summary, CsvHasEveryRecordOfEveryFileWithItsSource) {
  auto a = make_doc("GPU A", {make_record("global", 128, 0.05), make_record("global", 256, 0.04)});
  auto b = make_doc("GPU B", {make_record("global", 256, 0.08)});
  std::vector<ResultsFile> files = {results_from_json(a, "a.json"), results_from_json(b, "b.json")};
  assign_labels(files);
  auto rows = parse_csv(report_csv(files));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0][0], "source");
  EXPECT_EQ(rows[0][1], "device_name");
  auto column = [&](const std::string& name) {
    auto it = std::find(rows[0].begin(), rows[0].end(), name);
    EXPECT_NE(it, rows[0].end()) << name;
    return std::size_t(it - rows[0].begin());
  };
  EXPECT_EQ(rows[3][0], "b.json");
  EXPECT_EQ(rows[3][1], "GPU B");
  EXPECT_EQ(std::stod(rows[3][column("timing_median_ms")]), 0.08);
  EXPECT_EQ(rows[1][column("params_block_size")], "128");
}

TEST(Summary, JsonMergesByPointIdWithNullWhereAFileLacksThePoint) {
  auto a = make_doc("GPU A", {make_record("global", 128, 0.05), make_record("global", 256, 0.04)});
  auto b = make_doc("GPU B", {make_record("global", 256, 0.08)});
  std::vector<ResultsFile> files = {results_from_json(a, "a.json"), results_from_json(b, "b.json")};
  assign_labels(files);
  ordered_json j = report_json(files);
  ASSERT_EQ(j["sources"].size(), 2u);
  EXPECT_EQ(j["sources"][1]["label"], "GPU B");
  ASSERT_EQ(j["points"].size(), 2u);
  EXPECT_EQ(j["points"][0]["point_id"], "f/global/n=1024/block_size=128");
  EXPECT_TRUE(j["points"][0]["results"][1].is_null());
  EXPECT_EQ(j["points"][1]["results"][1]["timing"]["median_ms"], 0.08);
}

TEST(Summary, ReportCommandWritesEachFormat) {
  TempDir dir;
  std::string a = dir.write("a.json", make_doc("GPU A", {make_record("global", 256, 0.04)}).dump());
  std::string b = dir.write("b.json", make_doc("GPU B", {make_record("global", 256, 0.08)}).dump());
  CliResult md = run_cli({"report", a, b});
  EXPECT_EQ(md.code, 0) << md.err;
  EXPECT_TRUE(contains(md.out, "GPU A median")) << md.out;
  EXPECT_TRUE(contains(md.out, "GPU B median")) << md.out;
  std::string out = dir.file("report.csv");
  CliResult csv = run_cli({"report", a, b, "--format", "csv", "--out", out});
  EXPECT_EQ(csv.code, 0) << csv.err;
  EXPECT_TRUE(csv.out.empty());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(parse_csv(text.str()).size(), 3u);
  CliResult json = run_cli({"report", a, "--format", "json"});
  EXPECT_EQ(json.code, 0) << json.err;
  EXPECT_EQ(ordered_json::parse(json.out)["points"].size(), 1u);
}

TEST(Summary, DurationsReadWithUnits) {
  EXPECT_EQ(format_duration_ms(0.06678), "66.78 µs");
  EXPECT_EQ(format_duration_ms(0.0005), "500.0 ns");
  EXPECT_EQ(format_duration_ms(1.5), "1.500 ms");
  EXPECT_EQ(format_duration_ms(310.0), "310.0 ms");
  EXPECT_EQ(format_duration_ms(2500.0), "2.500 s");
}

TEST(Summary, ASampleOrASearchSaysSoBesideTheSweepsName) {
  auto doc = make_doc("NVIDIA H100 80GB HBM3", {make_record("global", 256, 0.06678, 0.012)});
  doc["run"]["strategy"] = {{"name", "model"}, {"max_points", 132}, {"time_limit_s", nullptr}, {"seed", 3}, {"objective", "timing.median_ms"}};
  std::vector<ResultsFile> files = {results_from_json(doc, "run.json")};
  assign_labels(files);
  std::string md = report_markdown(files);
  EXPECT_TRUE(contains(md, "strategy model (at most 132 points, seed 3)")) << md;
}
