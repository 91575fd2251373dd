#pragma once
// Worker processes that compile a user-kernel sweep's instantiations into NVRTC's disk cache,
// worker W of N (occbench plan CONFIG --compile-share W/N), each taking the next kernel no other
// has taken, the costliest guessed first (harness/compile/compile_order.hpp): processes, because NVRTC compiles
// one program at a time per process. `plan` waits for them before planning; `run` lets them work
// ahead of its points while the GPU measures (a point then loads its kernel from the cache instead
// of waiting for NVRTC) and stops them when the run ends.
#include "harness/run/supervisor.hpp"

#include <cstddef>
#include <string>
#include <sys/types.h>
#include <vector>

namespace occbench {

class CompileWorkers {
 public:
  // `plan_argv`: a plan command line (the program first) to which each worker adds
  // --compile-share W/N. `hide_gpus`: the workers see no GPU (CUDA_VISIBLE_DEVICES empty), so they
  // never take a context or memory of the GPU a run measures on. They run kWorkerNiceness below
  // this process: where they fill every core, the process that measures (its launches, its
  // verification) still gets a core when it needs one. `executable`: the program started (this
  // one; a test passes another).
  CompileWorkers(const std::vector<std::string>& plan_argv, unsigned count, bool hide_gpus,
                 const std::string& executable = self_executable());
  ~CompileWorkers();  // stops the workers still compiling
  CompileWorkers(const CompileWorkers&) = delete;
  CompileWorkers& operator=(const CompileWorkers&) = delete;
  void wait();  // until every worker is done
  std::size_t count() const { return pids_.size(); }
  const std::vector<pid_t>& pids() const { return pids_; }
  static constexpr int kWorkerNiceness = 10;

 private:
  std::vector<pid_t> pids_;
};

// How many workers: one per core, or $OCCBENCH_COMPILE_PROCESSES (harness/sweep/nvrtc_compiler),
// less `reserved` cores kept for the caller, at least one.
unsigned compile_worker_count(unsigned reserved);

}  // namespace occbench
