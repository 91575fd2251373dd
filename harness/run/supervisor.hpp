#pragma once
// `occbench run` as a supervisor: the sweep runs in a child process (this binary, re-executed),
// which announces each point on a pipe. When the child dies (a kernel that faulted or trapped
// loses the CUDA context: the child records the point and exits) or a point runs past the
// watchdog (a hanging kernel: the child is killed), the supervisor records that point as failed
// in the run's .jsonl and starts a new child with --resume, which keeps every finished point.
// That child is started ahead, as a standby: it takes its CUDA context while the child before it
// measures and waits to be released ("go": it reads the record and opens its session while the
// lost child's context is torn down; "clear": that child is gone and it measures), so that a fault
// costs the driver's report of it and little more (results/reference/h100/tuner_kernels.md; OCCBENCH_STANDBY=0 starts children only when
// needed).
#include "harness/records/report.hpp"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace occbench {

// Exit code of a child whose CUDA context was lost after it recorded the failed point.
inline constexpr int kExitContextLost = 75;
// The environment variable that tells a child the file descriptor of its supervisor's pipe.
inline constexpr const char* kSupervisorFdVariable = "OCCBENCH_SUPERVISOR_FD";
// The file descriptor on which a standby child waits for "go".
inline constexpr const char* kStandbyFdVariable = "OCCBENCH_STANDBY_FD";

// This program's own path (/proc/self/exe), to run it again as a child.
std::string self_executable();
// True when this process is the occbench command (not a test binary calling its functions): only
// then may it run itself again (workers, compile shares).
bool running_as_occbench();

// The child's side: -1 when not supervised.
int supervisor_fd_from_environment();
// "jsonl PATH", "begin POINT_ID", "end POINT_ID", "lost" (the context is lost, the records are
// written, the process is ending): one line each, ignored when fd < 0.
void announce(int fd, const std::string& message);

struct SupervisorOptions {
  std::string executable;               // the child's program; empty: this one (/proc/self/exe)
  std::vector<std::string> first_args;  // the first child's arguments (after argv[0]): "run" CONFIG ...
  std::vector<std::string> resume_args; // appended to "run --resume JSONL" for later children (e.g. --device N)
  double watchdog_s = 120;              // a point that runs longer is stopped and recorded failed
  // The failed record of a point (its id) with the reason, as `unrun_record` makes it.
  std::function<ordered_json(const std::string& point_id, const std::string& reason)> failed_record;
};

// The child's side of a standby (OCCBENCH_STANDBY_FD set): takes a CUDA context on `device`, then
// waits for the supervisor's "go". False where it was let go unused (the run is over); true at
// once for a child that is not a standby.
bool wait_while_standby(int device);
// A released standby, its record and config read, waits for "clear": the child it replaces is gone, the GPU
// is its own. At once for any other process.
void wait_until_clear();

// Runs children until one finishes the sweep; returns that child's exit code (1 when any point
// failed, including those recorded here).
int supervise_run(const SupervisorOptions& options, std::ostream& log);

}  // namespace occbench
