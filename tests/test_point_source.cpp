// Point sources (harness/sweep/point_source.hpp): which points a run measures and in which order
// (exhaustive, a shard's share, a random sample), the run loop's protocol (drive) with a source
// that decides from the results so far, and run --strategy on the command line. No GPU needed.
#include "harness/cli/cli.hpp"
#include "data_dir.hpp"
#include "harness/sweep/config.hpp"
#include "harness/sweep/point_source.hpp"
#include "harness/sweep/selection.hpp"
#include "harness/sweep/shard.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"
#include "results_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>

using namespace occbench;

namespace {

const std::string kConfigs = std::string(OCCBENCH_SOURCE_DIR) + "/configs/";

SweepSpec spec_of(const std::string& config) { return parse_sweep_file(kConfigs + config, builtin_registry()); }

std::vector<std::string> ids(const std::vector<Point>& points) {
  std::vector<std::string> out;
  for (const auto& p : points) out.push_back(p.id);
  return out;
}

std::vector<std::string> drawn(PointSource& source) {
  std::vector<std::string> out;
  while (const Point* p = source.next()) out.push_back(p->id);
  return out;
}

using testing_support::run_cli_out;

}  // namespace

TEST(PointSource, ExhaustiveGivesEveryPointInTheSweepsOrderOrTheFirstN) {
  SweepSpec spec = spec_of("stencil.json");
  std::vector<Point> all = expand_sweep(spec, builtin_registry());
  ExhaustiveSource every(all, std::nullopt);
  EXPECT_EQ(drawn(every), ids(all));
  EXPECT_EQ(every.next(), nullptr) << "a source that is done stays done";
  ExhaustiveSource first(all, 7);
  std::vector<std::string> seven = drawn(first), all_ids = ids(all);
  ASSERT_EQ(seven.size(), 7u);
  EXPECT_TRUE(std::equal(seven.begin(), seven.end(), all_ids.begin()));
  EXPECT_EQ(drawn(*make_point_source(spec, builtin_registry())), ids(all)) << "exhaustive is the default";
}

TEST(PointSource, ShardShareIsTheShardsPointsInTheSweepsOrder) {
  SweepSpec spec = apply_selection(spec_of("stencil.json"), [] {
    PointSelection s;
    s.shard_index = 1;
    s.shard_count = 3;
    return s;
  }(), builtin_registry());
  std::vector<Point> all = expand_sweep(spec, builtin_registry());
  std::vector<std::string> expected = ids(select_shard(all, spec.measurement, {1, 3}));
  ASSERT_FALSE(expected.empty());
  ASSERT_LT(expected.size(), all.size());
  EXPECT_EQ(ids(ShardShare(all, spec.measurement, 1, 3).points()), expected);
  EXPECT_EQ(ids(make_point_source(spec, builtin_registry())->points()), expected);
}

TEST(PointSource, RandomSampleIsDistinctInOrderAndTheSameForTheSameSeed) {
  SweepSpec spec = spec_of("stencil.json");
  std::vector<Point> all = expand_sweep(spec, builtin_registry());
  ASSERT_GT(all.size(), 100u);
  auto sample = [&](std::size_t n, std::uint64_t seed) { return RandomSample(all, n, seed).points(); };
  std::vector<Point> a = sample(20, 7);
  ASSERT_EQ(a.size(), 20u);
  std::vector<std::string> a_ids = ids(a);
  std::set<std::string> distinct(a_ids.begin(), a_ids.end());
  EXPECT_EQ(distinct.size(), 20u);
  for (std::size_t i = 1; i < a.size(); ++i) EXPECT_LT(a[i - 1].index, a[i].index) << "measured in the sweep's order";
  for (const auto& p : a) EXPECT_EQ(p.id, all[p.index].id);
  EXPECT_EQ(ids(sample(20, 7)), ids(a));
  EXPECT_NE(ids(sample(20, 8)), ids(a));
  EXPECT_EQ(ids(sample(all.size() + 5, 1)), ids(all)) << "more than there are: all of them";
  // Not the first points: the sample spreads over the sweep.
  EXPECT_GT(a.back().index, all.size() / 2);
  // The same on every machine: mt19937_64 and a bounded draw of its own (golden indices).
  std::vector<std::size_t> indices;
  for (const auto& p : sample(5, 42)) indices.push_back(p.index);
  EXPECT_EQ(indices, (std::vector<std::size_t>{9, 66, 70, 117, 128}));
}

TEST(PointSource, RandomSampleDrawsWithinTheShard) {
  PointSelection selection;
  selection.shard_index = 0;
  selection.shard_count = 2;
  SweepSpec spec = apply_selection(spec_of("stencil.json"), selection, builtin_registry());
  std::vector<Point> share = make_point_source(spec, builtin_registry())->points();
  std::vector<std::string> share_ids = ids(share);
  std::set<std::string> in_share(share_ids.begin(), share_ids.end());
  Strategy random{"random", 10, 3};
  std::vector<Point> sample = make_point_source(spec, builtin_registry(), random)->points();
  ASSERT_EQ(sample.size(), 10u);
  for (const auto& p : sample) EXPECT_TRUE(in_share.count(p.id)) << p.id;
}

TEST(PointSource, StrategyIsCheckedAndRoundTrips) {
  EXPECT_NO_THROW(check_strategy({}));
  EXPECT_THROW(check_strategy({"annealing", 10, 0}), ConfigError);
  EXPECT_THROW(check_strategy({"random", std::nullopt, 0}), ConfigError);
  EXPECT_THROW(check_strategy({"exhaustive", 0, 0}), ConfigError);
  try {
    check_strategy({"random", std::nullopt, 0});
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.json_path(), "--strategy random");
    EXPECT_NE(e.expected().find("--max-points"), std::string::npos) << e.what();
  }
  Strategy s{"random", 12, 99};
  Strategy back = strategy_from_json(to_json(s), "test");
  EXPECT_EQ(back.name, "random");
  EXPECT_EQ(back.max_points, std::optional<std::size_t>(12));
  EXPECT_EQ(back.seed, 99u);
  EXPECT_TRUE(Strategy{}.is_default());
  EXPECT_FALSE(s.is_default());
  EXPECT_THROW(strategy_from_json({{"name", "random"}}, "test.jsonl"), ConfigError);
}

// A source that decides from the results so far: from the middle of a line of points it steps
// left while the recorded median falls, and stops at the first rise. drive() must tell it each
// record before it asks for the next point.
class DownhillSource : public PointSource {
 public:
  explicit DownhillSource(std::vector<Point> line) : line_(std::move(line)), at_(line_.size() / 2) {}
  const Point* next() override {
    if (done_) return nullptr;
    if (waiting_) {
      asked_twice_ = true;  // asked again before the last point's record came
      return nullptr;
    }
    waiting_ = true;
    return &line_[at_];
  }
  void tell(const Point& point, const nlohmann::ordered_json& record) override {
    EXPECT_EQ(point.id, line_[at_].id);
    waiting_ = false;
    visited.push_back(point.id);
    double t = record["timing"]["median_ms"].get<double>();
    if (t >= best_) {
      done_ = true;
      return;
    }
    best_ = t;
    best_at = at_;
    if (at_ == 0) done_ = true;
    else --at_;
  }
  std::vector<std::string> visited;
  std::size_t best_at = 0;
  bool asked_twice_ = false;

 private:
  std::vector<Point> line_;
  std::size_t at_;
  double best_ = 1e300;
  bool waiting_ = false, done_ = false;
};

TEST(PointSource, DriveTellsEachRecordBeforeTheNextChoice) {
  SweepSpec spec = spec_of("adjacent_difference.json");
  std::vector<Point> line;
  for (const auto& p : expand_sweep(spec, builtin_registry()))
    if (p.variant->name == "global" && p.sizes.get("n") == spec.sizes.front().second.front()) line.push_back(p);
  ASSERT_GE(line.size(), 4u);
  // A fake measurement: time falls towards the second point, then rises.
  auto fake_ms = [&](const Point& p) {
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i].id == p.id) return 1.0 + (double(i) - 1.0) * (double(i) - 1.0);
    return 1e9;
  };
  DownhillSource source(line);
  std::vector<std::string> measured;
  drive(source, [&](const Point& p) {
    measured.push_back(p.id);
    return nlohmann::ordered_json{{"point_id", p.id}, {"timing", {{"median_ms", fake_ms(p)}}}};
  });
  EXPECT_FALSE(source.asked_twice_) << "asked for a point before the last one's record was told";
  EXPECT_EQ(measured, source.visited) << "every point measured was told, in order";
  EXPECT_EQ(source.best_at, 1u) << "it found the minimum from the results";
  EXPECT_LT(measured.size(), line.size()) << "without measuring every point";
}

TEST(PointSource, RunDryRunListsTheStrategysPoints) {
  int code = 0;
  std::string config = kConfigs + "stencil.json";
  std::string first = run_cli_out({"run", config, "--dry-run", "--strategy", "random", "--max-points", "6", "--seed", "5"}, code);
  ASSERT_EQ(code, kExitOk) << first;
  EXPECT_NE(first.find("6 point(s) would run"), std::string::npos) << first;
  EXPECT_EQ(run_cli_out({"run", config, "--dry-run", "--strategy", "random", "--max-points", "6", "--seed", "5"}, code), first);
  EXPECT_NE(run_cli_out({"run", config, "--dry-run", "--strategy", "random", "--max-points", "6", "--seed", "6"}, code), first);
  std::string limited = run_cli_out({"run", config, "--dry-run", "--max-points", "3"}, code);
  EXPECT_NE(limited.find("3 point(s) would run"), std::string::npos) << limited;
  std::string bad = run_cli_out({"run", config, "--dry-run", "--strategy", "random"}, code);
  EXPECT_EQ(code, kExitBadInput);
  EXPECT_NE(bad.find("--max-points"), std::string::npos) << bad;
  bad = run_cli_out({"run", config, "--dry-run", "--strategy", "annealing", "--max-points", "3"}, code);
  EXPECT_EQ(code, kExitBadInput);
  EXPECT_NE(bad.find("exhaustive, random"), std::string::npos) << bad;
}

// --time-limit for every strategy: a list source stops once the points it was told took that long
// to measure (their records' time_use.point_s, as a search counts them, so a resumed run stops
// where the killed one would have); a time-limited random sample is measured in the order drawn,
// so the part that fits the time is a uniform sample too.
TEST(PointSource, ATimeLimitStopsEveryStrategyOnThePointsOwnTime) {
  SweepSpec spec = spec_of("stencil.json");
  std::vector<Point> all = expand_sweep(spec, builtin_registry());
  ASSERT_GT(all.size(), 10u);
  auto measured = [](ListSource& source) {
    std::vector<std::string> out;
    drive(source, [&](const Point& p) {
      out.push_back(p.id);
      return nlohmann::ordered_json{{"time_use", {{"point_s", 0.3}}}};
    });
    return out;
  };
  Strategy exhaustive;
  exhaustive.time_limit_s = 1.0;
  auto first = measured(*make_point_source(spec, builtin_registry(), exhaustive));
  std::vector<std::string> all_ids = ids(all);
  ASSERT_EQ(first.size(), 4u) << "0.3 s each: the fourth brings 1.2 s, past the limit";
  EXPECT_TRUE(std::equal(first.begin(), first.end(), all_ids.begin()));

  Strategy random;
  random.name = "random";
  random.seed = 5;
  random.time_limit_s = 1.0;
  auto sampled = measured(*make_point_source(spec, builtin_registry(), random));
  ASSERT_EQ(sampled.size(), 4u);
  EXPECT_EQ(sampled, measured(*make_point_source(spec, builtin_registry(), random))) << "the same for the same seed";
  EXPECT_FALSE(std::is_sorted(sampled.begin(), sampled.end(), [&](const std::string& a, const std::string& b) {
    return std::find(all_ids.begin(), all_ids.end(), a) < std::find(all_ids.begin(), all_ids.end(), b);
  })) << "drawn order, not the sweep's: a prefix of it is a uniform sample";
  check_strategy(random, "f.json", "");  // --strategy random --time-limit S needs no --max-points
}

// A list hands out what is compiled first (ReadiestFirst): the same points, each problem's before
// the next problem's (each is built once), and with a time limit the list's order, so the part
// measured before the limit is what the list says.
TEST(PointSource, AListGivesCompiledPointsFirstWithinEachProblem) {
  SweepSpec spec = spec_of("transpose.json");
  std::vector<Point> all = expand_sweep(spec, builtin_registry());
  auto readiness = [](const Point& p) { return Readiness(std::hash<std::string>()(p.id) % 3); };
  ListSource ready(all);
  ready.set_readiness(readiness, false);
  std::vector<std::string> given = drawn(ready), in_order = ids(all);
  EXPECT_NE(given, in_order) << "the readiness reorders the list";
  std::vector<std::string> sorted_given = given, sorted_order = in_order;
  std::sort(sorted_given.begin(), sorted_given.end()), std::sort(sorted_order.begin(), sorted_order.end());
  EXPECT_EQ(sorted_given, sorted_order) << "the same points";
  std::vector<std::string> problems;  // each point's problem, in the order given
  for (const auto& id : given) {
    const Point& p = *std::find_if(all.begin(), all.end(), [&](const Point& q) { return q.id == id; });
    std::string problem = p.family->name + "/" + p.sizes.to_string();
    if (problems.empty() || problems.back() != problem) problems.push_back(problem);
  }
  std::set<std::string> distinct(problems.begin(), problems.end());
  EXPECT_GT(problems.size(), 1u);
  EXPECT_EQ(distinct.size(), problems.size()) << "a problem's points all came before the next problem's";
  const Point& first_ready = *std::find_if(all.begin(), all.end(), [&](const Point& p) { return readiness(p) <= Readiness::compiled; });
  EXPECT_EQ(given.front(), first_ready.id);

  ListSource limited(all);
  limited.set_time_limit(100.0);
  limited.set_readiness(readiness, false);
  EXPECT_EQ(drawn(limited), in_order) << "a time limit keeps the list's order";
}

// While every candidate is being compiled by another process, ReadiestFirst waits for the first
// to be compiled, takes it, and counts the wait; a kernel nobody compiles is compiled here, or
// (a list's) only once no other process compiles any.
TEST(PointSource, ReadiestFirstWaitsForTheFirstCompiledElsewhere) {
  std::vector<Point> points = expand_sweep(spec_of("transpose.json"), builtin_registry());
  auto start = std::chrono::steady_clock::now();
  ReadiestFirst ready([&](const Point& p) {
    bool done = std::chrono::steady_clock::now() - start > std::chrono::milliseconds(40);
    return p.id == points[2].id && done ? Readiness::compiled : Readiness::compiling_elsewhere;
  });
  auto candidate = [&](std::size_t i) -> const Point& { return points[i]; };
  EXPECT_EQ(ready.pick(4, candidate), 2u);
  double waited = ready.take_waited_s();
  EXPECT_GE(waited, 0.035);
  EXPECT_LT(waited, 5.0);
  EXPECT_EQ(ready.take_waited_s(), 0.0) << "taken once";
  ReadiestFirst compile_here([&](const Point& p) { return p.id == points[3].id ? Readiness::compile_here : Readiness::compiling_elsewhere; });
  EXPECT_EQ(compile_here.pick(4, candidate), 3u);
  start = std::chrono::steady_clock::now();
  ReadiestFirst alongside_workers([&](const Point& p) {
    bool done = std::chrono::steady_clock::now() - start > std::chrono::milliseconds(40);
    if (p.id == points[3].id) return Readiness::compile_here;
    return p.id == points[1].id && done ? Readiness::compiled : Readiness::compiling_elsewhere;
  }, /*compile_here_alongside=*/false);
  EXPECT_EQ(alongside_workers.pick(4, candidate), 1u) << "waited for a worker rather than compile here";
  EXPECT_GE(alongside_workers.take_waited_s(), 0.035);
  EXPECT_EQ(ReadiestFirst().pick(4, candidate), 0u) << "no readiness: the first";
}
