// occbench compare: matching points by point_id, the noise-aware verdict on hand-made records,
// the summary counts, and the exit codes (0, 1 with --fail-on-regression, 2 for bad input).
#include "harness/records/compare.hpp"
#include "results_test_support.hpp"

#include <gtest/gtest.h>

using namespace occbench;
using namespace occbench::testing_support;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Base 100 us with 1% noise against `new_ms` with `new_noise`: the combined noise is
// sqrt(0.01² + new_noise²), 1.414% when both are 1%.
PointComparison judge(double new_ms, double new_noise = 0.01, CompareOptions options = {}, int new_samples = 20) {
  return compare_point("p", make_record("global", 256, 0.100, 0.01), make_record("global", 256, new_ms, new_noise, new_samples),
                       options);
}

ResultsFile file_of(const std::string& path, const std::vector<ordered_json>& results, const std::string& device = "GPU") {
  return results_from_json(make_doc(device, results), path);
}

}  // namespace

TEST(Compare, RatioAndThresholdFollowTheDocumentedRule) {
  PointComparison c = judge(0.101);
  EXPECT_DOUBLE_EQ(c.ratio, 1.01);
  EXPECT_NEAR(c.threshold, std::sqrt(2.0) * 0.01, 1e-12);
  EXPECT_EQ(c.verdict, Verdict::unchanged);  // +1.0% < 1.414%

  EXPECT_EQ(judge(0.1015).verdict, Verdict::slower);   // +1.5%
  EXPECT_EQ(judge(0.0985).verdict, Verdict::faster);   // -1.5%
  EXPECT_EQ(judge(0.0987).verdict, Verdict::unchanged);  // -1.3%

  // A noisy NEW run widens the threshold: sqrt(0.01² + 0.05²) = 5.1%.
  EXPECT_EQ(judge(0.104, 0.05).verdict, Verdict::unchanged);
  EXPECT_EQ(judge(0.106, 0.05).verdict, Verdict::slower);

  // The factor scales it: 2 x 1.414% = 2.83%.
  CompareOptions wide;
  wide.noise_factor = 2;
  EXPECT_EQ(judge(0.102, 0.01, wide).verdict, Verdict::unchanged);
  EXPECT_EQ(judge(0.103, 0.01, wide).verdict, Verdict::slower);
}

TEST(Compare, NoNoiseEstimateGivesUnknown) {
  EXPECT_EQ(judge(0.2, 0.0, {}, 1).verdict, Verdict::unknown);  // one sample: no spread to judge against
  EXPECT_EQ(judge(0.2, 0.0, {}, 2).verdict, Verdict::slower);
}

TEST(Compare, TimerResolutionIsAFloor) {
  // 2 us kernels with no measured spread: a change under 0.5 us (25%) does not count.
  auto base = make_record("global", 256, 0.002, 0.0);
  EXPECT_EQ(compare_point("p", base, make_record("global", 256, 0.0024, 0.0), {}).verdict, Verdict::unchanged);
  EXPECT_EQ(compare_point("p", base, make_record("global", 256, 0.0026, 0.0), {}).verdict, Verdict::slower);
  EXPECT_EQ(compare_point("p", base, make_record("global", 256, 0.0014, 0.0), {}).verdict, Verdict::faster);
}

TEST(Compare, MatchesPointsByIdAndCountsVerdicts) {
  auto base = file_of("base.json", {make_record("global", 64, 0.1), make_record("global", 128, 0.1),
                                    make_record("global", 256, 0.1), make_record("global", 512, 0.1),
                                    make_record("shared", 256, 0.1), make_record("shared", 512, 0.1, 0.01, 20, "skipped")});
  auto next = file_of("new.json", {make_record("global", 1024, 0.1), make_record("global", 512, 0.1),
                                   make_record("global", 256, 0.090), make_record("global", 128, 0.110),
                                   make_record("shared", 256, 0.1, 0.01, 20, "failed"), make_record("shared", 512, 0.1)});
  Comparison c = compare_runs(base, next, {});
  ASSERT_EQ(c.points.size(), 3u);
  EXPECT_EQ(c.points[0].point_id, "f/global/n=1024/block_size=128");  // BASE's order
  EXPECT_EQ(c.points[0].verdict, Verdict::slower);
  EXPECT_EQ(c.points[1].verdict, Verdict::faster);
  EXPECT_EQ(c.points[2].verdict, Verdict::unchanged);
  EXPECT_EQ(c.faster, 1u);
  EXPECT_EQ(c.slower, 1u);
  EXPECT_EQ(c.unchanged, 1u);
  ASSERT_EQ(c.only_in_base.size(), 1u);
  EXPECT_EQ(c.only_in_base[0], "f/global/n=1024/block_size=64");
  ASSERT_EQ(c.only_in_new.size(), 1u);
  EXPECT_EQ(c.only_in_new[0], "f/global/n=1024/block_size=1024");
  ASSERT_EQ(c.not_compared.size(), 2u);
  EXPECT_EQ(c.not_compared[0].new_status, "failed");
  EXPECT_EQ(c.not_compared[1].base_status, "skipped");
  EXPECT_EQ(c.regressions, 0u);  // no gate asked for
  EXPECT_EQ(comparison_exit_code(c, {}), 0);

  std::string text = format_comparison(c, base, next, {});
  EXPECT_TRUE(contains(text, "| f/global/n=1024/block_size=128 | 100.0 µs ±1.0% | 110.0 µs ±1.0% | 1.100 | +10.0% | ±1.4% | slower |"))
      << text;
  EXPECT_TRUE(contains(text, "Summary: 3 compared: 1 faster, 1 slower, 1 unchanged, 0 unknown; 1 only in BASE, 1 only in NEW, 2 not compared."))
      << text;
}

TEST(Compare, GateCountsSlowdownsBeyondNoiseAndPct) {
  auto base = file_of("base.json", {make_record("global", 128, 0.1), make_record("global", 256, 0.1)});
  auto next = file_of("new.json", {make_record("global", 128, 0.105), make_record("global", 256, 0.1)});
  CompareOptions gate;
  gate.fail_on_regression_pct = 3;
  Comparison c = compare_runs(base, next, gate);
  EXPECT_EQ(c.regressions, 1u);
  EXPECT_TRUE(c.points[0].regression);
  EXPECT_EQ(comparison_exit_code(c, gate), 1);
  EXPECT_TRUE(contains(format_comparison(c, base, next, gate), "FAIL: 1 point(s) regressed"));

  gate.fail_on_regression_pct = 10;  // slower beyond noise, but by less than 10%
  c = compare_runs(base, next, gate);
  EXPECT_EQ(c.points[0].verdict, Verdict::slower);
  EXPECT_EQ(comparison_exit_code(c, gate), 0);

  // 6% slower, more than a PCT of 1, but inside the noise (5% in each run: 7.1%): no regression.
  auto noisy_base = file_of("base.json", {make_record("global", 128, 0.1, 0.05)});
  auto noisy_new = file_of("new.json", {make_record("global", 128, 0.106, 0.05)});
  gate.fail_on_regression_pct = 1;
  c = compare_runs(noisy_base, noisy_new, gate);
  EXPECT_EQ(c.points[0].verdict, Verdict::unchanged);
  EXPECT_EQ(comparison_exit_code(c, gate), 0);
}

TEST(Compare, AWrongResultInNewFailsTheGate) {
  auto base = file_of("base.json", {make_record("global", 128, 0.1)});
  auto next = file_of("new.json", {make_record("global", 128, 0.1, 0.01, 20, "failed")});
  CompareOptions gate;
  gate.fail_on_regression_pct = 5;
  Comparison c = compare_runs(base, next, gate);
  EXPECT_EQ(c.regressions, 1u);
  EXPECT_EQ(comparison_exit_code(c, gate), 1);
  auto skipped = file_of("new.json", {make_record("global", 128, 0.1, 0.01, 20, "skipped")});
  EXPECT_EQ(comparison_exit_code(compare_runs(base, skipped, gate), gate), 0);
}

TEST(Compare, NothingInCommonIsBadInput) {
  auto base = file_of("base.json", {make_record("global", 128, 0.1)});
  auto next = file_of("new.json", {make_record("global", 256, 0.1)});
  EXPECT_THROW(compare_runs(base, next, {}), ResultsFileError);
}

TEST(Compare, DifferentDevicesAreNoted) {
  auto base = file_of("base.json", {make_record("global", 128, 0.1)}, "GPU A");
  auto next = file_of("new.json", {make_record("global", 128, 0.1)}, "GPU B");
  EXPECT_TRUE(contains(format_comparison(compare_runs(base, next, {}), base, next, {}), "different devices (GPU A vs GPU B)"));
}

TEST(Compare, CommandExitCodes) {
  TempDir dir;
  std::string base = dir.write("base.json", make_doc("GPU", {make_record("global", 128, 0.1), make_record("global", 256, 0.1)}).dump());
  std::string same = dir.write("same.json", make_doc("GPU", {make_record("global", 128, 0.1005), make_record("global", 256, 0.0995)}).dump());
  std::string slow = dir.write("slow.json", make_doc("GPU", {make_record("global", 128, 0.120), make_record("global", 256, 0.1)}).dump());

  CliResult r = run_cli({"compare", base, same, "--fail-on-regression", "2"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "2 unchanged")) << r.out;
  EXPECT_TRUE(contains(r.out, "PASS")) << r.out;

  r = run_cli({"compare", base, slow});
  EXPECT_EQ(r.code, 0) << r.err;  // slower, but no gate asked for
  EXPECT_TRUE(contains(r.out, "1 slower")) << r.out;

  r = run_cli({"compare", base, slow, "--fail-on-regression", "5"});
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  r = run_cli({"compare", base, slow, "--fail-on-regression", "25"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  r = run_cli({"compare", slow, base, "--fail-on-regression", "0"});  // faster is never a regression
  EXPECT_EQ(r.code, 0) << r.out << r.err;

  r = run_cli({"compare", base, dir.file("missing.json")});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "missing.json: the file does not exist")) << r.err;
  std::string v0 = dir.write("v0.json", "{\"schema_version\": 0, \"results\": [{\"point_id\": \"x\"}]}");
  r = run_cli({"compare", v0, base});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "v0.json: schema_version is 0, expected 1")) << r.err;
  std::string other = dir.write("other.json", make_doc("GPU", {make_record("shared", 128, 0.1)}).dump());
  EXPECT_EQ(run_cli({"compare", base, other}).code, 2);
  EXPECT_EQ(run_cli({"compare", base}).code, 2);  // NEW missing from the command line
  EXPECT_EQ(run_cli({"compare", base, same, "--fail-on-regression", "-1"}).code, 2);
}

TEST(Compare, AMinimumRelativeChangeBeforeAnyVerdict) {
  // Two very quiet runs at 929 us: a 0.1% difference is not a change (default 1%), a 2% one is.
  auto base = make_record("global", 256, 0.929, 0.0001);
  EXPECT_EQ(compare_point("p", base, make_record("global", 256, 0.92993, 0.0001), {}).verdict, Verdict::unchanged);
  EXPECT_EQ(compare_point("p", base, make_record("global", 256, 0.9476, 0.0001), {}).verdict, Verdict::slower);
  EXPECT_EQ(compare_point("p", base, make_record("global", 256, 0.9104, 0.0001), {}).verdict, Verdict::faster);
  EXPECT_NEAR(compare_point("p", base, make_record("global", 256, 0.93, 0.0001), {}).threshold, 0.01, 1e-12);
  // --min-change 0: only the noise decides, as before.
  CompareOptions exact;
  exact.min_change = 0;
  EXPECT_EQ(compare_point("p", base, make_record("global", 256, 0.92993, 0.0001), exact).verdict, Verdict::slower);
  // --min-change 5: a 2% change is not enough.
  CompareOptions coarse;
  coarse.min_change = 0.05;
  EXPECT_EQ(compare_point("p", base, make_record("global", 256, 0.9476, 0.0001), coarse).verdict, Verdict::unchanged);
}
