#pragma once
// What a run holds open while it measures, and how it ends: the device with its measured
// ceilings, the stream, the L2 flusher and the CUPTI profiler, the output files (the .jsonl
// written point by point, a resumed run's finished points), and at the end the JSON and CSV
// documents, the table and the summary.
#include "harness/measure/counters/counters.hpp"
#include "harness/measure/device.hpp"
#include "harness/measure/energy/energy.hpp"
#include "harness/measure/point.hpp"
#include "harness/measure/timer.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/sweep/point_source.hpp"
#include "harness/sweep/spec.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

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
  Strategy strategy;  // run --strategy, --max-points, --seed
};

struct RunSummary {
  std::size_t ok = 0, failed = 0, skipped = 0, reused = 0;
  std::string json_path, csv_path, jsonl_path;
  int exit_code = 0;  // 0: all verified; 1: a point failed
};

struct RunSession {
  RunSession() = default;
  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;
  ~RunSession();

  DeviceInfo device;
  double startup_s = 0;  // opening the device and measuring its ceilings
  std::chrono::steady_clock::time_point run_t0;
  std::string started_utc;
  std::string json_path, csv_path, jsonl_path;
  std::unique_ptr<JsonlWriter> jsonl;
  std::map<std::string, ordered_json> finished;  // a resumed run's records, by point id
  std::size_t reused = 0;                        // of them, the records this run kept

  cudaStream_t stream = nullptr;
  std::unique_ptr<L2Flusher> flusher;
  std::string flush_method = "none";
  std::unique_ptr<CounterSession> profiler;
  std::unique_ptr<EnergyMeter> energy;  // run --energy
  DeviceHealth health;
  PointContext context;

  // Frees the stream and the flush buffer and reads the clocks at the end of the sampling.
  void close_measurement();
};

// Opens the device (its ceilings measured and logged), the outputs (a new stem, or the resumed
// .jsonl, whose device must be this one: ConfigError otherwise) and the measurement (stream,
// timing floor, flusher, profiler). Logs what it found.
std::unique_ptr<RunSession> open_run_session(const SweepSpec& spec, const RunOptions& options, std::ostream& log);

// Writes the run's documents (.json, .csv) from its records, logs the table, the timing flags and
// the summary, and returns the summary.
RunSummary finish_run(RunSession& session, const SweepSpec& spec, const RunOptions& options,
                      std::vector<ordered_json>& results, std::ostream& log);

}  // namespace occbench
