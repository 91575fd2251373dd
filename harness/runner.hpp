#pragma once
// Runs a validated sweep on the GPU: for each point, prepare the problem, check the launch fits,
// read resources and occupancy, verify against the CPU reference, then time and derive metrics.
#include "harness/config.hpp"
#include "harness/device.hpp"
#include "harness/registry.hpp"
#include "harness/report.hpp"
#include "harness/sweep.hpp"

#include <iosfwd>
#include <string>

namespace occbench {

struct RunOptions {
  std::string out_dir = "results";
  int device = 0;
  std::string command_line;          // echoed into the run record
  const JsonlContents* resume = nullptr;  // finished points to keep (run --resume)
  std::string resume_path;
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
};
ordered_json measure_point(const Point& point, Problem& problem, const PointContext& context);

// A record for a point that never ran (skipped before launch, or failed to set up).
ordered_json unrun_record(const Point& point, const std::string& status, const std::string& reason);

// Resources of a kernel (cudaFuncGetAttributes) and occupancy of one launch through both the
// calculator and cudaOccupancyMaxActiveBlocksPerMultiprocessor.
KernelResources kernel_resources(const void* kernel);
ordered_json occupancy_json(const OccupancyResult& occupancy, int api_active_blocks_per_sm);

}  // namespace occbench
