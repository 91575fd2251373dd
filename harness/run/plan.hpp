#pragma once
// `occbench plan`: for every point of a sweep and one GPU (from the built-in table, or the local
// one), the launch, the kernel's registers and shared memory for that GPU's architecture (from this
// build's own machine code), theoretical occupancy and its limiter, and the work model. No GPU is
// needed. Written in the same JSON/CSV form as `run`, with status "planned" and no timings.
#include "harness/sweep/spec.hpp"
#include "harness/measure/device.hpp"
#include "harness/model/gpu_table.hpp"
#include "harness/model/kernel_resources.hpp"
#include "harness/family/registry.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/sweep/sweep.hpp"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

// The GPU a plan is for.
struct PlanTarget {
  std::string key;          // names the output files: the table key ("h100"), else the device's name
  std::string name;         // "NVIDIA H100 SXM5 80GB"
  SmLimits limits;
  int resource_arch = 0;    // the built architecture whose machine code this GPU runs (90)
  ordered_json device;      // the result file's device block (measured_bandwidth_gbps null)
  std::optional<std::uint64_t> memory_bytes;  // device memory, where known (the local GPU)
  std::string note;         // e.g. that an older minor version's code stands in; "" normally
};

// Thrown for a GPU the build cannot plan for (unknown name, architecture not built); exit code 2.
class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// From the built-in table; throws PlanError when no built architecture has code it can run.
PlanTarget plan_target(const GpuSpec& gpu, const std::vector<int>& built_archs);
// The local GPU, with its own limits.
PlanTarget plan_target(const DeviceInfo& device, const std::vector<int>& built_archs);
// find_gpu(key), or PlanError naming every key of the table.
const GpuSpec& gpu_by_key(const std::string& key);

// One point's record: status "planned" (or "skipped" with launch_blocker's reason, or "failed"
// where the variant's kernel cannot be found in the build), timing and metrics null.
ordered_json plan_point(const Point& point, const PlanTarget& target, const KernelResourceTable& resources);

struct PlanOptions {
  std::string config;
  std::string gpu;                  // a table key/name/alias; empty: the local GPU, else h100
  std::string out_dir = "results";
  bool list_gpus = false;
  bool write_files = true;
  std::string command_line;
  PointSelection selection;         // --variants, --filter, --set (harness/sweep/selection.hpp)
  // The command line as given, for the processes that compile a user kernel's instantiations
  // ahead (each runs it again with --compile-share W/N); empty: compile in this process only.
  std::vector<std::string> argv;
  std::string compile_share;        // internal, "W/N": compile share W of N into the cache and exit
  // internal, with compile_share: the run's points are a sample, "random:N:SEED" or "exhaustive:N:0"
  // (run --strategy random / --max-points): its share of those points only.
  std::string compile_sample;
  // internal, with compile_share: a resumed run's .jsonl; its finished points are not compiled.
  std::string compile_skip;
  // internal: a search's queue file (harness/run/compile_queue.hpp): compile the points named there
  // as they are named, until the run that started this process ends.
  std::string compile_queue;
};

struct PlanSummary {
  std::size_t planned = 0, skipped = 0, failed = 0;
  std::string json_path, csv_path;
  ordered_json document;
};

PlanSummary plan_sweep(const SweepSpec& spec, const Registry& registry, const PlanTarget& target,
                       const KernelResourceTable& resources, const PlanOptions& options, std::ostream& log);

// Console table of planned records: launch, resources, occupancy, limiter, work.
std::string format_plan_table(const std::vector<ordered_json>& results);

// The whole subcommand; returns the exit code (0 ok; 1 a kernel could not be planned; 2 bad input).
int plan_main(const PlanOptions& options, const Registry& registry, std::ostream& out, std::ostream& err);

inline constexpr const char* kDefaultPlanGpu = "h100";

}  // namespace occbench
