#pragma once
// Runs a validated sweep on the GPU: for each point, prepare the problem, check the launch fits,
// read resources and occupancy, verify against the CPU reference, then time and derive metrics.
#include "harness/sweep/config.hpp"
#include "harness/measure/device.hpp"
#include "harness/family/registry.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/sweep/sweep.hpp"

#include <iosfwd>
#include <memory>
#include <string>

namespace occbench {

struct RunOptions {
  std::string out_dir = "results";
  int device = 0;
  std::string command_line;          // echoed into the run record
  const JsonlContents* resume = nullptr;  // finished points to keep (run --resume)
  std::string resume_path;
  // Under `occbench run`'s supervisor (harness/run/supervisor): the pipe on which each point is
  // announced; a lost CUDA context then ends this process after its point is recorded.
  int supervisor_fd = -1;
  // A worker of run --devices (harness/run/multi_device): measures only the points it claims here.
  std::string claim_dir;
};

struct RunSummary {
  std::size_t ok = 0, failed = 0, skipped = 0, reused = 0;
  std::string json_path, csv_path, jsonl_path;
  int exit_code = 0;  // 0: all verified; 1: a point failed
};

RunSummary run_sweep(const SweepSpec& spec, const Registry& registry, const RunOptions& options, std::ostream& log);

// One point, measured on the current device. Exposed for the Google Benchmark front end and tests.
struct PointContext {
  const DeviceInfo* device = nullptr;
  const MeasurementSettings* settings = nullptr;
  cudaStream_t stream = nullptr;
  class L2Flusher* flusher = nullptr;
  class CounterSession* counters = nullptr;  // run --counters: counted after the timing (harness/measure/counters)
  class CounterSession* timing_profiler = nullptr;  // times cold samples by gpu__time_duration (time_device)
};

// Everything measure_point does before timing, shared with the Google Benchmark front end
// (bench/): the launch (device variants), the kernel's resources, launch_blocker (status
// "skipped" with the reason), the dynamic shared-memory opt-in, occupancy (calculator + API),
// then poison_outputs(), one run and verify() (status "failed" with the reason). The record is
// the point's result record without timing and metrics; only a ready() point may be timed.
struct PreparedPoint {
  ordered_json record;
  LaunchSpec launch;  // empty for host variants
  bool ready() const { return record.value("status", "") == "ok"; }
};
PreparedPoint prepare_point(const Point& point, Problem& problem, const PointContext& context);

// One run of the point on the stream: a device variant's launch (checked), or the host code.
void run_point_once(const Point& point, Problem& problem, const LaunchSpec& launch, cudaStream_t stream);

// prepare_point, then the timed samples (time_device / time_host) and the metrics.
// With `defer_counters` (run --counters, points of one problem counted together), a point whose
// counters may wait gets no `counters` section here: its launch is put in the job, to be counted
// by collect_counters_batch once the problem's points are timed. A point with an occupancy_limit
// is always counted at once (its carveout is set for it alone).
struct CounterJob;
ordered_json measure_point(const Point& point, Problem& problem, const PointContext& context,
                           CounterJob* defer_counters = nullptr);

// The family's problem at the point's sizes, or nullptr with skip_reason set when the device has
// less free memory than the family needs plus reserved_bytes (e.g. the L2 flush buffer).
std::unique_ptr<Problem> make_point_problem(const Point& point, std::uint64_t seed, std::size_t reserved_bytes,
                                            std::string& skip_reason);

// Errors after which the CUDA context is unusable: nothing more can run in this process.
bool is_sticky_cuda_error(cudaError_t code);

// A record for a point that never ran (skipped before launch, or failed to set up).
ordered_json unrun_record(const Point& point, const std::string& status, const std::string& reason);

// Resources of a kernel (cudaFuncGetAttributes) and occupancy of one launch through both the
// calculator and cudaOccupancyMaxActiveBlocksPerMultiprocessor.
KernelResources kernel_resources(const void* kernel);
ordered_json occupancy_json(const OccupancyResult& occupancy, int api_active_blocks_per_sm);

}  // namespace occbench
