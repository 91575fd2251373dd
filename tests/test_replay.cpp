// Replay (harness/search/replay): strategies replayed against spaces measured in full on the H100
// (committed records), per budget and under the compile-cost model of a live search, and the
// replay command. No GPU needed.
#include "harness/cli/cli.hpp"
#include "data_dir.hpp"
#include "harness/core/json.hpp"
#include "harness/records/merge.hpp"
#include "harness/search/replay.hpp"
#include "harness/search/search_walkers.hpp"
#include "results_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

using namespace occbench;
using json = nlohmann::ordered_json;

namespace {

const std::string kSource = OCCBENCH_SOURCE_DIR;
const std::string kStencilRecord = kSource + "/results/reference/h100/stencil.jsonl";
// The two spaces measured in full on the H100 (examples/search).
const std::string kConvolutionRecord = kSource + "/results/reference/h100/search/convolution/convolution_full.jsonl";
const std::string kSyrkRecord = kSource + "/results/reference/h100/search/syrk/syrk_full.jsonl";
using testing_support::run_cli_out;

// Issue 27, item 5, on the spaces measured in full on the H100: the best strategy (local search)
// within 95% of the optimum with 5% of the points in the median, and better than random sampling
// at every budget from 1% to 20% (15 seeds here; 50 in results/reference/h100/search.md).
void expect_local_search_beats_random(const std::string& record, std::size_t points) {
  ShardOutput input = read_shard_output(record);
  ReplayOptions options;
  options.strategies = {"random", "local"};
  options.seeds = 15;
  std::vector<ReplaySpace> spaces = replay(input, options);
  ASSERT_EQ(spaces.size(), 1u);
  EXPECT_EQ(spaces[0].points, points);
  ASSERT_EQ(spaces[0].curves.size(), 2u);
  const ReplayCurve& random = spaces[0].curves[0];
  const ReplayCurve& local = spaces[0].curves[1];
  ASSERT_EQ(local.strategy, "local");
  for (std::size_t budget : spaces[0].budgets) {
    double found = local.steps[budget - 1].median;
    EXPECT_GT(found, random.steps[budget - 1].median) << budget << " points";
    if (budget >= spaces[0].points / 20) EXPECT_GE(found, 0.95) << budget << " points";
  }
}

}  // namespace

TEST(Replay, StrategiesReplayARecordedSpaceAndEachFindsItsOptimumAtTheFullBudget) {
  ShardOutput input = read_shard_output(kStencilRecord);
  ReplayOptions options;
  options.seeds = 8;
  options.max_points = 180;
  std::vector<ReplaySpace> spaces = replay(input, options);
  ASSERT_EQ(spaces.size(), 1u);
  EXPECT_EQ(spaces[0].points, 180u);
  EXPECT_EQ(spaces[0].with_value, 180u);
  double optimum = HUGE_VAL;
  for (const auto& r : input.results) optimum = std::min(optimum, r["timing"]["median_ms"].get<double>());
  EXPECT_DOUBLE_EQ(spaces[0].optimum, optimum);
  ASSERT_EQ(spaces[0].curves.size(), 4u);
  for (const auto& curve : spaces[0].curves) {
    ASSERT_EQ(curve.steps.size(), 180u) << curve.strategy;
    for (std::size_t k = 1; k < curve.steps.size(); ++k)
      EXPECT_GE(curve.steps[k].worst, curve.steps[k - 1].worst) << curve.strategy << ": the best so far never gets worse";
    EXPECT_DOUBLE_EQ(curve.steps.back().worst, 1.0) << curve.strategy << " found the optimum after every point";
    EXPECT_NEAR(curve.steps.back().time_share, 1.0, 1e-9) << curve.strategy << ": every point measured, all of the time";
    EXPECT_GT(curve.steps[0].time_share, 0.0);
    EXPECT_LT(curve.steps[0].time_share, 0.1);
    EXPECT_GT(curve.steps[0].median, 0.0);
    EXPECT_LT(curve.steps[0].median, 1.0);
  }
}

// A 120-point search by `strategy` under the compile-cost model (0.8 s a point, 16 cores), 9 seeds.
ReplayOptions compile_cost_model(const std::string& strategy) {
  ReplayOptions options;
  options.strategies = {strategy};
  options.seeds = 9;
  options.max_points = 120;
  options.compile_s = 0.8;
  options.cores = 16;
  return options;
}

// The search's 120th point, one point at a time (1) and in batches of 16 (16).
std::map<std::size_t, ReplayStep> at_120_by_batch(const ShardOutput& input, ReplayOptions options) {
  std::map<std::size_t, ReplayStep> at_120;
  for (std::size_t batch : {1, 16}) {
    options.batch = batch;
    at_120[batch] = replay(input, options).at(0).curves.back().steps.at(119);
  }
  return at_120;
}

// Under the compile-cost model (0.8 s a point, 16 cores: 15 workers compiling what the search
// offers them ahead, live_model), a 120-point local search of the measured convolution space in
// batches of 16 (three walkers) takes under half the wall of one point at a time, which waits for
// each compile it could not guess ahead; and batches find at least 95% of the optimum there too.
TEST(Replay, UnderTheCompileCostModelBatchesTakeAFractionOfTheWall) {
  ShardOutput input = read_shard_output(kConvolutionRecord);
  ReplayOptions options = compile_cost_model("local");
  std::map<std::size_t, ReplayStep> at_120 = at_120_by_batch(input, options);
  EXPECT_GE(at_120[16].wall_s, 120 * 0.8 / 15) << "the compilations spread over the workers at best";
  EXPECT_LT(at_120[16].wall_s, 0.5 * at_120[1].wall_s);
  EXPECT_GE(at_120[16].median, 0.95);
  options.batch = 16;
  options.compile_s = 0;
  EXPECT_EQ(format_replay(replay(input, options), options).find("wall of a live search"), std::string::npos) << "no model asked";
}

// `run --strategy random` draws its sample before the run and compiles it ahead from the start, as
// a list: modeled so, its wall does not depend on the batch size, and it is at most the compile
// time spread over the workers, one compile more, and the sample's measuring time (no overlap at
// all). Modeled as batches that wait for results, the same sample took 13 s in batches of 16 and
// 83 s one at a time, against 10-12 s live.
TEST(Replay, ARandomSampleCompilesAheadAsRunMeasuresIt) {
  ShardOutput input = read_shard_output(kConvolutionRecord);
  std::map<std::size_t, ReplayStep> at_120 = at_120_by_batch(input, compile_cost_model("random"));
  double space_measuring_s = 0;
  for (const auto& record : input.results) space_measuring_s += number_at(record, "time_use", "point_s", 0.0);
  double sample_measuring_s = at_120[16].time_share * space_measuring_s;
  EXPECT_EQ(at_120[1].wall_s, at_120[16].wall_s);
  EXPECT_EQ(at_120[1].median, at_120[16].median);
  EXPECT_GE(at_120[16].wall_s, 120 * 0.8 / 15);
  EXPECT_LE(at_120[16].wall_s, 120 * 0.8 / 15 + 0.8 + sample_measuring_s) << sample_measuring_s;
}

// Each budget of a replay in batches is a search of that budget: a local search of 5% of the
// convolution space (175 points, several walkers) replayed beside 1, 2 and 10% finds what the same
// search replayed alone finds, seed by seed. (A longer search's first 175 points are not that
// search: the GPU measures walker 0's compiled points first, so they were mostly one walker's.)
TEST(Replay, EachBudgetInBatchesIsASearchOfThatBudget) {
  ShardOutput input = read_shard_output(kConvolutionRecord);
  ReplayOptions options;
  options.strategies = {"local"};
  options.seeds = 8;
  options.batch = 16;
  options.budget_percents = {1, 2, 5, 10};
  ReplayStep together = replay(input, options).at(0).curves.back().steps.at(174);
  options.budget_percents = {5};
  ReplayStep alone = replay(input, options).at(0).curves.back().steps.at(174);
  ASSERT_GT(walkers_for("local", 175), 1u);
  EXPECT_EQ(together.mean, alone.mean);
  EXPECT_EQ(together.worst, alone.worst);
}

// The model asks a batch's later candidates believing the earlier ones cost what it predicts
// (ModelSearch::fit_and_rank), so a batch of 16 spreads out instead of crowding one guess: on the
// measured convolution space it finds as much per point as one at a time, in the mean of 30
// seeds at 2% and 5% of the space: 0.910 and 0.975 against 0.903 and 0.945 (without the belief,
// 0.888 and 0.947: the test fails).
TEST(Replay, TheModelInBatchesFindsAsMuchPerPointAsOneAtATime) {
  ShardOutput input = read_shard_output(kConvolutionRecord);
  ReplayOptions options;
  options.strategies = {"model"};
  options.seeds = 30;
  options.budget_percents = {2, 5};
  std::map<std::size_t, std::vector<double>> means;
  for (std::size_t batch : {1, 16}) {
    options.batch = batch;
    ReplaySpace space = replay(input, options).at(0);
    for (std::size_t budget : space.budgets) means[batch].push_back(space.curves.back().steps.at(budget - 1).mean);
  }
  ASSERT_EQ(means[16].size(), 2u);
  for (std::size_t i = 0; i < means[16].size(); ++i) EXPECT_GE(means[16][i], means[1][i] - 0.005) << "budget " << i;
}

TEST(Replay, OnTheMeasuredSyrkSpaceLocalSearchReaches95PercentWithin5PercentAndBeatsRandom) {
  expect_local_search_beats_random(kSyrkRecord, 2641);
}

TEST(Replay, OnTheMeasuredConvolutionSpaceLocalSearchReaches95PercentWithin5PercentAndBeatsRandom) {
  expect_local_search_beats_random(kConvolutionRecord, 3489);
}

TEST(Replay, TheCommandPrintsATablePerBudgetWritesTheCurvesAndRefusesBadInput) {
  testing_support::TempDir dir;
  std::string out_path = dir.file("replay.json");
  int code = -1;
  std::string out = run_cli_out({"replay", kStencilRecord, "--strategy", "local,model_plan", "--seeds", "6", "--out", out_path}, code);
  EXPECT_EQ(code, kExitOk) << out;
  EXPECT_NE(out.find("| budget | points | random | local | model_plan |"), std::string::npos) << out;
  EXPECT_NE(out.find("| 5.0% | 9 |"), std::string::npos) << out;
  json curves = json::parse(std::ifstream(out_path));
  EXPECT_EQ(curves["seeds"], 6);
  EXPECT_EQ(curves["spaces"][0]["strategies"].size(), 3u);
  EXPECT_EQ(curves["spaces"][0]["strategies"][0]["steps"].size(), 36u) << "every budget up to 20% of 180";
  out = run_cli_out({"replay", kStencilRecord, "--strategy", "annealing"}, code);
  EXPECT_EQ(code, kExitBadInput) << out;
  out = run_cli_out({"replay", kStencilRecord, "--objective", "timing.no_such_field"}, code);
  EXPECT_EQ(code, kExitBadInput) << out;
  EXPECT_NE(out.find("'no_such_field' is no field of timing"), std::string::npos) << out;  // refused before any search
  out = run_cli_out({"replay", kStencilRecord, "--budgets", "5,two"}, code);
  EXPECT_EQ(code, kExitBadInput) << out;
  out = run_cli_out({"replay", kStencilRecord, "--objective", "metrics.achieved_bandwidth_gbps:max", "--seeds", "3", "--max-points", "20"}, code);
  EXPECT_EQ(code, kExitOk) << out;
  EXPECT_NE(out.find("metrics.achieved_bandwidth_gbps:max"), std::string::npos) << out;
}

namespace {

// Each strategy's fractions of the optimum, seed by seed, at each budget (replay's seed_fractions).
std::map<std::string, std::vector<std::vector<double>>> per_seed(const ShardOutput& input, const ReplayOptions& options) {
  std::map<std::string, std::vector<std::vector<double>>> out;
  ReplaySpace space = replay(input, options).at(0);
  for (const auto& curve : space.curves)
    for (std::size_t b : space.budgets) out[curve.strategy].push_back(curve.steps.at(b - 1).seed_fractions);
  return out;
}

ReplayOptions learning_strategies(std::size_t batch, double compile_s) {
  ReplayOptions options;
  options.strategies = {"local", "genetic", "model"};
  options.seeds = 4;
  options.batch = batch;
  options.compile_s = compile_s;
  options.cores = 16;
  return options;
}

}  // namespace

// The default (the width rule) where measuring is the slower part, a kernel compiling in a tenth
// of a point's measuring time: one point at a time but for what the strategy asks whatever the
// results (a random start, a genetic generation), so each seed finds at every budget what one
// point at a time finds, on both committed spaces.
TEST(Replay, WhereMeasuringIsTheSlowerPartTheDefaultChoosesAsOneAtATime) {
  for (const std::string& record : {kConvolutionRecord, kSyrkRecord}) {
    ShardOutput input = read_shard_output(record);
    EXPECT_EQ(per_seed(input, learning_strategies(0, 0.005)), per_seed(input, learning_strategies(1, 0.005))) << record;
    EXPECT_EQ(per_seed(input, learning_strategies(0, 0)), per_seed(input, learning_strategies(1, 0))) << record << ": no compile model";
  }
}

// Where compiling is the bottleneck (0.8 s a kernel against a point measured in 0.06-0.2 s), the
// default is about as fast as batches of 16 throughout: its modeled wall within 10% of theirs from
// 10% of the space (0-3% over 50 seeds, 7% over these 10), within 20% below it (at 5%, 133-175
// points, its walkers start only once walker 0 has measured its random start: 7-14% slower over 50
// seeds), and under half of one point at a time's from 5% of the space.
TEST(Replay, WhereCompilingIsTheBottleneckTheDefaultIsAsFastAsBatches) {
  for (const std::string& record : {kConvolutionRecord, kSyrkRecord}) {
    ShardOutput input = read_shard_output(record);
    auto walls = [&](std::size_t batch) {
      ReplayOptions options = learning_strategies(batch, 0.8);
      options.strategies = {"local"};
      options.seeds = 10;
      ReplaySpace space = replay(input, options).at(0);
      std::vector<double> out;
      for (std::size_t b : space.budgets) out.push_back(space.curves.back().steps.at(b - 1).wall_s);
      return out;
    };
    std::vector<double> rule = walls(0), sixteen = walls(16), one = walls(1);
    for (std::size_t k = 0; k < rule.size(); ++k) {
      EXPECT_LE(rule[k], (k >= 3 ? 1.1 : 1.2) * sixteen[k]) << record << " budget " << k;
      if (k >= 2) EXPECT_LT(rule[k], 0.5 * one[k]) << record << " budget " << k;
    }
  }
}
