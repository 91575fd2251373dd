#pragma once
// `occbench merge`: the outputs of one sweep's shards (run --shard, the workers of run --devices,
// Slurm array tasks) joined into one results document. Every input keeps its device record: the
// document's `devices` array holds one per input GPU and each point's `device` is its index there;
// `device` stays the first of them, so readers of single-GPU documents keep working.
#include "harness/records/record_writer.hpp"
#include "harness/family/registry.hpp"

#include <string>
#include <vector>

namespace occbench {

// One input: a results document (.json) or a run's .jsonl.
struct ShardOutput {
  std::string path;
  ordered_json tool, config, run;  // run: null for a .jsonl
  std::string config_source;
  std::vector<ordered_json> devices;  // its device record, or a merged document's `devices`
  std::vector<ordered_json> results;  // each point's record; a merged document's keep their `device` index
};

// Reads a .json document or a .jsonl; throws ResultsFileError naming the file and what was expected.
// With a registry, a .jsonl is checked as run --resume checks it (harness/records/run_log.hpp).
ShardOutput read_shard_output(const std::string& path, const Registry* registry = nullptr);

struct MergedResults {
  ordered_json tool, config;
  std::string config_source;
  std::vector<ordered_json> devices;
  std::vector<ordered_json> results;  // in the sweep's order where the config can be expanded
  std::vector<ordered_json> runs;     // each input's run block (where it has one) with its path
};

// Joins the inputs. Throws ResultsFileError (exit 2) when an input holds another sweep's config or
// was written by another occbench version or commit, or when a point is in two inputs.
// Speedups against the config's baseline are computed again over all points.
MergedResults merge_shard_outputs(const std::vector<ShardOutput>& inputs, const Registry& registry);

// The results document: schema_version, tool, run, device (the first), devices, config, units, results.
ordered_json merged_document(const MergedResults& merged, const ordered_json& run);
// The .jsonl of the merged points: header (tool, device, devices, config) then one record a line.
std::string merged_jsonl(const MergedResults& merged, const ordered_json& header_extra);

}  // namespace occbench
