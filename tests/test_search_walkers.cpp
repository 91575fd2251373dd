// A search that waits less for the compiler (harness/search): compile times told to the strategy
// (a local search puts off neighbours costly to compile, and names its next restart ahead), two
// walkers each with a batch in flight (SearchWalkers), and the live search's model that replay
// draws its wall-time curves from (live_model). No GPU needed.
#include "harness/search/live_model.hpp"
#include "data_dir.hpp"
#include "harness/search/search_source.hpp"
#include "harness/search/search_walkers.hpp"
#include "harness/search/searcher.hpp"
#include "harness/sweep/config.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"
#include "search_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace occbench;

namespace {

const std::string kSource = OCCBENCH_SOURCE_DIR;

// What compiling a candidate of the synthetic space costs: its unrolled thread tile, as a kernel's
// fully unrolled loops do (Kernel Tuner's convolution: 0.2 s at 1 x 1, 5-11 s at 8 x 8).
double synthetic_compile_s(const SearchSpace& space, std::size_t c) {
  double size = 1;
  const auto& dimensions = space.dimensions();
  for (std::size_t d = 0; d < dimensions.size(); ++d)
    if (dimensions[d].name == "tile_x" || dimensions[d].name == "tile_y" || dimensions[d].name == "unroll")
      size *= dimensions[d].values[std::size_t(space.indices(c)[d])].get<double>();
  return 0.05 * size;
}

// A searcher whose guess of compile costs a test can ask for.
class Guessing : public Searcher {
 public:
  using Searcher::costly_to_compile;
  using Searcher::Searcher;

 protected:
  std::optional<std::size_t> propose() override { return random_unevaluated(); }
  void learn(std::size_t, std::optional<double>) override {}
};

struct Walk {
  std::vector<std::vector<std::size_t>> batches;
  double compile_waits_s = 0;  // each batch's slowest compilation, summed: what a batch waits for
  double best = HUGE_VAL;
};

// What compiling a candidate costs where its unrolling alone decides (0.1, 0.8 and 6.4 s): a
// costly kernel that is seldom the best one.
double unrolled_compile_s(const SearchSpace& space, std::size_t c) {
  const auto& dimensions = space.dimensions();
  for (std::size_t d = 0; d < dimensions.size(); ++d)
    if (dimensions[d].name == "unroll") return 0.1 * std::pow(dimensions[d].values[std::size_t(space.indices(c)[d])].get<double>(), 3);
  return 0.1;
}

// A local search of 150 points in batches of 16, told each point's compile time (or not).
Walk local_in_batches(const testing_support::SyntheticSpace& s, const SearchSpace& space, std::uint64_t seed, bool tell_compile) {
  std::unique_ptr<Searcher> local = make_searcher("local", space, seed);
  Walk walk;
  for (std::size_t told = 0; told < 150;) {
    std::vector<std::size_t> batch = local->ask_batch(16);
    if (batch.empty()) break;
    double slowest = 0;
    for (std::size_t c : batch) {
      slowest = std::max(slowest, unrolled_compile_s(space, c));
      if (tell_compile) local->tell_compile_s(c, unrolled_compile_s(space, c));
      local->tell(c, s.costs[c]);
      if (s.costs[c]) walk.best = std::min(walk.best, *s.costs[c]);
    }
    walk.compile_waits_s += slowest;
    walk.batches.push_back(batch);
    told += batch.size();
  }
  return walk;
}

}  // namespace

// The guess is each axis value's effect on the log time of the compilations told: none before
// kCompileSamples; above twice their median is costly; a value not seen yet counts as the costliest
// of its axis.
TEST(Searcher, GuessesFromToldCompileTimesWhichCandidatesAreCostly) {
  std::vector<Coordinates> candidates;
  for (int t = 0; t < 8; ++t)
    for (const char* pad : {"p0", "p1"}) candidates.push_back({{"tile", t}, {"pad", pad}});
  SearchSpace space(candidates);
  auto at = [](int tile, const char* pad) { return std::size_t(2 * tile + (pad[1] == '1')); };
  Guessing searcher(space, 1);
  searcher.tell_compile_s(at(0, "p0"), 0.5);
  searcher.tell_compile_s(at(1, "p0"), 0.5);
  searcher.tell_compile_s(at(2, "p1"), 0.5);
  EXPECT_FALSE(searcher.costly_to_compile(at(7, "p1"))) << "no guess from three";
  searcher.tell_compile_s(at(7, "p0"), 10.0);
  searcher.tell_compile_s(at(7, "p0"), 0.1);  // told once: the second is ignored
  EXPECT_TRUE(searcher.costly_to_compile(at(7, "p1")));
  EXPECT_FALSE(searcher.costly_to_compile(at(0, "p1")));
  EXPECT_FALSE(searcher.costly_to_compile(at(1, "p0")));
  EXPECT_TRUE(searcher.costly_to_compile(at(5, "p0"))) << "tile 5 is not seen yet: like the costliest tile";
}

// Told what each point took to compile, a local search in batches tries a neighbourhood's cheap
// candidates first, in their own batch: where the costly kernels are seldom the best (here, the
// most unrolled), it waits for less compilation (18% less) and finds as good a point (five seeds).
// Without the compile times it cannot. (Where the costly kernels are the best, the batches put
// off are tried next: more batches, each cheaper; on the convolution space the live model's wall
// is 8% shorter, on the synthetic one with compile time growing with the tile 5% longer.)
TEST(LocalSearch, PutsOffNeighboursCostlyToCompileAndFindsAsMuch) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  double waits_told = 0, waits_not = 0;
  std::vector<double> best_told, best_not;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    Walk told = local_in_batches(s, space, seed, true), blind = local_in_batches(s, space, seed, false);
    waits_told += told.compile_waits_s, waits_not += blind.compile_waits_s;
    best_told.push_back(told.best), best_not.push_back(blind.best);
  }
  EXPECT_LT(waits_told, 0.9 * waits_not);
  std::sort(best_told.begin(), best_told.end()), std::sort(best_not.begin(), best_not.end());
  EXPECT_LE(best_told[2], best_not[2] * 1.02) << "the median best of five seeds";
}

// Where no neighbour is better, a local search restarts; it names that restart among its likely
// next candidates beforehand (a copy of its generator draws it), so the restart's kernel compiles
// while the neighbourhood is measured.
TEST(LocalSearch, NamesItsNextRestartBeforeItComes) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  int restarts_named = 0, restarts = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    std::unique_ptr<Searcher> local = make_searcher("local", space, seed);
    for (std::size_t told = 0; told < 300;) {
      std::vector<std::size_t> likely = local->likely_next(1000);
      std::vector<std::size_t> batch = local->ask_batch(64);
      if (batch.empty()) break;
      if (batch.size() == 1 && told >= space.dimensions().size()) {  // a restart (or a neighbourhood of one)
        ++restarts;
        restarts_named += std::find(likely.begin(), likely.end(), batch[0]) != likely.end();
      }
      for (std::size_t c : batch) local->tell(c, s.costs[c]);
      told += batch.size();
    }
  }
  ASSERT_GT(restarts, 5);
  EXPECT_EQ(restarts_named, restarts);
}

TEST(SearchWalkers, OnePerFortyPointsOfALocalSearchOfAHundredOrMore) {
  EXPECT_EQ(walkers_for("local", 99), 1u);
  EXPECT_EQ(walkers_for("local", 100), 2u);
  EXPECT_EQ(walkers_for("local", 119), 2u);
  EXPECT_EQ(walkers_for("local", 120), 3u);
  EXPECT_EQ(walkers_for("local", 159), 3u);
  EXPECT_EQ(walkers_for("local", 160), 4u);
  EXPECT_EQ(walkers_for("local", 100000), 4u);
  EXPECT_EQ(walkers_for("genetic", 120), 1u);
  EXPECT_EQ(walkers_for("model", 1000), 1u);
}

// Walkers share the budget and the results, not their choices: whichever order the results come
// in, the same candidates are measured, none twice; a candidate two walkers ask for is measured
// once, and the budget that leaves is shared out again. Walker 0 starts as a single search of the
// seed would.
TEST(SearchWalkers, MeasureTheSameWhicheverOrderResultsComeIn) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  auto run = [&](std::size_t count, bool reversed) {
    SearchWalkers walkers("local", space, 7, 120, count);
    std::vector<std::size_t> measured;
    std::set<std::size_t> by_walker;
    for (;;) {
      walkers.ask(16);
      std::vector<SearchWalkers::Member> open = walkers.open();
      if (open.empty()) break;
      const SearchWalkers::Member& member = reversed ? open.back() : open.front();
      walkers.hand(member);
      EXPECT_TRUE(walkers.result(member.candidate, s.costs[member.candidate], {synthetic_compile_s(space, member.candidate), 0.0}));
      measured.push_back(member.candidate);
      by_walker.insert(member.walker);
    }
    EXPECT_EQ(by_walker.size(), count);
    EXPECT_GE(walkers.told(), 120u) << "each walker told its share, measured here or by another";
    return measured;
  };
  for (std::size_t count : {2, 3}) {
    std::vector<std::size_t> in_order = run(count, false), reversed = run(count, true);
    EXPECT_NE(in_order, reversed) << "measured in another order";
    EXPECT_EQ(in_order.size(), 120u) << "what two wanted measured once, and the budget left shared out again";
    std::set<std::size_t> distinct(in_order.begin(), in_order.end());
    EXPECT_EQ(distinct.size(), in_order.size()) << "none measured twice";
    std::sort(in_order.begin(), in_order.end()), std::sort(reversed.begin(), reversed.end());
    EXPECT_EQ(in_order, reversed) << count << " walkers";
  }
  std::unique_ptr<Searcher> single = make_searcher("local", space, 7);
  std::vector<std::size_t> start = single->ask_batch(16);
  SearchWalkers walkers("local", space, 7, 120, 2);
  walkers.ask(16);
  std::vector<std::size_t> first;
  for (const auto& member : walkers.open())
    if (member.walker == 0) first.push_back(member.candidate);
  EXPECT_EQ(first, start);
}

// A search in batches by two walkers through the run loop's source: a local search of 120 points
// of the convolution example measures the same points whichever are compiled first.
TEST(SearchWalkers, TheRunLoopsSourceMeasuresTheSamePointsWhicheverAreReadyFirst) {
  SweepSpec spec = parse_sweep_file(kSource + "/examples/search/convolution/convolution.json", builtin_registry());
  auto drive = [&](ReadinessOf readiness) {
    SearchSource source(expand_sweep(spec, builtin_registry()), Strategy{"local", 120, 3});
    source.set_batches(16, std::move(readiness));
    std::vector<std::string> ids;
    while (const Point* p = source.next()) {
      ids.push_back(p->id);
      double tile = p->params.has("tile_size_x") ? double(p->params.get("tile_size_x") * p->params.get("tile_size_y")) : 1.0;
      double block = double(p->params.get("block_size_x") * p->params.get("block_size_y"));
      double median = 1.0 / tile + std::abs(std::log2(block / 128.0)) + 0.01 * double(std::hash<std::string>()(p->id) % 7);
      source.tell(*p, {{"point_id", p->id}, {"status", "ok"}, {"timing", {{"median_ms", median}}}, {"compile", {{"nvrtc_ms", 100 * tile}}}});
    }
    return ids;
  };
  std::vector<std::string> a = drive(nullptr), b = drive([](const Point& p) { return Readiness(std::hash<std::string>()(p.id) % 3); });
  EXPECT_EQ(a.size(), 120u);
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end()), std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

// The run loop's source with batches by the width rule (adapt_batches): where a point measures in
// twice its kernel's compile time it asks one point at a time after its random start and chooses
// what one point at a time does; where compiling takes ten times a point's measuring, it goes to
// batches of ten with three walkers. The log says each width and why.
TEST(SearchWalkers, TheRunLoopsSourceAsksAsWideAsTheCompilerNeeds) {
  SweepSpec spec = parse_sweep_file(kSource + "/examples/search/convolution/convolution.json", builtin_registry());
  auto drive = [&](double compile_ms, double point_s, bool adaptive, std::vector<std::string>* notes) {
    SearchSource source(expand_sweep(spec, builtin_registry()), Strategy{"local", 120, 3});
    if (adaptive) source.adapt_batches([notes](const std::string& line) { notes->push_back(line); });
    source.set_batches(adaptive ? 16 : 1, nullptr);
    std::vector<std::string> ids;
    while (const Point* p = source.next()) {
      ids.push_back(p->id);
      double median = 1.0 + 0.01 * double(std::hash<std::string>()(p->id) % 97);
      source.tell(*p, {{"point_id", p->id}, {"status", "ok"}, {"timing", {{"median_ms", median}}},
                       {"compile", {{"nvrtc_ms", compile_ms}}}, {"time_use", {{"point_s", point_s}}}});
    }
    return ids;
  };
  std::vector<std::string> gpu_bound, compile_bound;
  EXPECT_EQ(drive(100, 0.2, true, &gpu_bound), drive(100, 0.2, false, nullptr));
  ASSERT_GE(gpu_bound.size(), 2u);
  EXPECT_NE(gpu_bound.front().find("search: from point 1: batches of"), std::string::npos) << gpu_bound.front();
  EXPECT_NE(gpu_bound.front().find("do not depend on results"), std::string::npos) << gpu_bound.front();
  EXPECT_NE(gpu_bound.back().find("one point at a time: the slowest kernel so far compiled in 0.1 s, a point measures in 0.2 s"), std::string::npos)
      << gpu_bound.back();
  EXPECT_EQ(drive(1000, 0.1, true, &compile_bound).size(), 120u);
  EXPECT_NE(compile_bound.back().find("batches of 10: the slowest kernel so far compiled in 1 s, a point measures in 0.1 s"), std::string::npos)
      << compile_bound.back();
}

// The live search's model: with compile times that grow with the tile (the synthetic space), the
// GPU of a 120-point local search in batches waits less with two walkers than with one, and with
// three (walkers_for's) less than with two, finding as good; and with no compile time at all the
// wall is the measuring alone, the points measured in the strategy's order.
TEST(LiveModel, MoreWalkersWaitLessForTheCompiler) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  LiveCosts costs{s.costs, {}, std::vector<double>(space.size(), 0.03)};
  for (std::size_t c = 0; c < space.size(); ++c) costs.compile_s.push_back(synthetic_compile_s(space, c));
  std::vector<double> wall(4, 0.0), best(4, 0.0);
  for (std::size_t walkers = 1; walkers <= 3; ++walkers)
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      SearchWalkers search("local", space, seed, 120, walkers);
      LiveSearch live = simulate_live_search(search, costs, LiveModel{16, 15, 32});
      wall[walkers] += live.measured_at_s.back();
      double found = HUGE_VAL;
      for (std::size_t c : live.measured) found = std::min(found, s.costs[c].value_or(HUGE_VAL));
      best[walkers] += found;
    }
  EXPECT_LT(wall[2], 0.85 * wall[1]);
  EXPECT_LT(wall[3], 0.9 * wall[2]);
  // Three walkers' shorter walks find a little less than two's: within 1% before the restarts were
  // guided (a restart's guide gains more on a longer walk), 1.4% since.
  EXPECT_LE(best[3], best[2] * 1.02) << "the summed best costs of 40 seeds";
  std::fill(costs.compile_s.begin(), costs.compile_s.end(), 0.0);
  SearchWalkers single("local", space, 1, 40, 1);
  LiveSearch search = simulate_live_search(single, costs, LiveModel{16, 15, 32});
  ASSERT_EQ(search.measured.size(), 40u);
  EXPECT_NEAR(search.measured_at_s.back(), 40 * 0.03, 1e-9);
  std::unique_ptr<Searcher> local = make_searcher("local", space, 1);
  std::vector<std::size_t> order;
  while (order.size() < 40) {
    std::vector<std::size_t> batch = local->ask_batch(std::min<std::size_t>(16, 40 - order.size()));
    for (std::size_t c : batch) order.push_back(c), local->tell(c, s.costs[c]);
  }
  EXPECT_EQ(search.measured, order);
}

// A search's random start is drawn by its own generator, so before each ask it names the draws it
// will make (a copy of the generator draws them): asked one point at a time, the local search's
// sample and the model's random start are each the first of what it named just before.
TEST(Searcher, NamesItsNextRandomDrawsBeforeTheyAreAsked) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  for (const char* strategy : {"local", "model"}) {
    std::unique_ptr<Searcher> searcher = make_searcher(strategy, space, 5);
    std::size_t named = 0;
    for (std::size_t free = searcher->free_room(); free > 0; free = searcher->free_room()) {
      std::vector<std::size_t> likely = searcher->likely_next(32);
      ASSERT_GE(likely.size(), free) << strategy;
      std::optional<std::size_t> asked = searcher->ask();
      ASSERT_TRUE(asked);
      named += likely.front() == *asked;
      searcher->tell(*asked, s.costs[*asked]);
    }
    EXPECT_GE(named, space.dimensions().size()) << strategy;
    EXPECT_EQ(named, searcher->told()) << strategy << ": every draw of the start named before it was asked";
  }
}

// One point at a time where compiling is the slower part (1 s a kernel, 0.05 s a point, 15
// workers): the random start compiles at once, so the GPU waits for the first kernel alone and
// then measures the start back to back, as a batch of it would.
TEST(LiveModel, OnePointAtATimeCompilesItsRandomStartAhead) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  LiveCosts costs{s.costs, std::vector<double>(space.size(), 1.0), std::vector<double>(space.size(), 0.05)};
  for (const char* strategy : {"local", "model"}) {
    std::size_t start = make_searcher(strategy, space, 3)->free_room();
    SearchWalkers search(strategy, space, 3, start, 1);
    LiveSearch live = simulate_live_search(search, costs, LiveModel{1, 15, 32});
    ASSERT_EQ(live.measured.size(), start) << strategy;
    EXPECT_NEAR(live.measured_at_s.back(), 1.0 + 0.05 * double(start), 1e-9) << strategy;
  }
}

// The walkers the width rule adds start at the same point of walker 0's search whichever order its
// results come in: the same records give the same points.
TEST(SearchWalkers, TheRulesWalkersMeasureTheSameWhicheverOrderResultsComeIn) {
  testing_support::SyntheticSpace s = testing_support::synthetic_tuning_space();
  SearchSpace space(s.candidates);
  auto run = [&](bool reversed) {
    SearchWalkers search("local", space, 4, 120, AdaptiveBatches{3, BatchWidthRule{16}});
    std::vector<std::size_t> measured;
    for (;;) {
      search.ask();
      std::vector<SearchWalkers::Member> open = search.open();
      if (open.empty()) break;
      const SearchWalkers::Member& member = reversed ? open.back() : open.front();
      search.hand(member);
      search.result(member.candidate, s.costs[member.candidate], {1.0, 0.1});
      measured.push_back(member.candidate);
    }
    EXPECT_EQ(search.count(), 3u);
    return measured;
  };
  std::vector<std::size_t> in_order = run(false), reversed = run(true);
  EXPECT_EQ(in_order.size(), 120u);
  EXPECT_NE(in_order, reversed) << "measured in another order";
  std::sort(in_order.begin(), in_order.end()), std::sort(reversed.begin(), reversed.end());
  EXPECT_EQ(in_order, reversed);
}
