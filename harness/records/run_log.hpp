#pragma once
// One reading of a run's .jsonl for every command that takes one (run --resume, merge, best,
// replay): its header holds a config that parses as a sweep, a well-formed strategy and selection,
// and each record is a point of that sweep (one sweep's log, not another's appended to it).
#include "harness/records/record_writer.hpp"
#include "harness/family/registry.hpp"
#include "harness/sweep/spec.hpp"

#include <string>

namespace occbench {

// The sweep the log's header stores, each part checked; throws ResultsFileError or ConfigError
// (exit 2) naming the file, the line and what was expected.
SweepSpec check_run_log(const JsonlContents& log, const std::string& path, const Registry& registry);

// Throws ResultsFileError where the header's stored selection ({variants, filter, set, shard})
// has a field of the wrong kind.
void check_stored_selection(const ordered_json& stored, const std::string& path);

}  // namespace occbench
