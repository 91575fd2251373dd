// occbench merge: one sweep's shard outputs (JSON or JSONL) joined into one document (harness/records/merge.hpp).
#include "harness/cli/cli.hpp"
#include "harness/cli/commands.hpp"
#include "harness/records/merge.hpp"
#include "harness/records/report.hpp"
#include "harness/core/files.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

namespace occbench {

namespace {

struct MergeFlags {
  std::string out;
  std::vector<std::string> inputs;
};

int merge_command(const MergeFlags& flags, const std::vector<std::string>& argv, const Registry& registry) {
  std::filesystem::path out(flags.out);
  if (out.extension() != ".json" && out.extension() != ".jsonl") {
    std::cerr << fmt::format("error: merge: {}: expected the output's name to end in .json (document and .csv beside "
                             "it) or .jsonl\n", flags.out);
    return kExitBadInput;
  }
  check_output_file("merge OUT", flags.out, flags.inputs);
  if (out.extension() == ".json")
    check_output_file("merge OUT (its .csv)", std::filesystem::path(out).replace_extension(".csv").string(), flags.inputs);
  std::vector<ShardOutput> inputs;
  for (const auto& path : flags.inputs) inputs.push_back(read_shard_output(path, &registry));  // a .jsonl as --resume reads it
  MergedResults merged = merge_shard_outputs(inputs, registry);

  double wall_s = 0, timed_s = 0;
  for (const auto& run : merged.runs) {
    wall_s = std::max(wall_s, run.value("wall_s", 0.0));  // shards run side by side
    timed_s += run.value("timed_s", 0.0);
  }
  ordered_json run = {{"kind", "merge"},          {"finished_utc", utc_now_iso()}, {"command", join_command(argv)},
                      {"config_source", merged.config_source}, {"inputs", flags.inputs},
                      {"wall_s", wall_s},         {"timed_s", timed_s},          {"runs", merged.runs}};
  if (out.extension() == ".jsonl") {
    write_text_file(flags.out, merged_jsonl(merged, {{"merged_from", flags.inputs}}));
    std::cout << fmt::format("merged {} point(s) from {} file(s), {} device record(s): wrote {}\n", merged.results.size(),
                             inputs.size(), merged.devices.size(), flags.out);
  } else {
    std::string csv = std::filesystem::path(out).replace_extension(".csv").string();
    write_text_file(flags.out, merged_document(merged, run).dump(2) + "\n");
    write_text_file(csv, to_csv(merged.results));
    std::cout << fmt::format("merged {} point(s) from {} file(s), {} device record(s): wrote {}\n      {}\n",
                             merged.results.size(), inputs.size(), merged.devices.size(), flags.out, csv);
  }
  return kExitOk;
}

}  // namespace

Command add_merge_command(CLI::App& app, const Registry& registry) {
  auto flags = std::make_shared<MergeFlags>();
  auto* merge = app.add_subcommand("merge", "Join the outputs of one sweep's shards (JSON or JSONL) into one document");
  merge->add_option("out", flags->out, "The merged file: OUT.json (with OUT.csv beside it) or OUT.jsonl")->required();
  merge->add_option("inputs", flags->inputs, "Shard outputs: results .json or .jsonl of run --shard")->required();
  return {merge, [&registry, flags](const std::vector<std::string>& argv) { return merge_command(*flags, argv, registry); }};
}

}  // namespace occbench
