#include "harness/core/process.hpp"
#include "harness/core/files.hpp"

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace occbench {

namespace {

// Runs argv with its standard output and error going to `fd`: the exit status (-1: it did not run).
int spawn_and_wait(const std::vector<std::string>& argv, int fd, const std::string& working_dir) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!working_dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());
  posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

ProgramRun run_program(const std::vector<std::string>& argv, const std::string& working_dir) {
  ProgramRun run;
  if (argv.empty()) return run;
  // A file, not a pipe: a program that prints much (nvcc's log) never blocks on a full pipe.
  std::string path = (std::filesystem::temp_directory_path() / "occbench-run-XXXXXX").string();
  int fd = ::mkstemp(path.data());
  if (fd < 0) return run;
  run.status = spawn_and_wait(argv, fd, working_dir);
  ::close(fd);
  run.output = read_file(path).value_or("");
  std::remove(path.c_str());
  return run;
}

}  // namespace occbench
