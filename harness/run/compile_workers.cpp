#include "harness/run/compile_workers.hpp"

#include "harness/compile/nvrtc_compiler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char** environ;

namespace occbench {

namespace {

// This process's environment, with CUDA_VISIBLE_DEVICES empty where the workers must see no GPU.
std::vector<std::string> worker_environment(bool hide_gpus) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (!hide_gpus || std::strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) != 0) env.emplace_back(*e);
  if (hide_gpus) env.emplace_back("CUDA_VISIBLE_DEVICES=");
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

unsigned compile_worker_count(unsigned reserved) {
  unsigned all = compile_processes();
  return all > reserved ? all - reserved : 1;
}

CompileWorkers::CompileWorkers(const std::vector<std::string>& plan_argv, unsigned count, bool hide_gpus,
                               const std::string& executable) {
  errno = 0;
  int own = getpriority(PRIO_PROCESS, 0);
  int niceness = errno ? kWorkerNiceness : std::min(19, own + kWorkerNiceness);
  std::vector<std::string> env = worker_environment(hide_gpus);
  std::vector<char*> c_env = c_strings(env);
  for (unsigned w = 0; w < count; ++w) {
    std::vector<std::string> args = plan_argv;
    args.insert(args.end(), {"--compile-share", fmt::format("{}/{}", w, count)});
    std::vector<char*> c_args = c_strings(args);
    pid_t pid = 0;
    if (posix_spawn(&pid, executable.c_str(), nullptr, nullptr, c_args.data(), c_env.data()) != 0) continue;
    pids_.push_back(pid);
    setpriority(PRIO_PROCESS, pid, niceness);  // lowering a child's priority needs no privilege; at worst it stays
  }
}

void CompileWorkers::wait() {
  for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
  pids_.clear();
}

CompileWorkers::~CompileWorkers() {
  for (pid_t pid : pids_) kill(pid, SIGTERM);  // a compilation cut short leaves no cache entry (renamed into place)
  wait();
}

}  // namespace occbench
