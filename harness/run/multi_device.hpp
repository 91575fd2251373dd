#pragma once
// `occbench run --devices 0,1|all`: one worker process per GPU (this program, re-executed as
// `run --device N`), each measuring alone on its GPU. The workers take work dynamically, each
// through its ClaimSource (harness/sweep/claims.hpp): whole groups of points that share a problem
// first, then helping with the groups others still measure, so no GPU idles while another has a queue.
// Each worker writes its own part (.json/.jsonl under STEM.parts/device<N>/); the parent then
// merges them (harness/records/merge) into STEM.json/.csv/.jsonl, each point with its device index and the
// document with one device record per GPU. `run --resume STEM.jsonl` resumes every worker.
// With --each-device, every listed GPU runs the whole sweep into its own results file instead
// (OUT/device<N>/).
//
// Processes rather than threads: a worker's CUDA context, faults and supervisor (user kernels) stay
// its own, and the single-GPU run path is reused as it is.
#include "harness/sweep/spec.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/family/registry.hpp"
#include "harness/sweep/sweep.hpp"

#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace occbench {

// "0,1", "1", or "all" (every GPU of the machine, `device_count`). Throws ConfigError naming
// --devices: not a list of whole numbers, a repeated ordinal, an ordinal the machine lacks.
std::vector<int> parse_device_list(const std::string& text, int device_count);
// The same against this machine's GPUs.
std::vector<int> local_device_list(const std::string& text);

// The ids of points claimed in `claim_dir` that have no record in `results` (a worker stopped
// while it held them), sorted.
std::vector<std::string> claimed_without_record(const std::string& claim_dir, const std::vector<nlohmann::ordered_json>& results);

struct MultiDeviceRun {
  std::vector<int> devices;
  bool each_device = false;       // the whole sweep on each device, one results file each
  std::string config_path;        // the config the workers read
  std::string sweep_name;
  std::string out_dir = "results";
  std::vector<std::string> worker_args;  // selection, --watchdog ...: passed to every worker
  std::string command_line;
  // run --resume of a multi-device run: its .jsonl, whose header names the parts folder.
  std::string resume_path;
  ordered_json resume_header;
};

// Runs the workers and, without each_device, merges their parts; returns the exit code (0; 1 when
// a point failed or a worker did not finish; 2 bad input).
int run_on_devices(const MultiDeviceRun& run, const Registry& registry, std::ostream& log);

}  // namespace occbench
