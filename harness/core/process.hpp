#pragma once
// The one way the harness runs another program and reads what it printed (nvcc, a tool's --version).
#include <string>
#include <vector>

namespace occbench {

struct ProgramRun {
  int status = -1;     // its exit status; -1 where it did not run or a signal stopped it
  std::string output;  // its standard output and error, interleaved as written
};

// Runs argv (argv[0] found on the PATH where it has no '/') and waits for it; in `working_dir`
// where given (a compiler's files of its own naming then land there, never beside the caller's).
ProgramRun run_program(const std::vector<std::string>& argv, const std::string& working_dir = "");

}  // namespace occbench
