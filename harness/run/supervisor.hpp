#pragma once
// `occbench run` as a supervisor: the sweep runs in a child process (this binary, re-executed),
// which announces each point on a pipe. When the child dies (a kernel that faulted or trapped
// loses the CUDA context: the child records the point and exits) or a point runs past the
// watchdog (a hanging kernel: the child is killed), the supervisor records that point as failed
// in the run's .jsonl and starts a new child with --resume, which keeps every finished point.
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

// This program's own path (/proc/self/exe), to run it again as a child.
std::string self_executable();
// True when this process is the occbench command (not a test binary calling its functions): only
// then may it run itself again (workers, compile shares).
bool running_as_occbench();

// The child's side: -1 when not supervised.
int supervisor_fd_from_environment();
// "jsonl PATH", "begin POINT_ID", "end POINT_ID": one line each, ignored when fd < 0.
void announce(int fd, const std::string& message);

struct SupervisorOptions {
  std::string executable;               // the child's program; empty: this one (/proc/self/exe)
  std::vector<std::string> first_args;  // the first child's arguments (after argv[0]): "run" CONFIG ...
  std::vector<std::string> resume_args; // appended to "run --resume JSONL" for later children (e.g. --device N)
  double watchdog_s = 120;              // a point that runs longer is stopped and recorded failed
  // The failed record of a point (its id) with the reason, as `unrun_record` makes it.
  std::function<ordered_json(const std::string& point_id, const std::string& reason)> failed_record;
};

// Runs children until one finishes the sweep; returns that child's exit code (1 when any point
// failed, including those recorded here).
int supervise_run(const SupervisorOptions& options, std::ostream& log);

}  // namespace occbench
