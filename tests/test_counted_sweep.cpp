// Spaces counted, drawn and built one point at a time (harness/sweep/counted_sweep.hpp): the same
// points, ids and order as expand_sweep, the same random sample as the expanded list's, and a
// space far larger than any expansion counted exactly. No GPU needed.
#include "harness/sweep/config.hpp"
#include "data_dir.hpp"
#include "harness/sweep/counted_sweep.hpp"
#include "harness/sweep/point_source.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"
#include "results_test_support.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace occbench {
namespace {

namespace fs = std::filesystem;
using ordered_json = nlohmann::ordered_json;

// A kernel of the user's with many tunable #defines, and a config over `axes` under `restrictions`.
struct SpaceConfig {
  // Its own folder: ctest runs the tests of this file side by side.
  fs::path dir = fs::temp_directory_path() / fmt::format("occbench_counted_sweep_{}_{}", ::getpid(), next_folder());
  ordered_json doc;
  static int next_folder() {
    static int n = 0;
    return ++n;
  }
  SpaceConfig(const ordered_json& axes, const std::vector<std::string>& restrictions, const ordered_json& sizes) {
    fs::create_directories(dir);
    std::ofstream(dir / "k.cu") << "__global__ void k(float* out, unsigned n) { unsigned i = blockIdx.x * blockDim.x + "
                                   "threadIdx.x; if (i < n) out[i] = 1.0f; }\n";
    doc = {{"name", "space"}, {"source", "k.cu"}, {"sizes", sizes}, {"axes", axes}, {"restrictions", restrictions}};
    doc["arguments"] = ordered_json::parse(R"([{"name": "out", "role": "output", "type": "float32", "count": "n"},
                                               {"name": "n", "role": "scalar", "type": "uint32", "value": "n"}])");
    doc["kernels"] = ordered_json::parse(R"j({"first": {"kernel": "k", "grid": "ceil_div(n, 128)", "block": "128"},
                                             "second": {"kernel": "k", "grid": "ceil_div(n, 128)", "block": "128"}})j");
    doc["reference"] = ordered_json::parse(R"({"variant": "first", "params": {}})");
  }
  ~SpaceConfig() { fs::remove_all(dir); }
  std::string path() const {
    std::ofstream(dir / "space.json") << doc.dump(1);
    return (dir / "space.json").string();
  }
  SweepSpec parse() const { return parse_sweep_file(path(), builtin_registry()); }
};

// Ten axes, restrictions over a few of them each (one naming a size, one the first and last axes),
// two sizes and two variants: 4 blocks.
SpaceConfig medium_space() {
  ordered_json axes = {{"bx", {16, 32, 64, 128, 256}}, {"by", {1, 2, 4, 8}},   {"tx", {1, 2, 3, 4}}, {"ty", {1, 2, 4}},
                       {"ux", {1, 2, 4}},               {"vw", {1, 2, 4}},      {"p", {0, 1}},        {"q", {0, 1}},
                       {"r", {0, 1, 2}},                {"s", {1, 2}}};
  return SpaceConfig(axes,
                     {"bx * by <= 512", "tx % ux == 0", "tx % vw == 0 || vw == 1", "bx * tx <= 512", "p == 0 || ty <= 2",
                      "q + r <= 2", "n > 1024 || s == 1", "bx >= 32 || s == 2"},
                     {{"n", {1024, 4096}}});
}

std::vector<std::string> ids(const std::vector<Point>& points) {
  std::vector<std::string> out;
  for (const auto& p : points) out.push_back(p.id);
  return out;
}

TEST(CountedSweep, EveryPointIsExpandSweepsPointAtTheSameIndex) {
  SweepSpec spec = medium_space().parse();
  std::vector<Point> expanded = expand_sweep(spec, builtin_registry());
  CountedSweep counted(spec, builtin_registry());
  ASSERT_EQ(counted.size(), expanded.size());
  ASSERT_GT(expanded.size(), 10000u) << "a space large enough for the memo to matter";
  for (std::size_t i = 0; i < expanded.size(); i += 7) {
    Point point = counted.at(i);
    ASSERT_EQ(point.id, expanded[i].id) << i;
    EXPECT_EQ(point.index, i);
    EXPECT_EQ(point.variant, expanded[i].variant);
    EXPECT_EQ(point.sizes, expanded[i].sizes);
  }
  EXPECT_EQ(counted.at(expanded.size() - 1).id, expanded.back().id);
  EXPECT_THROW(counted.at(expanded.size()), std::out_of_range);
  EXPECT_EQ(ids(counted.first(25)), ids(std::vector<Point>(expanded.begin(), expanded.begin() + 25)));
  EXPECT_EQ(count_sweep(spec, builtin_registry()), expanded.size());
}

TEST(CountedSweep, APointIsFoundByItsIdAloneAndOnlyAPointOfTheSweep) {
  SweepSpec spec = medium_space().parse();
  std::vector<Point> expanded = expand_sweep(spec, builtin_registry());
  for (std::size_t i = 0; i < expanded.size(); i += 97) {
    auto point = point_with_id(spec, builtin_registry(), expanded[i].id);
    ASSERT_TRUE(point) << expanded[i].id;
    EXPECT_EQ(point->params, expanded[i].params);
    EXPECT_EQ(point->variant, expanded[i].variant);
  }
  std::string id = expanded.front().id;
  for (std::string bad : {std::string("space/third") + id.substr(id.find("/n=")), id + "/extra=1", id.substr(0, id.rfind('/')),
                          "other/" + id.substr(id.find('/') + 1), id.substr(0, id.find("/bx=")) + "/bx=20" + id.substr(id.find("/by=")),
                          id.substr(0, id.find("/bx=")) + "/bx=x" + id.substr(id.find("/by="))})
    EXPECT_FALSE(point_with_id(spec, builtin_registry(), bad)) << bad;
  std::string ruled_out = id.substr(0, id.find("/bx=")) + "/bx=256/by=4" + id.substr(id.find("/tx="));  // bx * by > 512
  EXPECT_FALSE(point_with_id(spec, builtin_registry(), ruled_out)) << ruled_out;
}

TEST(CountedSweep, ASampleIsTheDrawTheExpandedListGives) {
  SweepSpec spec = medium_space().parse();
  std::vector<Point> expanded = expand_sweep(spec, builtin_registry());
  CountedSweep counted(spec, builtin_registry());
  for (std::uint64_t seed : {1u, 7u, 12345u})
    for (bool in_order : {true, false}) {
      RandomSample listed(expanded, 60, seed, in_order);
      EXPECT_EQ(ids(counted.sample(60, seed, in_order)), ids(listed.points())) << seed << in_order;
    }
  EXPECT_EQ(counted.sample(expanded.size() + 5, 3, true).size(), expanded.size()) << "at most every point, each once";
}

TEST(CountedSweep, RestrictionsSummaryCountsWhatEachRuleOutAsTheExpansionDoes) {
  SweepSpec spec = medium_space().parse();
  SweepSpec open = spec;
  open.restrictions.clear();
  std::vector<Point> all = expand_sweep(open, builtin_registry());
  std::size_t unrestricted = 0;
  std::vector<std::size_t> removed = restriction_removals(spec, builtin_registry(), unrestricted);
  ASSERT_EQ(unrestricted, all.size());
  for (std::size_t r = 0; r < spec.restrictions.size(); ++r) {
    std::size_t expected = 0;
    for (const auto& point : all) expected += !spec.restrictions[r].allows(point.params);
    EXPECT_EQ(removed[r], expected) << spec.restrictions[r].text;
  }
}

// 12 axes, about 10^8 combinations, a dozen restrictions: counted exactly (checked against a plain
// loop over every combination here), its points built and sampled, the config validated, all
// without a list of its points.
TEST(CountedSweep, AHundredMillionCombinationsAreCountedNotExpanded) {
  std::vector<std::int64_t> b = {8, 16, 32, 64, 128, 256, 512, 1024}, t = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, u = {1, 2, 4, 8}, w = {1, 2, 4},
                             bit = {0, 1}, c = {0, 1, 2, 3, 4, 5, 6, 7};
  ordered_json axes = {{"bx", b}, {"by", b}, {"tx", t}, {"ty", t}, {"ux", u}, {"uy", u}, {"vw", w}, {"ldg", bit}, {"swap", bit},
                       {"stride", bit}, {"prefetch", bit}, {"hint", c}};
  std::vector<std::string> rules = {"bx * by <= 1024", "bx * by >= 64", "tx % vw == 0", "tx % ux == 0", "ty % uy == 0",
                                    "bx * tx <= 2048", "by * ty <= 256", "tx * ty <= 32", "prefetch == 0 || tx * ty <= 16",
                                    "ldg == 0 || hint == 0", "stride == 0 || tx > 1", "swap == 0 || bx == by"};
  SpaceConfig config(axes, rules, {{"n", {1 << 20}}});
  config.doc["kernels"].erase("second");
  SweepSpec spec = config.parse();
  std::uint64_t expected = 0;  // the same rules as plain C++, over every combination
  for (auto bx : b) for (auto by : b) for (auto tx : t) for (auto ty : t) for (auto ux : u) for (auto uy : u) for (auto vw : w)
    for (auto ldg : bit) for (auto swap : bit) for (auto stride : bit) for (auto prefetch : bit) for (auto hint : c)
      expected += bx * by <= 1024 && bx * by >= 64 && tx % vw == 0 && tx % ux == 0 && ty % uy == 0 && bx * tx <= 2048 &&
                  by * ty <= 256 && tx * ty <= 32 && (prefetch == 0 || tx * ty <= 16) && (ldg == 0 || hint == 0) &&
                  (stride == 0 || tx > 1) && (swap == 0 || bx == by);
  CountedSweep counted(spec, builtin_registry());
  EXPECT_EQ(counted.size(), expected);
  EXPECT_GT(expected, 100000u);
  for (const auto& point : counted.sample(200, 5, false))
    for (const auto& r : spec.restrictions) EXPECT_TRUE(r.allows(point.params)) << point.id << " " << r.text;
  int code = -1;
  std::string out = testing_support::run_cli_out({"validate", config.path()}, code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find(fmt::format("{} points", expected)), std::string::npos) << out;
}

// The command on a sweep too large to expand: run --dry-run counts it and lists its first points, a
// random sample and a search's candidates are drawn from its count, plan plans a sample.
TEST(CountedSweep, TheCommandCountsALargeSweepListsItsStartAndDrawsFromIt) {
  ordered_json axes = {{"a", std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, {"b", std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
                       {"c", std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, {"d", std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
                       {"e", std::vector<int>{0, 1}},  {"f", std::vector<int>{0, 1, 2, 3, 4}}, {"g", std::vector<int>{0, 1}}};
  SpaceConfig config(axes, {"a + b <= 15", "c != d", "e == 0 || f > 0"}, {{"n", {4096}}});
  config.doc["kernels"].erase("second");
  std::string path = config.path();
  std::uint64_t valid = count_sweep(config.parse(), builtin_registry());
  ASSERT_GT(valid, kExpandedUpTo);
  int code = -1;
  std::string out = testing_support::run_cli_out({"run", path, "--dry-run"}, code);
  EXPECT_EQ(code, 0) << out;
  EXPECT_NE(out.find(fmt::format("{} point(s) would run; the first 1000:", valid)), std::string::npos) << out.substr(0, 300);
  EXPECT_NE(out.find(fmt::format("... and {} more", valid - 1000)), std::string::npos);
  EXPECT_NE(out.find("k/first/n=4096/a=1/b=1/c=1/d=2/e=0/f=0/g=0\n"), std::string::npos) << "the first point, in sweep order";
  out = testing_support::run_cli_out({"run", path, "--dry-run", "--strategy", "random", "--max-points", "4", "--seed", "9"}, code);
  EXPECT_NE(out.find(": 4 point(s) would run"), std::string::npos) << out;
  SweepSpec spec = config.parse();
  CountedSweep counted(spec, builtin_registry());
  for (const auto& point : counted.sample(4, 9, true)) EXPECT_NE(out.find(point.id + "\n"), std::string::npos) << point.id;
  out = testing_support::run_cli_out({"run", path, "--dry-run", "--strategy", "local", "--max-points", "20"}, code);
  EXPECT_NE(out.find(fmt::format("the sweep has {} valid point(s); the search chooses among a uniform sample of {}", valid,
                                 kSearchCandidatesAtMost)),
            std::string::npos)
      << out;
  out = testing_support::run_cli_out({"plan", path, "--gpu", "h100", "--out", (config.dir / "plan").string()}, code);
  EXPECT_EQ(code, 0) << out.substr(0, 500);
  EXPECT_NE(out.find(fmt::format("planning a uniform sample of {} of them", kPlannedAtMost)), std::string::npos) << out.substr(0, 500);
  EXPECT_NE(out.find(fmt::format("{} planned, 0 skipped, 0 failed", kPlannedAtMost)), std::string::npos);
}

struct BoundedCase {
  std::vector<std::string> args;
  int code;
  std::string says;
};

// Runs each command in a child whose peak resident memory is read back (1 GiB at most, the
// parent's pages included), and expects its exit code and words.
void expect_bounded_memory(const std::vector<BoundedCase>& cases) {
  for (const auto& c : cases) {
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    pid_t child = ::fork();
    if (child == 0) {
      ::close(pipe_fds[0]);
      int code = -1;
      std::string out = testing_support::run_cli_out(c.args, code);
      (void)!::write(pipe_fds[1], out.data(), out.size());
      ::_exit(code);
    }
    ::close(pipe_fds[1]);
    std::string out;
    char buffer[4096];
    for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, std::size_t(got));
    ::close(pipe_fds[0]);
    int status = 0;
    struct rusage usage {};
    ASSERT_EQ(::wait4(child, &status, 0, &usage), child);
    std::string what = fmt::format("{}", fmt::join(c.args, " "));
    ASSERT_TRUE(WIFEXITED(status)) << what;
    EXPECT_EQ(WEXITSTATUS(status), c.code) << what << "\n" << out.substr(0, 600);
    EXPECT_NE(out.find(c.says), std::string::npos) << what << "\n" << out.substr(0, 600);
    EXPECT_LE(usage.ru_maxrss, 1024L * 1024) << what << ": peak resident memory in KiB";
  }
}

SpaceConfig ten_billion_space() {
  ordered_json axes = ordered_json::object();
  for (int a = 0; a < 10; ++a) axes["p" + std::to_string(a)] = std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  SpaceConfig config(axes, {"p0 + p1 > 5"}, {{"n", {4096}}});
  config.doc["kernels"].erase("second");
  return config;
}

// Every command on a space of 10^10 combinations answers, or refuses it at once naming what is too
// large, in bounded memory. A --shard of such a space grew to 12 GB, a --filter and plan's
// compile workers listed all of it. (The time bound lives in a benchmark: a loaded CI machine.)
TEST(CountedSweep, EveryCommandAnswersATenBillionPointSpaceInBoundedMemory) {
  SpaceConfig config = ten_billion_space();
  std::string path = config.path(), plan_out = (config.dir / "plan").string();
  expect_bounded_memory({
      {{"validate", path}, 0, "9000000000 points"},
      {{"run", path, "--dry-run"}, 0, "... and 8999999000 more"},
      {{"run", path, "--dry-run", "--strategy", "random", "--max-points", "5"}, 0, "5 point(s) would run"},
      {{"run", path, "--dry-run", "--strategy", "local", "--max-points", "5"}, 0, "uniform sample"},
      {{"run", path, "--dry-run", "--shard", "3/7"}, 2, "--shard 3/7: a sweep of at most 2000000 points"},
      {{"run", path, "--dry-run", "--filter", "p0=3"}, 2, "--filter p0=3: a sweep of at most 2000000 points"},
      {{"plan", path, "--gpu", "h100", "--out", plan_out}, 0, "planning a uniform sample"}});
}

// A templated kernel's names are listed before anything runs (one NVRTC compilation serves them):
// over the axes its name and defines read, not the whole space, which grew past 4 GB (the fuzzer's
// config with eight more axes of ten values). Past 100,000 names it is refused, naming them.
TEST(CountedSweep, ATemplatedKernelListsOnlyTheNamesItsAxesMake) {
  SpaceConfig config = ten_billion_space();
  std::ofstream(config.dir / "k.cu") << "template <int P> __global__ void k(float* out, unsigned n) { unsigned i = "
                                        "blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = P * D; }\n";
  config.doc["kernels"]["first"]["kernel"] = "k<{p0}>";
  config.doc["kernels"]["first"]["defines"] = {{"D", "p1"}};
  std::string path = config.path(), plan_out = (config.dir / "plan").string();
  expect_bounded_memory({{{"validate", path}, 0, "9000000000 points"},
                         {{"run", path, "--dry-run"}, 0, "... and 8999999000 more"},
                         {{"plan", path, "--gpu", "h100", "--out", plan_out}, 0, "planning a uniform sample"}});
  config.doc["kernels"]["first"]["kernel"] = "k<{p0} + {p2} + {p3} + {p4} + {p5}>";
  path = config.path();
  expect_bounded_memory({{{"validate", path},
                          2,
                          "$.kernels.first.kernel: the kernel's name and defines read p0, p1, p2, p3, p4, p5 (1e+06 "
                          "combinations of their values); expected at most 100000"}});
}

}  // namespace
}  // namespace occbench

namespace occbench {
namespace {

// run --resume checks each record's point against the stored sweep by its id (not by expanding a
// sweep that may hold 10^8 points): a log with another sweep's point is refused, naming the record.
TEST(CountedSweep, AResumedLogsPointsAreCheckedByIdAlone) {
  fs::path dir = fs::temp_directory_path() / fmt::format("occbench_counted_resume_{}", ::getpid());
  fs::create_directories(dir);
  std::ifstream in(std::string(OCCBENCH_SOURCE_DIR) + "/results/reference/h100/adjacent_difference.jsonl");
  std::ofstream good(dir / "good.jsonl"), bad(dir / "bad.jsonl");
  std::string line;
  for (int n = 0; std::getline(in, line) && n < 3; ++n) {
    good << line << "\n";
    auto record = ordered_json::parse(line);
    if (n == 2) record["point_id"] = "adjacent_difference/host/n=12345";
    bad << record.dump() << "\n";
  }
  good.close(), bad.close();
  int code = -1;
  std::string out = testing_support::run_cli_out({"run", "--resume", (dir / "good.jsonl").string(), "--dry-run"}, code);
  EXPECT_EQ(code, 0) << out;
  out = testing_support::run_cli_out({"run", "--resume", (dir / "bad.jsonl").string(), "--dry-run"}, code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("record 2: point adjacent_difference/host/n=12345 is not a point of the sweep"), std::string::npos) << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace occbench

namespace occbench {
namespace {

// The committed example spaces count as a plain loop over their combinations does: the GEMM of a
// public autotuning benchmark (BAT's, CLTune's parameters: 20,736 combinations, 10,312 kept) and a
// space of 100,663,296 combinations (223,956 kept, as the test above counts it).
TEST(CountedSweep, TheExampleLargeSpacesValidateWithTheirCounts) {
  const std::string dir = std::string(OCCBENCH_SOURCE_DIR) + "/examples/search/large_space/";
  for (const auto& [file, points] : {std::pair<std::string, int>{"gemm_space.json", 10312}, {"large_space.json", 223956}}) {
    int code = -1;
    std::string out = testing_support::run_cli_out({"validate", dir + file}, code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_NE(out.find(fmt::format(", {} points", points)), std::string::npos) << out;
  }
}

}  // namespace
}  // namespace occbench

namespace occbench {
namespace {

// 20 axes of ten values hold 10^20 combinations, past a 64-bit count: refused naming $.axes (exit
// 2), not reported as 7766279631452241920 points (10^20 wrapped at 2^64); 19 axes (10^19) fit.
TEST(CountedSweep, ACountPast64BitsIsRefusedNotWrapped) {
  ordered_json axes = ordered_json::object();
  for (int i = 0; i < 19; ++i) axes[fmt::format("a{}", i)] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  SpaceConfig fits(axes, {}, {{"n", {1024}}});
  fits.doc["variants"] = {"first"};
  EXPECT_EQ(count_sweep(fits.parse(), builtin_registry()), 10000000000000000000ull);
  axes["a19"] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  SpaceConfig past(axes, {}, {{"n", {1024}}});
  past.doc["variants"] = {"first"};
  try {
    count_sweep(past.parse(), builtin_registry());
    ADD_FAILURE() << "counted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.json_path(), "$.axes");
    EXPECT_NE(std::string(e.what()).find("18446744073709551615 (2^64 - 1)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace occbench

namespace occbench {
namespace {

// Restrictions that tie far-apart axes together leave the count nothing to remember: such a
// space (3.6 * 10^9 combinations of eight ten-valued axes and two launch axes) ran for minutes
// and grew to 24 GB; it is refused after a bounded number of steps, naming $.restrictions, with
// the memory kept bounded.
TEST(CountedSweep, ASpaceTooCostlyToCountIsRefusedWithinABoundedNumberOfSteps) {
  ordered_json axes = ordered_json::object();
  for (int i = 0; i < 8; ++i) axes[fmt::format("p{}", i)] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  axes["bx"] = {32, 64, 128, 256, 512, 1024};
  axes["by"] = {1, 2, 4, 8, 16, 32};
  SpaceConfig tied(axes,
                   {"p0 + p7 != 5", "p1 * p6 % 3 != 1", "p2 + p5 + p0 != 7", "p3 != p4 || p7 > 2", "p4 * p1 % 4 != 2",
                    "p5 + p6 + p7 < 20", "p6 != p0 || p2 < 5", "p7 * p3 % 5 != 3", "bx * by <= 1024", "p0 + p1 + p2 + p3 != 11",
                    "p4 + p5 + p6 + p7 != 13", "bx >= 64 || p2 + p6 != 9"},
                   {{"n", {1024}}});
  tied.doc["variants"] = {"first"};
  try {
    count_sweep(tied.parse(), builtin_registry());
    ADD_FAILURE() << "counted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.json_path(), "$.restrictions");
    EXPECT_NE(std::string(e.what()).find("at most 250000 steps"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace occbench
