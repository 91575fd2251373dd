// Shards of a sweep (--shard K/N, auto from Slurm), merging shard outputs (occbench merge), the
// claims that hand points to run --devices workers, and --devices parsing. No GPU needed.
#include "harness/cli/cli.hpp"
#include "data_dir.hpp"
#include "harness/records/merge.hpp"
#include "harness/run/multi_device.hpp"
#include "harness/records/report.hpp"
#include "harness/sweep/selection.hpp"
#include "harness/sweep/shard.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/sweep/claims.hpp"
#include "harness/sweep/config.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <thread>

using namespace occbench;
namespace fs = std::filesystem;

namespace {

const std::string kConfigs = std::string(OCCBENCH_SOURCE_DIR) + "/configs/";

std::vector<Point> points_of(const std::string& config) {
  return expand_sweep(parse_sweep_file(kConfigs + config, builtin_registry()), builtin_registry());
}

std::map<std::string, int> shard_by_id(const std::vector<Point>& points, const MeasurementSettings& settings, int count) {
  std::vector<int> shard_of = assign_shards(points, settings, count);
  std::map<std::string, int> by_id;
  for (std::size_t i = 0; i < points.size(); ++i) by_id[points[i].id] = shard_of[i];
  return by_id;
}

int cli(std::vector<std::string> args) {
  args.insert(args.begin(), "occbench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return cli_main(int(argv.size()), argv.data(), builtin_registry());
}

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("occbench_shard_merge_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The one file with this extension in `dir`.
std::string only_file(const fs::path& dir, const std::string& extension) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == extension) found.push_back(entry.path().string());
  EXPECT_EQ(found.size(), 1u) << dir;
  return found.empty() ? "" : found.front();
}

// `occbench plan CONFIG --shard K/N` for every K into dir/shardK; returns the documents' paths.
std::vector<std::string> plan_shards(const std::string& config, int count, const fs::path& dir) {
  std::vector<std::string> paths;
  for (int k = 0; k < count; ++k) {
    fs::path out = dir / ("shard" + std::to_string(k));
    EXPECT_EQ(cli({"plan", kConfigs + config, "--gpu", "h100", "--shard", std::to_string(k) + "/" + std::to_string(count),
                   "--out", out.string()}), kExitOk);
    paths.push_back(only_file(out, ".json"));
  }
  return paths;
}

}  // namespace

TEST(Shard, ParsesKOverN) {
  ShardSpec shard = parse_shard("2/5", {});
  EXPECT_EQ(shard.index, 2);
  EXPECT_EQ(shard.count, 5);
  EXPECT_EQ(shard.text(), "2/5");
  for (const char* bad : {"5/5", "1/0", "-1/2", "a/b", "3", "1/2/3", "", "0/ 2"})
    EXPECT_THROW(parse_shard(bad, {}), ConfigError) << bad;
}

TEST(Shard, AutoReadsSlurmArrayThenProcid) {
  ShardSpec array = parse_shard("auto", {{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_COUNT", "4"},
                                         {"SLURM_ARRAY_TASK_MIN", "3"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}});
  EXPECT_EQ(array.index, 2);
  EXPECT_EQ(array.count, 4);
  ShardSpec stepped = parse_shard("auto", {{"SLURM_ARRAY_TASK_ID", "7"}, {"SLURM_ARRAY_TASK_COUNT", "4"},
                                           {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_STEP", "2"}});
  EXPECT_EQ(stepped.index, 3);
  ShardSpec tasks = parse_shard("auto", {{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "8"}});
  EXPECT_EQ(tasks.index, 3);
  EXPECT_EQ(tasks.count, 8);
  EXPECT_THROW(parse_shard("auto", {}), ConfigError);
  EXPECT_THROW(parse_shard("auto", {{"SLURM_ARRAY_TASK_ID", "4"}}), ConfigError);  // no count
  EXPECT_THROW(parse_shard("auto", {{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}), ConfigError);
  EXPECT_THROW(parse_shard("auto", {{"SLURM_PROCID", "x"}, {"SLURM_NTASKS", "2"}}), ConfigError);
}

TEST(Shard, DisjointCompleteAndBalanced) {
  for (const char* config : {"covariance_chunk_sweep.json", "stencil.json", "transpose.json", "matmul.json"}) {
    SweepSpec spec = parse_sweep_file(kConfigs + config, builtin_registry());
    std::vector<Point> all = expand_sweep(spec, builtin_registry());
    for (int count : {1, 2, 3, 5, 16}) {
      std::multiset<std::string> seen;
      std::vector<double> load(std::size_t(count), 0.0);
      double largest = 0;
      for (int k = 0; k < count; ++k)
        for (const auto& point : select_shard(all, spec.measurement, {k, count})) {
          seen.insert(point.id);
          double cost = estimated_point_seconds(point, spec.measurement);
          load[std::size_t(k)] += cost;
          largest = std::max(largest, cost);
        }
      std::multiset<std::string> expected;
      for (const auto& point : all) expected.insert(point.id);
      EXPECT_EQ(seen, expected) << config << " in " << count << " shards: each point exactly once";
      // Longest first to the least loaded: no shard exceeds another by more than one unit's cost
      // (a unit is a point, or a problem size's points when there are many sizes).
      if (all.size() >= std::size_t(4 * count) && std::string(config) != "transpose.json") {
        auto [low, high] = std::minmax_element(load.begin(), load.end());
        EXPECT_LE(*high - *low, largest * 1.0001) << config << " in " << count << " shards";
      }
    }
  }
}

// The estimate counts the cold samples the range profiler will time, as profiled_sample_count
// decides them: the config's profiled_samples, or OCCBENCH_TIMING_SOURCE=profiler's 10.
TEST(Shard, EstimateCountsTheProfiledSamplesTheRunWillTake) {
  SweepSpec spec = parse_sweep_file(kConfigs + "stencil.json", builtin_registry());
  Point point = expand_sweep(spec, builtin_registry()).front();
  unsetenv("OCCBENCH_TIMING_SOURCE");
  double plain = estimated_point_seconds(point, spec.measurement);
  setenv("OCCBENCH_TIMING_SOURCE", "profiler", 1);
  double by_env = estimated_point_seconds(point, spec.measurement);
  MeasurementSettings twenty = spec.measurement;
  twenty.profiled_samples = 20;
  double by_config = estimated_point_seconds(point, twenty);
  setenv("OCCBENCH_TIMING_SOURCE", "event", 1);  // =event never profiles
  double by_events = estimated_point_seconds(point, twenty);
  unsetenv("OCCBENCH_TIMING_SOURCE");
  EXPECT_GT(by_env - plain, 10 * 5e-3 * 0.999);
  EXPECT_NEAR((by_config - plain) / (by_env - plain), 2.0, 1e-9);
  EXPECT_DOUBLE_EQ(by_events, plain);
}

TEST(Shard, IndependentOfPointOrder) {
  SweepSpec spec = parse_sweep_file(kConfigs + "stencil.json", builtin_registry());
  std::vector<Point> points = expand_sweep(spec, builtin_registry());
  auto reference = shard_by_id(points, spec.measurement, 3);
  std::mt19937 shuffler(7);
  for (int trial = 0; trial < 5; ++trial) {
    std::shuffle(points.begin(), points.end(), shuffler);
    EXPECT_EQ(shard_by_id(points, spec.measurement, 3), reference);
  }
  std::reverse(points.begin(), points.end());
  EXPECT_EQ(shard_by_id(points, spec.measurement, 3), reference);
}

TEST(Shard, ManyProblemSizesStayWhole) {
  // transpose has 4 problem sizes: in 2 shards each size's points share one shard (one problem built).
  SweepSpec spec = parse_sweep_file(kConfigs + "transpose.json", builtin_registry());
  std::vector<Point> points = expand_sweep(spec, builtin_registry());
  std::vector<int> shard_of = assign_shards(points, spec.measurement, 2);
  std::map<std::string, std::set<int>> shards_of_size;
  for (std::size_t i = 0; i < points.size(); ++i) shards_of_size[points[i].sizes.to_string()].insert(shard_of[i]);
  ASSERT_EQ(shards_of_size.size(), 4u);
  std::set<int> used;
  for (const auto& [sizes, shards] : shards_of_size) {
    EXPECT_EQ(shards.size(), 1u) << sizes;
    used.insert(*shards.begin());
  }
  EXPECT_EQ(used.size(), 2u);
}

TEST(Shard, CommandLineShardRecordedAndResumable) {
  fs::path dir = fresh_dir("recorded");
  ASSERT_EQ(cli({"plan", kConfigs + "stencil.json", "--gpu", "h100", "--shard", "1/4", "--out", dir.string()}), kExitOk);
  ordered_json doc = read_json_file(only_file(dir, ".json"));
  EXPECT_EQ(doc["run"]["selection"]["shard"], "1/4");
  SweepSpec spec = parse_sweep_file(kConfigs + "stencil.json", builtin_registry());
  EXPECT_EQ(doc["results"].size(), select_shard(expand_sweep(spec, builtin_registry()), spec.measurement, {1, 4}).size());
  EXPECT_EQ(cli({"plan", kConfigs + "stencil.json", "--shard", "4/4"}), kExitBadInput);
  EXPECT_EQ(cli({"run", kConfigs + "stencil.json", "--dry-run", "--shard", "x"}), kExitBadInput);
}

TEST(Merge, ShardsJoinToTheWholeSweepInItsOrder) {
  fs::path dir = fresh_dir("join");
  std::vector<std::string> shards = plan_shards("covariance_chunk_sweep.json", 3, dir);
  ASSERT_EQ(cli({"plan", kConfigs + "covariance_chunk_sweep.json", "--gpu", "h100", "--out", (dir / "whole").string()}), kExitOk);
  ordered_json whole = read_json_file(only_file(dir / "whole", ".json"));
  // Inputs in any order give the sweep's order.
  std::vector<std::string> args = {"merge", (dir / "merged.json").string(), shards[2], shards[0], shards[1]};
  ASSERT_EQ(cli(args), kExitOk);
  ordered_json merged = read_json_file((dir / "merged.json").string());
  ASSERT_EQ(merged["results"].size(), whole["results"].size());
  for (std::size_t i = 0; i < whole["results"].size(); ++i)
    EXPECT_EQ(merged["results"][i]["point_id"], whole["results"][i]["point_id"]);
  EXPECT_EQ(merged["devices"].size(), 3u);  // one device record per input
  EXPECT_EQ(merged["device"], merged["devices"][0]);
  std::set<int> devices;
  for (const auto& r : merged["results"]) devices.insert(r["device"].get<int>());
  EXPECT_EQ(devices, (std::set<int>{0, 1, 2}));
  EXPECT_EQ(merged["run"]["kind"], "merge");
  EXPECT_TRUE(fs::exists(dir / "merged.csv"));
  EXPECT_NO_THROW(load_results_file((dir / "merged.json").string()));  // report and compare read it

  // A merged .jsonl reads back to the same points, and merges again (keeping its device indices).
  ASSERT_EQ(cli({"merge", (dir / "merged.jsonl").string(), shards[2], shards[0], shards[1]}), kExitOk);
  ShardOutput again = read_shard_output((dir / "merged.jsonl").string());
  EXPECT_EQ(again.results.size(), whole["results"].size());
  EXPECT_EQ(again.devices.size(), 3u);
  ASSERT_EQ(cli({"merge", (dir / "twice.json").string(), (dir / "merged.jsonl").string()}), kExitOk);
  EXPECT_EQ(read_json_file((dir / "twice.json").string())["results"], merged["results"]);
}

TEST(Merge, MoreShardsThanPointsLeavesEmptyShardsThatStillMerge) {
  fs::path dir = fresh_dir("empty");
  std::vector<std::string> shards = plan_shards("matmul.json", 9, dir);  // 7 points
  std::vector<std::string> args = {"merge", (dir / "merged.json").string()};
  args.insert(args.end(), shards.begin(), shards.end());
  ASSERT_EQ(cli(args), kExitOk);
  ordered_json merged = read_json_file((dir / "merged.json").string());
  EXPECT_EQ(merged["results"].size(), points_of("matmul.json").size());
  EXPECT_EQ(merged["devices"].size(), 9u);
}

TEST(Merge, RefusesOtherSweepsBuildsDuplicatesAndBadFiles) {
  fs::path dir = fresh_dir("refuse");
  std::vector<std::string> shards = plan_shards("stencil.json", 2, dir);
  std::vector<std::string> other = plan_shards("stencil_1921x1081.json", 2, dir / "other");
  fs::path out = dir / "out.json";
  EXPECT_EQ(cli({"merge", out.string(), shards[0], other[1]}), kExitBadInput);  // another config
  EXPECT_EQ(cli({"merge", out.string(), shards[0], shards[0]}), kExitBadInput);  // every point twice
  ordered_json newer = read_json_file(shards[1]);
  newer["tool"]["git_commit"] = "0000000";
  write_text_file((dir / "newer.json").string(), newer.dump());
  EXPECT_EQ(cli({"merge", out.string(), shards[0], (dir / "newer.json").string()}), kExitBadInput);  // another build
  write_text_file((dir / "broken.json").string(), "{\"schema_version\": 1,");
  EXPECT_EQ(cli({"merge", out.string(), shards[0], (dir / "broken.json").string()}), kExitBadInput);
  EXPECT_EQ(cli({"merge", out.string(), shards[0], (dir / "missing.jsonl").string()}), kExitBadInput);
  EXPECT_EQ(cli({"merge", (dir / "out.txt").string(), shards[0], shards[1]}), kExitBadInput);
  EXPECT_EQ(cli({"merge", shards[0], shards[0], shards[1]}), kExitBadInput);  // would overwrite an input
  EXPECT_FALSE(fs::exists(out)) << "nothing is written when an input is refused";
  EXPECT_EQ(cli({"merge", out.string(), shards[0], shards[1]}), kExitOk);
}

TEST(MultiDevice, ParsesDeviceLists) {
  EXPECT_EQ(parse_device_list("0,1", 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(parse_device_list("1", 2), (std::vector<int>{1}));
  EXPECT_EQ(parse_device_list("all", 3), (std::vector<int>{0, 1, 2}));
  for (const char* bad : {"2", "0,0", "x", "0,", "", "-1"}) EXPECT_THROW(parse_device_list(bad, 2), ConfigError) << bad;
  EXPECT_THROW(parse_device_list("all", 0), ConfigError);
}

TEST(MultiDevice, EachPointIsClaimedOnce) {
  fs::path dir = fresh_dir("claims");
  EXPECT_TRUE(claim_point(dir.string(), "stencil/global/width=4096/filter_size=3"));
  EXPECT_FALSE(claim_point(dir.string(), "stencil/global/width=4096/filter_size=3"));
  EXPECT_TRUE(claim_point(dir.string(), "stencil/global/width=4096/filter_size=31"));
  EXPECT_TRUE(claim_point(dir.string(), "stencil/global width=4096"));  // a space is not a slash
  mark_claimed(dir.string(), {"a/b", "a/b"});
  EXPECT_FALSE(claim_point(dir.string(), "a/b"));
}

TEST(MultiDevice, PointsClaimedButNeverRecordedAreNamed) {
  fs::path dir = fresh_dir("claims_held");
  claim_point(dir.string(), "stencil/global/width=4096/filter_size=3");
  claim_point(dir.string(), "stencil/global width=4096/filter_size=5");  // a space, encoded in the file name
  claim_point(dir.string(), "stencil/shared/width=4096/filter_size=3");
  ASSERT_TRUE(claim_group(dir.string(), "stencil width=4096", "device0"));
  std::vector<nlohmann::ordered_json> results = {{{"point_id", "stencil/shared/width=4096/filter_size=3"}}};
  EXPECT_EQ(claimed_without_record(dir.string(), results),
            (std::vector<std::string>{"stencil/global width=4096/filter_size=5", "stencil/global/width=4096/filter_size=3"}));
  results.push_back({{"point_id", "stencil/global/width=4096/filter_size=3"}});
  results.push_back({{"point_id", "stencil/global width=4096/filter_size=5"}});
  EXPECT_TRUE(claimed_without_record(dir.string(), results).empty()) << "a group's claim is not a point";
}

// A config's points and their handout groups.
struct ClaimableSweep {
  std::vector<Point> points;
  MeasurementSettings settings;
  std::vector<HandoutGroup> groups;
};

// handout_groups of a config: every point once, each group one problem (and one reference).
ClaimableSweep claimable(const std::string& config, std::size_t& point_count) {
  SweepSpec spec = parse_sweep_file(kConfigs + config, builtin_registry());
  std::vector<Point> points = expand_sweep(spec, builtin_registry());
  point_count = points.size();
  std::vector<HandoutGroup> groups = handout_groups(points, spec.measurement);
  std::set<std::string> ids, keys, sizes_done;
  std::string current_sizes;
  for (const auto& group : groups) {
    EXPECT_TRUE(keys.insert(group.key).second) << group.key;
    std::string sizes = group.points.front().sizes.to_string();
    if (sizes != current_sizes) {
      EXPECT_TRUE(sizes_done.insert(sizes).second) << config << ": " << sizes << " comes back after another size";
      current_sizes = sizes;
    }
    double sum = 0;
    for (std::size_t i = 0; i < group.points.size(); ++i) {
      const Point& point = group.points[i];
      EXPECT_TRUE(ids.insert(point.id).second) << point.id << " in two groups";
      EXPECT_EQ(point.sizes.to_string(), sizes) << point.id;
      for (const auto& axis : point.family->reference_axes)
        EXPECT_EQ(point.params.get(axis), group.points.front().params.get(axis)) << point.id;
      if (i > 0)
        EXPECT_GE(estimated_point_seconds(group.points[i - 1], spec.measurement), estimated_point_seconds(point, spec.measurement));
      sum += estimated_point_seconds(point, spec.measurement);
    }
    EXPECT_NEAR(group.estimated_s, sum, 1e-9 * sum);
  }
  EXPECT_EQ(ids.size(), point_count);
  return {points, spec.measurement, groups};
}

std::vector<HandoutGroup> groups_of(const std::string& config, std::size_t& point_count) {
  return claimable(config, point_count).groups;
}

// A worker's walk: its ClaimSource driven as the run loop drives it (a finished point is kept,
// not measured); once `keep_claiming` says false, the worker's device is lost.
void walk_claims(const ClaimableSweep& sweep, const fs::path& claims, const std::string& owner,
                 const std::set<std::string>& finished, const std::function<void(const Point&)>& prepare,
                 const std::function<void(const Point&)>& measure, const std::function<bool()>& keep_claiming = {}) {
  ClaimSource source(sweep.points, sweep.settings, claims.string(), owner, finished, prepare);
  while (const Point* point = source.next()) {
    if (finished.count(point->id)) continue;
    measure(*point);
    if (keep_claiming && !keep_claiming()) source.device_lost();
  }
}

TEST(MultiDevice, HandoutGroupsShareOneProblemAndReference) {
  std::size_t count = 0;
  // Two sizes, two groups of 17 points; the costlier size (256 M floats) is claimed first.
  std::vector<HandoutGroup> adjacent = groups_of("adjacent_difference.json", count);
  ASSERT_EQ(adjacent.size(), 2u);
  EXPECT_EQ(adjacent[0].key, "n=268435456");
  EXPECT_EQ(adjacent[0].points.size(), 17u);
  EXPECT_GT(adjacent[0].estimated_s, adjacent[1].estimated_s);
  // One size, but the reference depends on filter_size: one group per filter, 2 variants x 6 blocks.
  std::vector<HandoutGroup> stencil = groups_of("stencil.json", count);
  ASSERT_EQ(stencil.size(), 15u);
  for (const auto& group : stencil) EXPECT_EQ(group.points.size(), 12u) << group.key;
  EXPECT_EQ(stencil[0].key, "width=4096 height=4096 filter_size=31");  // the widest window costs most
  for (const char* config : {"covariance_chunk_sweep.json", "transpose.json", "matmul.json", "cost_volume.json"})
    groups_of(config, count);
}

// Two workers walking the groups of a sweep at once (threads over one claims folder).
std::map<std::string, std::vector<std::string>> walk_two_workers(const ClaimableSweep& sweep, const fs::path& claims,
                                                                   const std::set<std::string>& finished) {
  std::map<std::string, std::vector<std::string>> measured;
  std::vector<std::thread> workers;
  for (const std::string owner : {"device0", "device1"}) measured[owner];
  for (auto& [owner, list] : measured)
    workers.emplace_back([&, owner = owner, list = &list] {
      walk_claims(sweep, claims, owner, finished, [](const Point&) {},
                          [&](const Point& point) {
                            list->push_back(point.id);
                            std::this_thread::sleep_for(std::chrono::microseconds(200));
                          });
    });
  for (auto& worker : workers) worker.join();
  return measured;
}

TEST(MultiDevice, WorkersTakeWholeGroupsThenHelp) {
  std::size_t count = 0;
  ClaimableSweep sweep = claimable("stencil.json", count);
  const std::vector<HandoutGroup>& groups = sweep.groups;
  fs::path claims = fresh_dir("walk");
  auto measured = walk_two_workers(sweep, claims, {});
  std::set<std::string> all;
  std::size_t split_groups = 0;
  for (const auto& group : groups) {
    std::set<std::string> owners;
    for (const auto& point : group.points)
      for (const auto& [owner, ids] : measured)
        if (std::count(ids.begin(), ids.end(), point.id)) owners.insert(owner);
    EXPECT_GE(owners.size(), 1u) << group.key << " measured by nobody";
    split_groups += owners.size() > 1;
  }
  for (const auto& [owner, ids] : measured) {
    EXPECT_GT(ids.size(), 0u) << owner << " idled";
    for (const auto& id : ids) EXPECT_TRUE(all.insert(id).second) << id << " measured twice";
  }
  EXPECT_EQ(all.size(), count);
  EXPECT_LE(split_groups, 2u) << "only the last groups are shared";

  // One worker alone takes every group whole, in claim order; a second finds nothing left.
  fs::path alone = fresh_dir("walk_alone");
  std::vector<std::string> order;
  walk_claims(sweep, alone, "device0", {}, [](const Point&) {},
                      [&](const Point& point) { order.push_back(point.id); });
  ASSERT_EQ(order.size(), count);
  EXPECT_EQ(order.front(), groups.front().points.front().id);
  EXPECT_EQ(order.back(), groups.back().points.back().id);
  std::size_t more = 0;
  walk_claims(sweep, alone, "device1", {}, [](const Point&) {}, [&](const Point&) { ++more; });
  EXPECT_EQ(more, 0u);

  // A worker that stops claiming (its CUDA context is lost) after two points leaves every other
  // point unclaimed for the others.
  fs::path stopping = fresh_dir("walk_stopping");
  std::size_t measured_here = 0;
  walk_claims(sweep, stopping, "device0", {}, [](const Point&) {}, [&](const Point&) { ++measured_here; },
                      [&] { return measured_here < 2; });
  EXPECT_EQ(measured_here, 2u);
  std::size_t claimed = 0;
  for (const auto& group : groups)
    for (const auto& point : group.points) claimed += is_claimed(stopping.string(), point.id);
  EXPECT_EQ(claimed, 2u);
}

TEST(MultiDevice, HelperTakesTheCheapEndAndOwnerGoesOnAfterARestart) {
  std::size_t count = 0;
  ClaimableSweep sweep = claimable("covariance_chunk_sweep.json", count);
  const std::vector<HandoutGroup>& groups = sweep.groups;
  ASSERT_EQ(groups.size(), 1u);  // one problem: the second GPU can only help
  const auto& points = groups[0].points;
  fs::path claims = fresh_dir("help");
  // device0 holds the group and measures its slowest point; device1 helps from the cheap end.
  ASSERT_TRUE(claim_group(claims.string(), groups[0].key, "device0"));
  ASSERT_TRUE(claim_point(claims.string(), points.front().id));
  std::vector<std::string> helped;
  std::size_t prepared = 0;
  walk_claims(sweep, claims, "device1", {}, [&](const Point&) { ++prepared; },
                      [&](const Point& point) { helped.push_back(point.id); });
  EXPECT_EQ(prepared, 1u) << "the problem is built once, before the claims";
  ASSERT_EQ(helped.size(), points.size() - 1);
  EXPECT_EQ(helped.front(), points.back().id);
  // A worker restarted on its own device (the supervisor) goes on with its group; others do not get it.
  fs::path restart = fresh_dir("restart");
  ASSERT_TRUE(claim_group(restart.string(), groups[0].key, "device0"));
  EXPECT_TRUE(claim_group(restart.string(), groups[0].key, "device0"));
  EXPECT_FALSE(claim_group(restart.string(), groups[0].key, "device1"));
  // A resumed run: finished points are never measured again, and a group with one open point is
  // left to its owner.
  std::set<std::string> finished;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) finished.insert(points[i].id);
  std::size_t again = 0;
  walk_claims(sweep, restart, "device1", finished, [](const Point&) {}, [&](const Point&) { ++again; });
  EXPECT_EQ(again, 0u);
  std::vector<std::string> owner;
  walk_claims(sweep, restart, "device0", finished, [](const Point&) {},
                      [&](const Point& point) { owner.push_back(point.id); });
  EXPECT_EQ(owner, std::vector<std::string>{points.back().id});
}

// A tuning space's points mostly cost the same: shards must then be representative, not a stride
// through the points' order (the first of 20 shards of a GEMM space held one value of two of its
// parameters). Each of 20 shards of Kernel Tuner's convolution space (2834 points) holds every
// value of every parameter.
TEST(Shard, EqualCostsGiveEachShardEveryValueOfEveryAxis) {
  SweepSpec spec = parse_sweep_file(std::string(OCCBENCH_SOURCE_DIR) + "/examples/kernel_tuner/convolution/convolution.json",
                                    builtin_registry());
  std::vector<Point> all = expand_sweep(spec, builtin_registry());
  std::map<std::string, std::set<std::int64_t>> values;
  for (const auto& point : all)
    if (point.variant->name == "tiled")
      for (const auto& [name, value] : point.params.items()) values[name].insert(value);
  for (int k = 0; k < 20; ++k) {
    std::map<std::string, std::set<std::int64_t>> held;
    for (const auto& point : select_shard(all, spec.measurement, {k, 20}))
      if (point.variant->name == "tiled")
        for (const auto& [name, value] : point.params.items()) held[name].insert(value);
    for (const auto& [name, all_values] : values)
      EXPECT_EQ(held[name], all_values) << "shard " << k << "/20, " << name;
  }
}
