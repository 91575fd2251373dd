#pragma once
// A sweep as the user wrote it: parsed from JSON and checked against the registry before anything
// runs. Every refusal names the file, the JSON path and what was expected.
#include "harness/family/registry.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

using AxisValues = std::vector<std::pair<std::string, std::vector<std::int64_t>>>;

struct MeasurementSettings {
  // "cold": L2 swept clean before every sample; "hot": not; "batch": the cold median, then many
  // back-to-back launches per event pair, timed per launch (harness/measure/timer.hpp)
  std::string mode = "cold";
  int warmup_runs = 1;          // untimed launches before sampling
  int min_samples = 10;
  int max_samples = 1000;
  double target_noise = 0.01;   // stop once stddev / mean is under this ...
  double min_time_s = 0.02;     // ... and at least this much kernel time was measured
  double timeout_s = 2.0;       // per point: stop sampling after this much wall time
  std::uint64_t seed = 42;      // random inputs
  bool counters = false;        // hardware counters after each point's timing (harness/measure/counters.hpp)
  // Cold samples timed after the event pair's by CUPTI's range profiler (gpu__time_duration, as
  // Nsight Compute), whose median becomes the point's (harness/measure/timer.hpp); 0: the event pair only
  // (the default: a profiled sample costs ~5 ms, ~8x the wall time of a sweep of short kernels).
  int profiled_samples = 0;
  // Shared-memory wavefronts and bank conflicts (run --counters) come from one more launch with its
  // shared instructions instrumented, which runs ~30-350x longer than the kernel (H100): points
  // whose timed median is over this many ms are not instrumented (their section says so); 0: none.
  double instrumented_max_kernel_ms = 2.0;
  // With counters, when the L2 is flushed during a counted replay: "per_launch" before each replay
  // of the point's launch (its later kernels find what its earlier operations, a memset or a first
  // kernel, left in the L2, as when the launch runs), or "per_kernel" before each of its kernels
  // too, as Nsight Compute flushes before every kernel it profiles (--cache-control all).
  std::string counters_l2_flush = "per_launch";
};

// What the command line narrows or overrides in a sweep (harness/sweep/selection.hpp applies it):
// --variants, --filter (a regular expression searched in each point id), --set / --axis.
struct PointSelection {
  std::vector<std::string> variants;  // empty: the config's variants
  std::string filter;                 // empty: every point
  AxisValues overrides;               // axis -> values, replacing the config's (sizes or launch axes)
  std::vector<std::string> flags;     // each override as typed, for messages ("--set block_size=128,256")
  int shard_index = 0, shard_count = 0;  // --shard K/N (harness/sweep/shard.hpp); count 0: the whole sweep
  bool empty() const { return variants.empty() && filter.empty() && overrides.empty() && shard_count == 0; }
};

struct SweepSpec {
  std::string source;  // the file it came from
  std::string name;
  std::string description;
  std::string family;
  // Set when the config names CUDA source ("source") instead of a built-in family: the family
  // built from the config (harness/sweep/source_family), which the sweep's points point into.
  std::shared_ptr<const Family> source_family;
  std::vector<std::string> variants;
  std::string baseline;
  AxisValues sizes;                                        // the family's size axes
  AxisValues axes;                                         // launch axes shared by all variants that accept them
  std::vector<std::pair<std::string, AxisValues>> variant_axes;  // per-variant overrides
  MeasurementSettings measurement;
  nlohmann::ordered_json raw;  // the input as given, echoed in every result file
  PointSelection selection;    // from the command line; echoed in the record's run block
};

class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, std::string json_path, std::string expected);
  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& expected() const { return expected_; }

 private:
  std::string file_, json_path_, expected_;
};

SweepSpec parse_sweep_file(const std::string& path, const Registry& registry);
SweepSpec parse_sweep_text(const std::string& text, const std::string& source, const Registry& registry);
SweepSpec parse_sweep_json(const nlohmann::ordered_json& doc, const std::string& source, const Registry& registry);

nlohmann::ordered_json to_json(const MeasurementSettings& settings);

}  // namespace occbench
