// Search (harness/search): the space of a sweep's points, the strategies as ask and tell, the
// search as the run loop's point source (budget, time limit, sizes, resume), the config's
// "search" and the command line (replay: test_replay.cpp). No GPU needed.
#include "harness/cli/cli.hpp"
#include "data_dir.hpp"
#include "harness/records/merge.hpp"
#include "harness/run/compile_queue.hpp"
#include "harness/search/search_source.hpp"
#include "harness/search/searcher.hpp"
#include "harness/sweep/claims.hpp"
#include "harness/sweep/config.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"
#include "results_test_support.hpp"
#include "search_test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <iostream>

#include <unistd.h>

#include <filesystem>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

using namespace occbench;
using json = nlohmann::ordered_json;

namespace {

const std::string kSource = OCCBENCH_SOURCE_DIR;
const char* kStrategies[] = {"random", "local", "genetic", "model", "bayes"};

using testing_support::median_fractions;
using testing_support::search_order;

SweepSpec spec_of_text(const std::string& text) { return parse_sweep_text(text, "search_test.json", builtin_registry()); }

// adjacent_difference at two sizes, 4 block sizes x 3 variants each: two spaces of 12 points.
const char* kTwoSizes = R"({"name": "two_sizes", "family": "adjacent_difference", "variants": ["global", "shared_static", "vectorized"],
  "sizes": {"n": [1048576, 4194304]}, "axes": {"block_size": [128, 256, 512, 1024]}})";

// A record as the run loop tells it: ok with a median that is lowest at block_size 256 of vectorized.
json fake_record(const Point& point, double point_s = 0.5) {
  double median = 1.0 + std::abs(std::log2(double(point.params.get("block_size")) / 256.0)) + (point.variant->name == "vectorized" ? 0 : 0.5);
  return {{"point_id", point.id}, {"status", "ok"}, {"timing", {{"median_ms", median}}}, {"time_use", {{"point_s", point_s}}}};
}

std::vector<std::string> drive_ids(SearchSource& source, std::size_t stop_after = SIZE_MAX) {
  std::vector<std::string> ids;
  while (ids.size() < stop_after) {
    const Point* p = source.next();
    if (!p) break;
    ids.push_back(p->id);
    source.tell(*p, fake_record(*p));
  }
  return ids;
}

using testing_support::run_cli_out;

}  // namespace

TEST(SearchSpace, DimensionsAreOrderedAndAbsentAxesAreAValueOfTheirOwn) {
  SearchSpace space({{{"variant", "b"}, {"tile", 8}},
                     {{"variant", "a"}, {"tile", 2}},
                     {{"variant", "a"}, {"tile", 4}},
                     {{"variant", "host"}}});
  ASSERT_EQ(space.size(), 4u);
  ASSERT_EQ(space.dimensions().size(), 2u);
  EXPECT_EQ(space.dimensions()[0].name, "variant");
  EXPECT_FALSE(space.dimensions()[0].ordered) << "text values are unordered";
  EXPECT_EQ(space.dimensions()[1].values, (std::vector<nlohmann::json>{nullptr, 2, 4, 8}));
  EXPECT_FALSE(space.dimensions()[1].ordered) << "a dimension some candidates lack has no order";
  EXPECT_EQ(space.find(space.indices(2)), std::optional<std::size_t>(2));
  EXPECT_EQ(space.find({0, 0}), std::nullopt);
}

TEST(SearchSpace, ExtraFeaturesAreScaledAndFollowTheCoordinates) {
  SearchSpace space({{{"x", 1}}, {{"x", 2}}, {{"x", 4}}});
  space.add_features({{10, 5}, {20, 5}, {30, 5}});
  EXPECT_EQ(space.features(0), (std::vector<double>{0.0, 0.0, 0.0}));
  EXPECT_EQ(space.features(1), (std::vector<double>{0.5, 0.5, 0.0}));
  EXPECT_EQ(space.features(2), (std::vector<double>{1.0, 1.0, 0.0})) << "a feature that never changes is 0";
}

TEST(SearchSpace, NeighboursChangeOneDimensionToAnyValueAndSkipHolesLeftByRestrictions) {
  std::vector<Coordinates> grid;
  for (int x : {1, 2, 4, 8})
    for (int y : {1, 2, 4, 8})
      if (!(x == 2 && y == 2)) grid.push_back({{"x", x}, {"y", y}});  // a hole at (2, 2)
  SearchSpace space(grid);
  auto id = [&](int x, int y) { return *space.find({int(std::log2(x)), int(std::log2(y))}); };
  std::vector<std::size_t> n = space.neighbours(id(1, 1));
  std::set<std::size_t> expected = {id(1, 2), id(1, 4), id(1, 8), id(2, 1), id(4, 1), id(8, 1)};
  EXPECT_EQ(std::set<std::size_t>(n.begin(), n.end()), expected) << "one axis to any other value";
  std::vector<std::size_t> beside_hole = space.neighbours(id(2, 1));
  expected = {id(1, 1), id(4, 1), id(8, 1), id(2, 4), id(2, 8)};
  EXPECT_EQ(std::set<std::size_t>(beside_hole.begin(), beside_hole.end()), expected) << "(2,2) is a hole";
  EXPECT_EQ(beside_hole.size(), expected.size()) << "each neighbour once";
  EXPECT_TRUE(space.one_step(id(1, 1), id(2, 1))) << "the next value";
  EXPECT_FALSE(space.one_step(id(1, 1), id(4, 1))) << "a farther value of an ordered axis";
  SearchSpace named({{{"kind", "a"}}, {{"kind", "b"}}, {{"kind", "c"}}});
  EXPECT_TRUE(named.one_step(0, 2)) << "any other value of an unordered axis";
  std::mt19937_64 generator(1);
  auto nearest = space.nearest({1, 1}, [](std::size_t) { return true; }, generator);
  ASSERT_TRUE(nearest);
  EXPECT_EQ(std::labs(space.indices(*nearest)[0] - 1) + std::labs(space.indices(*nearest)[1] - 1), 1)
      << "the hole's nearest candidates are one step away";
  // Two changes apart: no neighbours.
  SearchSpace sparse({{{"x", 1}, {"y", 1}}, {{"x", 4}, {"y", 1}}, {{"x", 2}, {"y", 2}}});
  EXPECT_EQ(sparse.neighbours(0), std::vector<std::size_t>{1});
  EXPECT_TRUE(sparse.neighbours(2).empty());
}

TEST(Searcher, EveryStrategyAsksEachCandidateOnceAndThenNone) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  for (const char* name : kStrategies) {
    std::vector<std::size_t> order = search_order(name, space, s.costs, 7);
    EXPECT_EQ(order.size(), space.size()) << name;
    EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), space.size()) << name << " asked a candidate twice";
  }
}

TEST(Searcher, TheSameSeedSearchesTheSameWayAndAnotherSeedDoesNot) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  for (const char* name : kStrategies) {
    EXPECT_EQ(search_order(name, space, s.costs, 3, 120), search_order(name, space, s.costs, 3, 120)) << name;
    EXPECT_NE(search_order(name, space, s.costs, 3, 120), search_order(name, space, s.costs, 4, 120)) << name;
  }
}

// What compiling ahead for a search is given (harness/run/compile_queue.hpp): the strategy's own
// queue (a local search's untried neighbours, a genetic search's children), then unevaluated
// neighbours of the best and of the last asked candidate; after its random start (the first ten
// asks) a local or genetic search's next ask is mostly among them (random: never; it says so in
// the output).
TEST(Searcher, LikelyNextAreUnevaluatedAndHoldMostOfALocalOrGeneticSearchsAsks) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  for (const char* name : kStrategies) {
    std::unique_ptr<Searcher> searcher = make_searcher(name, space, 5);
    std::set<std::size_t> asked;
    std::size_t hits = 0, steps = 40, start = 10;
    std::vector<std::size_t> likely;
    for (std::size_t step = 0; step < steps; ++step) {
      std::optional<std::size_t> c = searcher->ask();
      ASSERT_TRUE(c);
      hits += step >= start && std::find(likely.begin(), likely.end(), *c) != likely.end();
      asked.insert(*c);
      searcher->tell(*c, s.costs[*c]);
      likely = searcher->likely_next(64);
      EXPECT_LE(likely.size(), 64u);
      EXPECT_FALSE(likely.empty()) << name;
      for (std::size_t n : likely) EXPECT_EQ(asked.count(n), 0u) << name << ": an evaluated candidate";
      EXPECT_EQ(std::set<std::size_t>(likely.begin(), likely.end()).size(), likely.size()) << name;
    }
    if (std::string(name) == "local" || std::string(name) == "genetic")
      EXPECT_GE(hits, (steps - start) * 3 / 4) << name << ": asks among the likely next";
    std::cout << name << ": " << hits << " of the " << steps - start << " asks after the start were among the likely next\n";
  }
}

TEST(Searcher, PointsThatFailAreResultsNotCrashes) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  std::vector<std::optional<double>> none(space.size());
  for (const char* name : kStrategies) {
    std::unique_ptr<Searcher> searcher = make_searcher(name, space, 1);
    std::size_t asked = 0;
    while (auto c = searcher->ask()) searcher->tell(*c, std::nullopt), ++asked;
    EXPECT_EQ(asked, space.size()) << name;
    EXPECT_FALSE(searcher->best_cost()) << name;
  }
  EXPECT_THROW(make_searcher("annealing", space, 1), std::invalid_argument);
}

// On a tuning-like space of 2079 points (1941 that run), in the median of 15 seeds: the best
// strategy reaches 95% of the optimum within 5% of the points and every one within 10%; every
// strategy beats random sampling from 5% on, and local search at every budget from 1% to 20%.
TEST(Searcher, StrategiesFindTheOptimumOfATuningSpaceSoonerThanRandomSampling) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  std::vector<double> percents = {1, 2, 5, 10, 20};
  std::vector<std::size_t> budgets = testing_support::budgets_at(percents, s.candidates.size());
  const int seeds = 15;
  std::vector<double> random = median_fractions("random", s, budgets, seeds);
  std::map<std::string, std::vector<double>> found;
  for (const char* name : {"local", "genetic", "model", "bayes"}) found[name] = median_fractions(name, s, budgets, seeds);
  for (std::size_t b = 0; b < budgets.size(); ++b) {
    EXPECT_GT(found["local"][b], random[b]) << percents[b] << "%";
    if (percents[b] >= 5)
      for (const char* name : {"genetic", "model", "bayes"}) EXPECT_GT(found[name][b], random[b]) << name << " " << percents[b] << "%";
  }
  EXPECT_GE(std::max({found["local"][2], found["genetic"][2], found["model"][2]}), 0.95) << "the best strategy at 5%";
  for (const char* name : {"local", "genetic", "model", "bayes"}) EXPECT_GE(found[name][3], 0.95) << name << " at 10%";
}

// Batches: what each strategy proposes before it needs results. A local search's first batch is
// its initial sample and the next its descent's untried neighbours; in batches of 8 every strategy
// still finds the synthetic space's optimum as soon as one at a time does, within 2%, from 5% on.
TEST(Searcher, BatchesAreWhatAStrategyProposesBeforeItNeedsResults) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  std::unique_ptr<Searcher> local = make_searcher("local", space, 4);
  std::vector<std::size_t> sample = local->ask_batch(100);
  EXPECT_EQ(sample.size(), space.dimensions().size()) << "the initial sample, one point per axis";
  for (std::size_t c : sample) local->tell(c, s.costs[c]);
  std::vector<std::size_t> descent = local->ask_batch(100);
  ASSERT_FALSE(descent.empty());
  std::size_t from = sample[0];
  for (std::size_t c : sample)
    if (s.costs[c] && (!s.costs[from] || *s.costs[c] < *s.costs[from])) from = c;
  for (std::size_t c : descent) {
    const auto& around = space.neighbours(from);
    EXPECT_NE(std::find(around.begin(), around.end(), c), around.end()) << "a neighbour of the best of the sample";
  }
  std::set<std::size_t> distinct(descent.begin(), descent.end());
  EXPECT_EQ(distinct.size(), descent.size());
  std::unique_ptr<Searcher> genetic = make_searcher("genetic", space, 4);
  EXPECT_LE(genetic->ask_batch(1000).size(), 20u) << "at most one generation";
  // The model's first batch is its random start, max(8, 2 * axes + 2): it fits on all of it.
  std::unique_ptr<Searcher> model = make_searcher("model", space, 4);
  EXPECT_EQ(model->ask_batch(1000).size(), std::max<std::size_t>(8, 2 * space.dimensions().size() + 2));

  std::vector<double> percents = {5, 10, 20};
  std::vector<std::size_t> budgets = testing_support::budgets_at(percents, s.candidates.size());
  std::vector<double> random = median_fractions("random", s, budgets, 15);
  for (const char* name : {"local", "genetic", "model", "bayes"}) {
    std::vector<double> one = median_fractions(name, s, budgets, 15), eight = median_fractions(name, s, budgets, 15, 8);
    for (std::size_t b = 0; b < budgets.size(); ++b) {
      EXPECT_GE(eight[b], 0.98 * one[b]) << name << " in batches of 8 at " << percents[b] << "%";
      EXPECT_GT(eight[b], random[b]) << name << " in batches of 8 at " << percents[b] << "%";
    }
  }
}

// A search in batches measures the same points whichever of a batch are ready first (a resumed
// run's recorded points, kernels compiled): only the order within a batch changes. The readiest
// point of a batch comes first.
TEST(SearchSource, BatchesMeasureTheSamePointsWhicheverAreReadyFirst) {
  SweepSpec spec = spec_of_text(kTwoSizes);
  bool some_order_changed = false;
  for (const char* name : kStrategies) {
    Strategy strategy{name, 18, 5};
    SearchSource in_order(expand_sweep(spec, builtin_registry()), strategy), shuffled(expand_sweep(spec, builtin_registry()), strategy);
    in_order.set_batches(6, nullptr);
    shuffled.set_batches(6, [](const Point& p) { return Readiness(std::hash<std::string>()(p.id) % 3); });
    std::vector<std::string> a = drive_ids(in_order), b = drive_ids(shuffled);
    EXPECT_EQ(a.size(), 18u) << name;
    some_order_changed = some_order_changed || a != b;
    std::sort(a.begin(), a.end()), std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << name;
  }
  EXPECT_TRUE(some_order_changed) << "the readiness reorders a batch";
  SearchSource random(expand_sweep(spec, builtin_registry()), Strategy{"random", 24, 2});
  random.set_batches(12, [](const Point& p) { return p.params.get("block_size") == 1024 ? Readiness::compiled : Readiness::compile_here; });
  std::vector<std::string> ids = drive_ids(random);
  ASSERT_EQ(ids.size(), 24u);
  for (std::size_t i : {0, 1, 2, 12, 13, 14}) EXPECT_NE(ids[i].find("block_size=1024"), std::string::npos) << i << " " << ids[i];
}

// A time limit cuts a batch where the points' time runs out, and the strategy is told the results
// that came in (a time-limited search is not repeatable point for point, batches or not).
TEST(SearchSource, ATimeLimitCutsABatch) {
  SweepSpec spec = spec_of_text(kTwoSizes);
  SearchSource source(expand_sweep(spec, builtin_registry()), Strategy{"random", std::nullopt, 0, 3.0});  // 1.5 s a size
  source.set_batches(6, nullptr);
  std::size_t told = 0;
  while (const Point* p = source.next()) source.tell(*p, fake_record(*p, 0.5)), ++told;
  EXPECT_EQ(told, 6u) << "3 points of 0.5 s per size, out of a batch of 6";
}

TEST(SearchSource, SearchesEachSizeWithItsShareOfTheBudgetAndStops) {
  SweepSpec spec = spec_of_text(kTwoSizes);
  Strategy strategy{"local", 9, 5};
  SearchSource source(expand_sweep(spec, builtin_registry()), strategy);
  EXPECT_EQ(source.candidates(), 24u);
  EXPECT_EQ(source.spaces(), 2u);
  EXPECT_EQ(source.planned(), 9u);
  std::vector<std::string> ids = drive_ids(source);
  ASSERT_EQ(ids.size(), 9u);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), 9u);
  auto at_first_size = [](const std::string& id) { return id.find("n=1048576/") != std::string::npos; };
  EXPECT_EQ(std::count_if(ids.begin(), ids.end(), at_first_size), 5) << "9 points over 2 sizes: 5, then 4";
  EXPECT_TRUE(std::all_of(ids.begin(), ids.begin() + 5, at_first_size)) << "one size after the other";
  EXPECT_EQ(source.next(), nullptr);
}

// The queue between a search and its compile workers: each offer its ids in order (one offered
// again moves up to the newest offer), whole lines, each ended by an empty line; a worker compiles
// the points the newest offer names, in its order, once each, and not a line still being written.
// An older offer's points are left: the search has moved on, and a worker compiling a stale guess
// is one its next batch waits for (on the H100 a local search compiled 16-37% fewer kernels, and
// was faster on 4 seeds of 5: study 20).
TEST(CompileQueue, AWorkerCompilesThePointsTheNewestOfferNamesOnce) {
  std::vector<Point> points = expand_sweep(spec_of_text(kTwoSizes), builtin_registry());
  ASSERT_GE(points.size(), 4u);
  std::string path = (std::filesystem::temp_directory_path() / ("occbench_queue_" + std::to_string(::getpid()))).string();
  std::remove(path.c_str());
  CompileQueue queue(path);
  queue.offer({&points[2], &points[0]});
  queue.offer({&points[0], &points[1], &points[3]});
  queue.offer({&points[0], &points[1], &points[3]});  // the same offer again: not written
  std::map<std::string, const Point*> by_id;
  for (const auto& p : points) by_id[p.id] = &p;
  auto point_of = [&](const std::string& id) -> std::optional<Point> {
    return by_id.count(id) ? std::optional<Point>(*by_id[id]) : std::nullopt;
  };
  std::vector<std::string> compiled;
  int polls = 0;
  auto compile = [&](const Point& p) { compiled.push_back(p.id); };
  follow_compile_queue(path, point_of, compile, [&] { return polls++ < 6; });
  EXPECT_EQ(compiled, (std::vector<std::string>{points[0].id, points[1].id, points[3].id})) << "the newest offer, in its order";

  // A newer offer: a line naming no point, points[2] again (it moves up), and one already compiled;
  // then a line still being written.
  std::ofstream(path, std::ios::app) << "no/such/point\n" << points[2].id << "\n" << points[1].id << "\n\n" << points[3].id.substr(0, 5);
  polls = 0;
  std::vector<std::string> again;
  follow_compile_queue(path, point_of, [&](const Point& p) { again.push_back(p.id); }, [&] { return polls++ < 6; });
  EXPECT_EQ(again, (std::vector<std::string>{points[2].id, points[1].id})) << "a new worker: the newest offer's points only";
  std::ifstream written(path);
  std::string all((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  EXPECT_EQ(std::count(all.begin(), all.end(), '\n'), 2 + 1 + 3 + 1 + 4) << all;
  std::remove(path.c_str());
}

TEST(SearchSource, AResumedSearchProposesWhatTheKilledOneWould) {
  SweepSpec spec = spec_of_text(kTwoSizes);
  for (const char* name : {"local", "genetic", "model"}) {
    Strategy strategy{name, 20, 11};
    SearchSource whole(expand_sweep(spec, builtin_registry()), strategy);
    std::vector<std::string> all = drive_ids(whole);
    // A resumed process proposes the points again and is told their kept records (the loop keeps
    // them, harness/run/runner.cpp): the same records, so the same points after them.
    SearchSource resumed(expand_sweep(spec, builtin_registry()), strategy);
    std::vector<std::string> again = drive_ids(resumed);
    EXPECT_EQ(again, all) << name;
  }
}

TEST(SearchSource, ALostDeviceEndsTheSearch) {
  SweepSpec spec = spec_of_text(kTwoSizes);
  SearchSource source(expand_sweep(spec, builtin_registry()), Strategy{"genetic", 20, 1});
  EXPECT_EQ(drive_ids(source, 3).size(), 3u);
  source.device_lost();
  EXPECT_EQ(source.next(), nullptr) << "no points for a process whose context is lost";
}

TEST(SearchSource, ATimeLimitStopsTheSearchOnThePointsTime) {
  SweepSpec spec = spec_of_text(kTwoSizes);
  Strategy strategy{"model", std::nullopt, 0, 3.0};  // 1.5 s per size, each point taking 0.5 s
  SearchSource source(expand_sweep(spec, builtin_registry()), strategy);
  std::size_t told = 0;
  while (const Point* p = source.next()) source.tell(*p, fake_record(*p, 0.5)), ++told;
  EXPECT_EQ(told, 6u) << "3 points per size";
}

TEST(SearchSource, TheObjectiveCanBeAnyNumberOfTheRecordToMaximise) {
  SweepSpec spec = spec_of_text(kTwoSizes);
  Strategy strategy{"local", 24, 2};
  strategy.objective = "metrics.achieved_bandwidth_gbps:max";
  EXPECT_NO_THROW(SearchSource(expand_sweep(spec, builtin_registry()), strategy));
  strategy.objective = "timing.median_ms:fastest";
  EXPECT_THROW(SearchSource(expand_sweep(spec, builtin_registry()), strategy), std::invalid_argument);
}

TEST(SearchConfig, TheConfigsSearchIsReadAndCheckedWithItsPath) {
  json doc = json::parse(kTwoSizes);
  doc["search"] = {{"strategy", "genetic"}, {"max_points", 10}, {"seed", 4}, {"time_limit_s", 60}};
  SweepSpec spec = parse_sweep_json(doc, "s.json", builtin_registry());
  ASSERT_TRUE(spec.search);
  EXPECT_EQ(spec.search->name, "genetic");
  EXPECT_EQ(spec.search->max_points, std::optional<std::size_t>(10));
  EXPECT_EQ(spec.search->seed, 4u);
  EXPECT_EQ(spec.search->time_limit_s, std::optional<double>(60));
  auto path_of_error = [&](json search) {
    json bad = json::parse(kTwoSizes);
    bad["search"] = std::move(search);
    try {
      parse_sweep_json(bad, "s.json", builtin_registry());
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.file(), "s.json");
      return e.json_path();
    }
    return std::string("no error");
  };
  EXPECT_EQ(path_of_error({{"strategy", "annealing"}, {"max_points", 5}}), "$.search.strategy");
  EXPECT_EQ(path_of_error({{"strategy", "local"}}), "$.search.max_points") << "a search needs a budget";
  EXPECT_EQ(path_of_error({{"strategy", "local"}, {"max_points", 0}}), "$.search.max_points");
  EXPECT_EQ(path_of_error({{"strategy", "local"}, {"budget", 5}}), "$.search.budget");
  EXPECT_EQ(path_of_error({{"strategy", "random"}}), "$.search.max_points") << "a sample needs a size or a time limit";
  EXPECT_EQ(path_of_error({{"strategy", "random"}, {"time_limit_s", 10}}), "no error") << "--time-limit for every strategy";
}

TEST(SearchCli, DryRunDescribesTheSearchAndBadCombinationsExit2) {
  testing_support::TempDir dir;
  std::string config = dir.write("two.json", kTwoSizes);
  int code = -1;
  std::string out = run_cli_out({"run", config, "--dry-run", "--strategy", "model", "--max-points", "6", "--seed", "3"}, code);
  EXPECT_EQ(code, kExitOk) << out;
  EXPECT_NE(out.find("a 'model' search over 24 point(s) in 2 space(s) (one per size), at most 6 point(s); seed 3"), std::string::npos) << out;
  out = run_cli_out({"run", config, "--dry-run", "--strategy", "local"}, code);
  EXPECT_EQ(code, kExitBadInput) << out;
  EXPECT_NE(out.find("--time-limit"), std::string::npos) << out;
  out = run_cli_out({"run", config, "--dry-run", "--strategy", "local", "--max-points", "5", "--objective", "timing.median_ms:best"}, code);
  EXPECT_EQ(code, kExitBadInput) << out;
  out = run_cli_out({"run", config, "--dry-run", "--strategy", "local", "--max-points", "5", "--objective", "energy.joules_per_launch"}, code);
  EXPECT_EQ(code, kExitBadInput) << out;
  EXPECT_NE(out.find("the run records no energy section: add --energy"), std::string::npos) << out;
  out = run_cli_out({"run", config, "--dry-run", "--strategy", "local", "--max-points", "5", "--objective", "energy.joules_per_launch",
                     "--energy"}, code);
  EXPECT_EQ(code, kExitOk) << out;
  out = run_cli_out({"run", config, "--dry-run", "--strategy", "genetic", "--max-points", "5", "--shard", "1/2"}, code);
  EXPECT_EQ(code, kExitBadInput) << out;
  EXPECT_NE(out.find("a search runs over the whole sweep"), std::string::npos) << out;
}

// run --resume F --dry-run of a search names the point it measures next after F's records: what
// the killed search would have measured (checked against the GPU's searches in
// results/reference/h100/search.md with scripts/search/search_resume_check.py).
TEST(SearchCli, DryRunOfAResumedSearchNamesItsNextPoint) {
  testing_support::TempDir dir;
  std::string config = dir.write("two.json", kTwoSizes);
  SearchSource source(expand_sweep(spec_of_text(kTwoSizes), builtin_registry()), Strategy{"model", 6, 3});
  std::vector<std::string> ids = drive_ids(source);
  ASSERT_EQ(ids.size(), 6u);
  std::vector<std::string> search = {"--dry-run", "--strategy", "model", "--max-points", "6", "--seed", "3"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), search.begin(), search.end());
    return args;
  };
  int code = -1;
  std::string out = run_cli_out(with({"run", config}), code);
  EXPECT_EQ(code, kExitOk) << out;
  EXPECT_NE(out.find("0 point(s) recorded; next: " + ids[0] + "\n"), std::string::npos) << out;
  json header = {{"occbench_jsonl", 1}, {"config", json::parse(kTwoSizes)}, {"config_source", config}};
  std::string lines = header.dump() + "\n";
  SweepSpec spec = spec_of_text(kTwoSizes);
  std::vector<Point> points = expand_sweep(spec, builtin_registry());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    std::string jsonl = dir.write("killed.jsonl", lines);
    out = run_cli_out(with({"run", "--resume", jsonl}), code);
    EXPECT_EQ(code, kExitOk) << out;
    EXPECT_NE(out.find(fmt::format("{} point(s) recorded; next: {}\n", k, ids[k])), std::string::npos) << out;
    auto point = std::find_if(points.begin(), points.end(), [&](const Point& p) { return p.id == ids[k]; });
    lines += fake_record(*point).dump() + "\n";
  }
  out = run_cli_out(with({"run", "--resume", dir.write("done.jsonl", lines)}), code);
  EXPECT_NE(out.find("6 point(s) recorded; next: none (the search is done)"), std::string::npos) << out;
}

// The two spaces of issue 27 (examples/search/syrk, examples/kernel_tuner/convolution) as a search
// sees them: thousands of points under their restrictions, one space each, eight and seven axes.
TEST(SearchSource, TheExampleSpacesHoldThousandsOfPoints) {
  struct Example {
    std::string config;
    std::size_t points, axes;
  };
  for (const Example& e : {Example{"examples/search/syrk/syrk.json", 2641, 9}, Example{"examples/kernel_tuner/convolution/convolution.json", 2835, 7},
                          Example{"examples/search/convolution/convolution.json", 3489, 7}}) {
    SweepSpec spec = parse_sweep_file(kSource + "/" + e.config, builtin_registry());
    SearchSource source(expand_sweep(spec, builtin_registry()), Strategy{"model", 132, 0});
    EXPECT_EQ(source.candidates(), e.points) << e.config;
    EXPECT_EQ(source.spaces(), 1u) << e.config;
    EXPECT_EQ(source.planned(), 132u) << e.config;
    std::vector<Coordinates> coordinates;
    for (const auto& point : expand_sweep(spec, builtin_registry())) coordinates.push_back(point_coordinates(point));
    EXPECT_EQ(SearchSpace(coordinates).dimensions().size(), e.axes) << e.config << ": the variant and each axis";
  }
}

namespace {

// A worker of a shared search: its source, and its part (a .jsonl the runner would write).
struct FakeWorker {
  std::unique_ptr<SharedSearchSource> source;
  std::string part;
  std::vector<std::string> measured;
  // One point: chosen, "measured", written to the part, told. False when it has none left.
  bool step() {
    const Point* p = source->next();
    if (!p) return false;
    measured.push_back(p->id);
    json record = fake_record(*p);
    std::ofstream(part, std::ios::app) << record.dump() << "\n";
    source->tell(*p, record);
    return true;
  }
};

std::vector<FakeWorker> fake_workers(const std::string& parts_dir, const SweepSpec& spec, const Strategy& strategy, int count) {
  std::string claims = parts_dir + "/claims";
  std::filesystem::create_directories(claims);
  std::vector<FakeWorker> workers;
  for (int d = 0; d < count; ++d) {
    std::string folder = parts_dir + "/device" + std::to_string(d);
    std::filesystem::create_directories(folder);
    workers.push_back({std::make_unique<SharedSearchSource>(expand_sweep(spec, builtin_registry()), strategy, claims),
                       folder + "/part.jsonl", {}});
  }
  return workers;
}

}  // namespace

// run --devices with a search: the workers share one budget and never measure a point twice, each
// learning from the others' parts; killed and resumed, they spend only the rest of the budget.
TEST(SharedSearch, WorkersShareOneBudgetAndNeverMeasureAPointTwice) {
  testing_support::TempDir dir;
  std::string parts = dir.file("run.parts");
  json doc = json::parse(kTwoSizes);
  doc["sizes"] = {{"n", {1048576}}};
  SweepSpec spec = parse_sweep_json(doc, "shared.json", builtin_registry());
  Strategy strategy{"model", 10, 7};
  std::vector<FakeWorker> workers = fake_workers(parts, spec, strategy, 2);
  for (int i = 0; i < 3; ++i) workers[0].step(), workers[1].step();  // killed after 6 points
  // run --resume: claims and slots dropped, finished points claimed again (multi_device's prepare_claims).
  std::filesystem::remove_all(parts + "/claims");
  std::filesystem::remove_all(parts + "/slots");
  std::filesystem::create_directories(parts + "/claims");
  std::vector<std::string> finished = workers[0].measured;
  finished.insert(finished.end(), workers[1].measured.begin(), workers[1].measured.end());
  mark_claimed(parts + "/claims", finished);
  std::vector<FakeWorker> resumed = fake_workers(parts, spec, strategy, 2);
  for (bool more = true; more;) {
    bool a = resumed[0].step(), b = resumed[1].step();
    more = a || b;
  }
  std::vector<std::string> all = finished;
  for (const auto& w : resumed) all.insert(all.end(), w.measured.begin(), w.measured.end());
  EXPECT_EQ(all.size(), 10u) << "the budget, shared";
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size()) << "no point measured twice";
  EXPECT_FALSE(resumed[0].measured.empty());
  EXPECT_FALSE(resumed[1].measured.empty());
}
