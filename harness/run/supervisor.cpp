#include "harness/run/supervisor.hpp"
#include "harness/core/files.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <ostream>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace occbench {

int supervisor_fd_from_environment() {
  const char* text = std::getenv(kSupervisorFdVariable);
  return text && *text ? std::atoi(text) : -1;
}

void announce(int fd, const std::string& message) {
  if (fd < 0) return;
  std::string line = message + "\n";
  std::size_t written = 0;
  while (written < line.size()) {
    ssize_t n = ::write(fd, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the supervisor is gone; the run goes on unsupervised
    written += std::size_t(n);
  }
}

std::string self_executable() {
  char path[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw std::runtime_error("cannot find this program's own path (/proc/self/exe) to run the sweep in a child");
  return std::string(path, std::size_t(n));
}

bool running_as_occbench() { return std::filesystem::path(self_executable()).filename() == "occbench"; }

namespace {

// Drops a line the killed child left half-written, then appends `record` as one line.
void append_record(const std::string& jsonl_path, const ordered_json& record) {
  std::string text = read_file(jsonl_path).value_or("");
  auto last_newline = text.rfind('\n');
  std::size_t keep = last_newline == std::string::npos ? 0 : last_newline + 1;
  if (keep != text.size()) std::filesystem::resize_file(jsonl_path, keep);
  std::ofstream out(jsonl_path, std::ios::app);
  out << record.dump() << '\n';
}

struct Child {
  pid_t pid = -1;
  int read_fd = -1;
};

Child start_child(const std::string& exe, const std::vector<std::string>& args) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(fmt::format("pipe failed: {}", std::strerror(errno)));
  std::cout.flush();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
  if (pid == 0) {
    ::close(fds[0]);
    ::setenv(kSupervisorFdVariable, std::to_string(fds[1]).c_str(), 1);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(exe.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    std::perror("occbench: exec of the sweep's child failed");
    std::_Exit(127);
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

}  // namespace

int supervise_run(const SupervisorOptions& options, std::ostream& log) {
  std::string exe = options.executable.empty() ? self_executable() : options.executable;
  std::vector<std::string> args = options.first_args;
  std::string jsonl_path;
  for (int restarts = 0;; ++restarts) {
    Child child = start_child(exe, args);
    std::string in_flight, buffer;
    auto began = std::chrono::steady_clock::now();
    std::string stop_reason;
    bool eof = false;
    while (!eof) {
      int timeout_ms = -1;
      if (!in_flight.empty()) {
        double left = options.watchdog_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
        timeout_ms = std::max(0, int(left * 1000));
      }
      pollfd p{child.read_fd, POLLIN, 0};
      int ready = ::poll(&p, 1, timeout_ms);
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {  // the watchdog
        stop_reason = fmt::format("stopped by the watchdog: the point ran longer than {:g} s (a kernel that never "
                                  "finishes?); run --watchdog SECONDS sets the limit", options.watchdog_s);
        ::kill(child.pid, SIGKILL);
        break;
      }
      char chunk[4096];
      ssize_t n = ::read(child.read_fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        eof = true;
        break;
      }
      buffer.append(chunk, std::size_t(n));
      for (auto newline = buffer.find('\n'); newline != std::string::npos; newline = buffer.find('\n')) {
        std::string line = buffer.substr(0, newline);
        buffer.erase(0, newline + 1);
        if (line.rfind("jsonl ", 0) == 0) jsonl_path = line.substr(6);
        else if (line.rfind("begin ", 0) == 0) in_flight = line.substr(6), began = std::chrono::steady_clock::now();
        else if (line.rfind("end ", 0) == 0) in_flight.clear();
      }
    }
    ::close(child.read_fd);
    int status = 0;
    while (::waitpid(child.pid, &status, 0) < 0 && errno == EINTR) {
    }
    // A child that lost its CUDA context recorded the point itself and exits with kExitContextLost.
    bool context_lost = stop_reason.empty() && WIFEXITED(status) && WEXITSTATUS(status) == kExitContextLost;
    if (stop_reason.empty() && WIFEXITED(status) && !context_lost) return WEXITSTATUS(status);
    if (jsonl_path.empty()) {
      log << "occbench run: the sweep's process ended before it started its .jsonl; nothing to resume\n";
      return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    if (stop_reason.empty() && WIFSIGNALED(status))
      stop_reason = fmt::format("the sweep's process died of signal {} ({}) during this point", WTERMSIG(status),
                                strsignal(WTERMSIG(status)));
    if (!context_lost) {
      if (in_flight.empty()) {
        log << fmt::format("occbench run: the sweep's process ended between points ({}); the finished points are in {}\n",
                           stop_reason.empty() ? "unexpectedly" : stop_reason, jsonl_path);
        return 1;
      }
      append_record(jsonl_path, options.failed_record(in_flight, stop_reason));
      log << fmt::format("occbench run: {}: failed: {}\n", in_flight, stop_reason);
    }
    if (restarts > 100000) return 1;
    log << fmt::format("occbench run: continuing in a new process (run --resume {})\n", jsonl_path) << std::flush;
    args = {"run", "--resume", jsonl_path};
    args.insert(args.end(), options.resume_args.begin(), options.resume_args.end());
  }
}

}  // namespace occbench
