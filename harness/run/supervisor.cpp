#include "harness/run/supervisor.hpp"

#include "harness/family/host_hooks.hpp"
#include "harness/core/files.hpp"
#include "harness/records/record_writer.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
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
  out.close();
  if (const auto& told = host_hooks().record_written) told(record.dump());
}

struct Child {
  pid_t pid = -1;
  int read_fd = -1;   // its announcements (OCCBENCH_SUPERVISOR_FD)
  int go_fd = -1;     // a standby's release: "go\n", or closed to let it end unused
  bool started() const { return pid > 0; }
};

// A forked child without exec keeps every descriptor of its parent: the pipes of the supervisor's
// other children (a standby's "go" pipe held open by a later child would never close) are
// closed as exec would close them (they are close-on-exec; the child's own were cleared).
void close_inherited_pipes() {
  std::error_code ec;
  std::vector<int> fds;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) fds.push_back(std::atoi(entry.path().filename().c_str()));
  for (int fd : fds) {
    struct stat info {};
    int flags = ::fcntl(fd, F_GETFD);
    if (fd > 2 && flags >= 0 && (flags & FD_CLOEXEC) && ::fstat(fd, &info) == 0 && S_ISFIFO(info.st_mode)) ::close(fd);
  }
}

// `standby`: the child takes its CUDA context, then waits on a second pipe for "go".
Child start_child(const std::string& exe, const std::vector<std::string>& args, bool standby) {
  int fds[2], go[2] = {-1, -1};
  if (::pipe2(fds, O_CLOEXEC) != 0 || (standby && ::pipe2(go, O_CLOEXEC) != 0))
    throw std::runtime_error(fmt::format("pipe failed: {}", std::strerror(errno)));
  std::cout.flush();
  auto child_side = [&] {  // the child's ends of the pipes stay open across exec, the supervisor's others do not
    ::fcntl(fds[1], F_SETFD, 0);
    ::setenv(kSupervisorFdVariable, std::to_string(fds[1]).c_str(), 1);
    if (standby) ::fcntl(go[0], F_SETFD, 0), ::setenv(kStandbyFdVariable, std::to_string(go[0]).c_str(), 1);
    std::signal(SIGPIPE, SIG_DFL);
  };
  const HostHooks& hooks = host_hooks();
  pid_t pid;
  if (hooks.spawn && hooks.command) {  // an embedding program (Python): a fork that runs the command, no exec
    pid = hooks.spawn([&] {
      child_side();
      close_inherited_pipes();
      std::vector<std::string> argv = {"occbench"};
      argv.insert(argv.end(), args.begin(), args.end());
      return hooks.command(argv);
    });
  } else if ((pid = ::fork()) == 0) {
    child_side();
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(exe.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    std::perror("occbench: exec of the sweep's child failed");
    std::_Exit(127);
  }
  if (pid < 0) throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
  ::close(fds[1]);
  if (standby) ::close(go[0]);
  return {pid, fds[0], go[1]};
}

int wait_exit_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

bool standby_wanted() {
  const char* text = std::getenv("OCCBENCH_STANDBY");
  return !(text && std::string(text) == "0");
}

// One supervised run: the child measuring, the standby that takes over after a fault, and what
// the child announced.
class Supervision {
 public:
  Supervision(const SupervisorOptions& options, std::ostream& log)
      : options_(options), log_(log), exe_(options.executable.empty() ? self_executable() : options.executable) {}

  int run() {
    std::signal(SIGPIPE, SIG_IGN);  // a standby that died before its release is noticed, not fatal
    child_ = start_child(exe_, options_.first_args, false);
    trace("child started");
    for (int restarts = 0; restarts <= 100000; ++restarts) {
      Ending ending = follow_child();
      Child ended = child_;
      if (ending.lost_announced) {  // the standby prepares during the lost child's teardown, then measures
        ::close(ended.read_fd);
        bool released = release_standby();
        wait_exit_status(ended.pid);
        trace("lost child gone");
        released ? clear_child() : start_new_child();
        continue;
      }
      if (std::optional<int> exit_code = settle(ending, reap(ended))) return finish(*exit_code);
      release_standby() ? clear_child() : start_new_child();
    }
    return finish(1);
  }

 private:
  struct Ending {
    std::string stop_reason;  // the watchdog's, or empty
    bool lost_announced = false;
  };

  // Reads the child's announcements until it ends, announces a lost context, or outlives the watchdog.
  Ending follow_child() {
    Ending ending;
    std::string buffer;
    for (;;) {
      pollfd p{child_.read_fd, POLLIN, 0};
      int ready = ::poll(&p, 1, watchdog_timeout_ms());
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) {
        ending.stop_reason = fmt::format("stopped by the watchdog: the point ran longer than {:g} s (a kernel that never "
                                         "finishes?); run --watchdog SECONDS sets the limit", options_.watchdog_s);
        ::kill(child_.pid, SIGKILL);
        return ending;
      }
      char chunk[4096];
      ssize_t n = ::read(child_.read_fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return ending;
      buffer.append(chunk, std::size_t(n));
      for (auto newline = buffer.find('\n'); newline != std::string::npos; newline = buffer.find('\n')) {
        std::string line = buffer.substr(0, newline);
        buffer.erase(0, newline + 1);
        trace(line);
        if (take_announcement(line)) ending.lost_announced = true;
      }
      if (ending.lost_announced) return ending;
    }
  }

  // True for "lost": the child recorded its point and is ending without its context.
  bool take_announcement(const std::string& line) {
    if (line.rfind("jsonl ", 0) == 0) jsonl_path_ = line.substr(6);
    else if (line.rfind("begin ", 0) == 0) in_flight_ = line.substr(6), began_ = std::chrono::steady_clock::now(), start_standby();
    else if (line.rfind("end ", 0) == 0) in_flight_.clear();
    return line == "lost";
  }

  int watchdog_timeout_ms() const {
    if (in_flight_.empty()) return -1;
    double left = options_.watchdog_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count();
    return std::max(0, int(left * 1000));
  }

  // A standby takes its CUDA context while the child measures, once the child has started its
  // points (its device probes are done), so that a fault costs no new process start.
  void start_standby() {
    if (standby_.started() || jsonl_path_.empty() || !standby_wanted()) return;
    standby_ = start_child(exe_, resume_arguments(), true);
  }

  std::vector<std::string> resume_arguments() const {
    std::vector<std::string> args = {"run", "--resume", jsonl_path_};
    args.insert(args.end(), options_.resume_args.begin(), options_.resume_args.end());
    return args;
  }

  // Its exit status.
  int reap(const Child& child) {
    ::close(child.read_fd);
    return wait_exit_status(child.pid);
  }

  // The child's end: its exit code where the sweep is over, nothing where a new child goes on.
  std::optional<int> settle(const Ending& ending, int status) {
    // A child that lost its CUDA context recorded the point itself and exits with kExitContextLost.
    bool context_lost = ending.stop_reason.empty() && WIFEXITED(status) && WEXITSTATUS(status) == kExitContextLost;
    if (ending.stop_reason.empty() && WIFEXITED(status) && !context_lost) return WEXITSTATUS(status);
    if (jsonl_path_.empty()) {
      log_ << "occbench run: the sweep's process ended before it started its .jsonl; nothing to resume\n";
      return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    if (context_lost) return std::nullopt;
    std::string reason = ending.stop_reason;
    if (reason.empty() && WIFSIGNALED(status))
      reason = fmt::format("the sweep's process died of signal {} ({}) during this point", WTERMSIG(status),
                           strsignal(WTERMSIG(status)));
    if (in_flight_.empty()) {
      log_ << fmt::format("occbench run: the sweep's process ended between points ({}); the finished points are in {}\n",
                          reason.empty() ? "unexpectedly" : reason, jsonl_path_);
      return 1;
    }
    ordered_json failed = options_.failed_record(in_flight_, reason);
    failed["time_use"]["finished_utc"] = utc_now_iso();
    append_record(jsonl_path_, failed);
    log_ << fmt::format("occbench run: {}: failed: {}\n", in_flight_, reason);
    return std::nullopt;
  }

  // The standby resumes the run: released ("go"), it reads the record and its config and waits
  // for clear_child before it touches the GPU. False where there is none, or it died waiting.
  bool release_standby() {
    log_ << fmt::format("occbench run: continuing in a new process (run --resume {})\n", jsonl_path_) << std::flush;
    in_flight_.clear();
    Child next = standby_;
    standby_ = Child{};
    if (!next.started()) return false;
    if (::waitpid(next.pid, nullptr, WNOHANG) == 0 && ::write(next.go_fd, "go\n", 3) == 3) {
      child_ = next;
      trace("standby released");
      return true;
    }
    ::close(next.go_fd);
    reap(next);
    return false;
  }

  void start_new_child() {
    child_ = start_child(exe_, resume_arguments(), false);
    trace("child started");
  }

  // The GPU is the new child's alone (a lost child's teardown slows kernels beside it): it measures.
  void clear_child() {
    if (child_.go_fd < 0) return;
    if (::write(child_.go_fd, "clear\n", 6) != 6) {
    }  // a child that died meanwhile ends as any other
    ::close(child_.go_fd);
    child_.go_fd = -1;
    trace("standby cleared");
  }

  int finish(int exit_code) {
    if (standby_.started()) {  // unused: it holds nothing but a context
      ::kill(standby_.pid, SIGKILL);
      ::close(standby_.go_fd);
      reap(standby_);
    }
    return exit_code;
  }

  // OCCBENCH_SUPERVISOR_TRACE=1: each announcement and step with its time, for the cost of a fault.
  void trace(const std::string& what) {
    if (!trace_) return;
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    log_ << fmt::format("supervisor {:.4f} s: {}\n", t, what);
  }

  const SupervisorOptions& options_;
  std::ostream& log_;
  std::string exe_;
  Child child_, standby_;
  const bool trace_ = [] {
    const char* text = std::getenv("OCCBENCH_SUPERVISOR_TRACE");
    return text && std::string(text) == "1";
  }();
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::string jsonl_path_, in_flight_;
  std::chrono::steady_clock::time_point began_ = std::chrono::steady_clock::now();
};

}  // namespace

int supervise_run(const SupervisorOptions& options, std::ostream& log) { return Supervision(options, log).run(); }

namespace {
int released_standby_fd = -1;  // a released standby's pipe, until "clear"

// One line from the supervisor ("" at its end).
std::string read_line(int fd) {
  std::string line;
  char c = 0;
  for (;;) {
    ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') return line;
    line += c;
  }
}
}  // namespace

bool wait_while_standby(int device) {
  const char* text = std::getenv(kStandbyFdVariable);
  if (!text || !*text) return true;
  int fd = std::atoi(text);
  ::unsetenv(kStandbyFdVariable);
  // The context now, while the child before it measures; an error here is the run's to report after "go".
  if (cudaSetDevice(device) == cudaSuccess) cudaFree(nullptr);
  cudaGetLastError();
  if (read_line(fd) != "go") {
    ::close(fd);
    return false;
  }
  released_standby_fd = fd;
  return true;
}

void wait_until_clear() {
  if (released_standby_fd < 0) return;
  read_line(released_standby_fd);  // "clear", or the supervisor's end: either way the GPU is free
  ::close(released_standby_fd);
  released_standby_fd = -1;
}

}  // namespace occbench
