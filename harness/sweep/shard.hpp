#pragma once
// Shards of a sweep for a cluster (`run --shard K/N`, `plan --shard K/N`, `--shard auto` from
// Slurm): shard K of N is a deterministic part of the sweep's points; the N shards are disjoint
// and together hold every point. Points are assigned by estimated cost (longest first to the
// least loaded shard; points of equal cost in a fixed pseudo-random order of their ids, so each
// shard is a representative share of a tuning space), keyed by point id, so the assignment does
// not depend on the order in which the points were listed.
#include "harness/sweep/spec.hpp"
#include "harness/sweep/sweep.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

struct ShardSpec {
  int index = 0;  // 0-based, as SLURM_PROCID and array task offsets
  int count = 1;
  std::string text() const;  // "K/N"
};

// "K/N" (0 <= K < N), or "auto": from Slurm's environment (`environment` stands in for getenv in
// tests). Throws ConfigError naming --shard and what was expected.
ShardSpec parse_shard(const std::string& text, const std::map<std::string, std::string>& environment);
ShardSpec parse_shard(const std::string& text);  // with the process environment

// The estimated seconds a point costs to measure under `settings`, from its work model: the
// kernel time at nominal ceilings, sampled until min_time_s / min_samples or timeout_s. Only
// the ratios between points matter.
double estimated_point_seconds(const Point& point, const MeasurementSettings& settings);

// For each point (in the order given), the shard it belongs to. Points sharing a problem (the
// same sizes) stay together when there are at least two such groups per shard, so a shard builds
// each problem once; otherwise points are assigned one by one.
std::vector<int> assign_shards(const std::vector<Point>& points, const MeasurementSettings& settings, int count);

// The points of one shard, in the sweep's order.
std::vector<Point> select_shard(const std::vector<Point>& points, const MeasurementSettings& settings,
                                const ShardSpec& shard);

}  // namespace occbench
