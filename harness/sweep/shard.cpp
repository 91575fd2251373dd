#include "harness/sweep/shard.hpp"

#include "harness/core/hash.hpp"

#include <functional>
#include <queue>
#include <utility>

#include "harness/family/random_hash.hpp"

#include "harness/measure/timer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>

extern char** environ;

namespace occbench {

namespace {

constexpr int kMaxShards = 65536;

ConfigError shard_error(const std::string& text, const std::string& expected) {
  return ConfigError("command line", "--shard " + text, expected);
}

// A whole non-negative number, or nullopt.
std::optional<long> whole_number(const std::string& text) {
  if (text.empty() || text.size() > 9 || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  return std::stol(text);
}

}  // namespace

std::string ShardSpec::text() const { return fmt::format("{}/{}", index, count); }

ShardSpec parse_shard(const std::string& text, const std::map<std::string, std::string>& environment) {
  auto get = [&](const char* name) -> std::optional<std::string> {
    auto it = environment.find(name);
    if (it == environment.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
  auto number = [&](const char* name) {
    auto value = whole_number(*get(name));
    if (!value) throw shard_error(text, fmt::format("{}={} is not a whole number", name, *get(name)));
    return *value;
  };
  ShardSpec shard;
  if (text == "auto") {
    if (get("SLURM_ARRAY_TASK_ID")) {
      // An array job: one shard per array task; ids may start above 0 and step (--array=1-9:2).
      if (!get("SLURM_ARRAY_TASK_COUNT"))
        throw shard_error(text, "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not");
      long id = number("SLURM_ARRAY_TASK_ID"), count = number("SLURM_ARRAY_TASK_COUNT");
      long min = get("SLURM_ARRAY_TASK_MIN") ? number("SLURM_ARRAY_TASK_MIN") : 0;
      long step = get("SLURM_ARRAY_TASK_STEP") ? number("SLURM_ARRAY_TASK_STEP") : 1;
      if (step < 1 || id < min || (id - min) % step != 0)
        throw shard_error(text, fmt::format("SLURM_ARRAY_TASK_ID={} is not SLURM_ARRAY_TASK_MIN={} plus a multiple of "
                                            "SLURM_ARRAY_TASK_STEP={}", id, min, step));
      shard.index = int((id - min) / step);
      shard.count = int(count);
    } else if (get("SLURM_PROCID") && get("SLURM_NTASKS")) {
      shard.index = int(number("SLURM_PROCID"));
      shard.count = int(number("SLURM_NTASKS"));
    } else {
      throw shard_error(text, "a Slurm task: SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (an array job), or "
                              "SLURM_PROCID with SLURM_NTASKS (srun); none is set. Outside Slurm give --shard K/N");
    }
  } else {
    auto slash = text.find('/');
    auto k = slash == std::string::npos ? std::nullopt : whole_number(text.substr(0, slash));
    auto n = slash == std::string::npos ? std::nullopt : whole_number(text.substr(slash + 1));
    if (!k || !n) throw shard_error(text, "K/N with whole numbers, 0 <= K < N (e.g. 0/4), or auto (from Slurm)");
    shard.index = int(*k);
    shard.count = int(*n);
  }
  if (shard.count > kMaxShards)
    throw shard_error(text, fmt::format("at most {} shards (more than any cluster runs a sweep on), got {}", kMaxShards, shard.count));
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    throw shard_error(text, fmt::format("shard index {} of {}: expected 0 <= K < N (K is 0-based, as SLURM_PROCID)",
                                        shard.index, shard.count));
  return shard;
}

ShardSpec parse_shard(const std::string& text) {
  std::map<std::string, std::string> environment;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string line = *entry;
    auto equals = line.find('=');
    if (equals != std::string::npos) environment[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return parse_shard(text, environment);
}

double estimated_point_seconds(const Point& point, const MeasurementSettings& settings) {
  WorkModel work = point.variant->work ? point.variant->work(point.params) : WorkModel{};
  // Nominal ceilings (2 TB/s, 30 TFLOP/s): only the ratios between points matter.
  double kernel_s = std::max({work.dram_bytes / 2e12, work.global_bytes / 2e13, work.flops / 3e13, 5e-6});
  double sampling_s = std::max(settings.min_time_s, settings.min_samples * kernel_s);
  sampling_s = std::min(sampling_s, settings.timeout_s + kernel_s);
  // Verification: one run, plus the reference's comparison over the data (~1 GB/s on the host).
  double verify_s = kernel_s + work.dram_bytes / 1e9;
  // Cold samples timed again by CUPTI's range profiler: ~5 ms each on an H100 (harness/measure/timer.hpp).
  double profiled_s = settings.mode == "hot" ? 0.0 : profiled_sample_count(settings) * (5e-3 + kernel_s);
  return 0.01 + (settings.warmup_runs + 1) * kernel_s + sampling_s + verify_s + profiled_s;
}

namespace {

// A fixed pseudo-random rank of a point id (FNV-1a, then splitmix64): equal costs are taken in this
// order, not the ids' (a tuning space's points mostly cost the same, and dealing them out in id
// order gave each shard a stride of the space: one value of its last parameters).
std::uint64_t shuffled_rank(const std::string& id) {
  return splitmix64(fnv1a(id));
}

}  // namespace

std::vector<int> assign_shards(const std::vector<Point>& points, const MeasurementSettings& settings, int count) {
  struct Unit {
    std::string key;  // smallest point id of the unit: orders ties independently of the input order
    double cost = 0;
    std::vector<std::size_t> members;
  };
  std::map<std::string, Unit> by_sizes;
  for (std::size_t i = 0; i < points.size(); ++i) {
    Unit& unit = by_sizes[points[i].sizes.to_string()];
    if (unit.members.empty() || points[i].id < unit.key) unit.key = points[i].id;
    unit.cost += estimated_point_seconds(points[i], settings);
    unit.members.push_back(i);
  }
  std::vector<Unit> units;
  if (by_sizes.size() >= 2 * std::size_t(count)) {
    for (auto& [sizes, unit] : by_sizes) units.push_back(std::move(unit));
  } else {
    for (std::size_t i = 0; i < points.size(); ++i) units.push_back({points[i].id, estimated_point_seconds(points[i], settings), {i}});
  }
  std::vector<std::uint64_t> rank(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) rank[i] = shuffled_rank(units[i].key);
  std::vector<std::size_t> order(units.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (units[a].cost != units[b].cost) return units[a].cost > units[b].cost;
    return rank[a] != rank[b] ? rank[a] < rank[b] : units[a].key < units[b].key;
  });
  // The least loaded shard, the first of equal loads, from a heap: a scan of every shard per unit
  // took 2 * 10^11 steps for 224k points in a million shards.
  using Load = std::pair<double, int>;
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> loads;
  for (int k = 0; k < count; ++k) loads.push({0.0, k});
  std::vector<int> shard_of(points.size(), 0);
  for (std::size_t u : order) {
    const Unit& unit = units[u];
    Load least = loads.top();
    loads.pop();
    loads.push({least.first + unit.cost, least.second});
    for (auto i : unit.members) shard_of[i] = least.second;
  }
  return shard_of;
}

std::vector<Point> select_shard(const std::vector<Point>& points, const MeasurementSettings& settings,
                                const ShardSpec& shard) {
  std::vector<int> shard_of = assign_shards(points, settings, shard.count);
  std::vector<Point> selected;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (shard_of[i] == shard.index) selected.push_back(points[i]);
  return selected;
}

}  // namespace occbench
