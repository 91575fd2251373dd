#pragma once
// `occbench run --devices 0,1|all`: one worker process per GPU (this program, re-executed as
// `run --device N`), each measuring alone on its GPU. The workers take work dynamically, claiming
// it with O_EXCL files in a shared claims folder: first whole groups (the points that share one
// problem and reference, handout_groups), so each problem's random inputs and CPU reference are
// built by one worker only; once no group is left, an idle worker helps with the points of groups
// still being measured (claimed one by one from the cheap end), so no GPU idles while another
// has a queue.
// Each worker writes its own part (.json/.jsonl under STEM.parts/device<N>/); the parent then
// merges them (harness/records/merge) into STEM.json/.csv/.jsonl, each point with its device index and the
// document with one device record per GPU. `run --resume STEM.jsonl` resumes every worker.
// With --each-device, every listed GPU runs the whole sweep into its own results file instead
// (OUT/device<N>/).
//
// Processes rather than threads: a worker's CUDA context, faults and supervisor (user kernels) stay
// its own, and the single-GPU run path is reused as it is.
#include "harness/sweep/config.hpp"
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

// True when this process claimed the point (first to create its file in `claim_dir`).
bool claim_point(const std::string& claim_dir, const std::string& point_id);
// Marks the points as taken (those a resumed run already finished).
void mark_claimed(const std::string& claim_dir, const std::vector<std::string>& point_ids);
// True when some worker holds the point's claim (finished or measuring it).
bool is_claimed(const std::string& claim_dir, const std::string& point_id);
// The ids of points claimed in `claim_dir` that have no record in `results` (a worker stopped
// while it held them), sorted.
std::vector<std::string> claimed_without_record(const std::string& claim_dir, const std::vector<nlohmann::ordered_json>& results);

// The unit a worker claims whole: the points that share one problem instance (the same sizes)
// and, for a family with reference_axes (stencil's filter_size), one reference. A worker that
// holds a group builds its problem and reference alone; the other workers build it only to help
// with a group's last points once no group is left unclaimed (run_sweep).
struct HandoutGroup {
  std::string key;            // "width=4096 height=4096 filter_size=31": the sizes, then the reference axes
  std::vector<Point> points;  // the slowest first by estimated cost, so a helper takes the cheap end
  double estimated_s = 0;     // estimated_point_seconds summed (only ratios matter)
};
// Groups in the order workers claim them: sizes by their estimated cost, the costliest first (the
// longest work starts first), and within one size its groups the costliest first, so a worker
// that takes consecutive groups reuses its problem.
std::vector<HandoutGroup> handout_groups(const std::vector<Point>& points, const MeasurementSettings& settings);
// True when the group is `owner`'s ("device1"): claimed now (its file in `claim_dir`, beside the
// points', holds the owner), or earlier by the same owner (a worker its supervisor restarted).
bool claim_group(const std::string& claim_dir, const std::string& group_key, const std::string& owner);

// A worker's walk (run_sweep with a claim folder): every group `owner` claims, whole, each point
// claimed as it comes (a resumed run's finished points are claimed already); then, with no group
// left, help with the groups other workers still measure: `prepare` (build the problem) before
// claiming their open points from the cheap end, so owner and helper meet in the middle. A group
// with one open point is left to its owner. `measure` gets each point this process claimed;
// points in `finished` are never measured again. Once `keep_claiming` (if given) says false, the
// walk claims nothing more (a worker whose CUDA context is lost leaves the rest to the others).
void walk_claimed_groups(const std::vector<HandoutGroup>& groups, const std::string& claim_dir, const std::string& owner,
                         const std::map<std::string, ordered_json>& finished,
                         const std::function<void(const Point&)>& prepare, const std::function<void(const Point&)>& measure,
                         const std::function<bool()>& keep_claiming = {});

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
