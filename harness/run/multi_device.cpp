#include "harness/run/multi_device.hpp"

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/clock.hpp"
#include "harness/sweep/claims.hpp"
#include "harness/core/exit_codes.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/records/merge.hpp"
#include "harness/records/report.hpp"
#include "harness/sweep/shard.hpp"
#include "harness/run/supervisor.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <ostream>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

namespace occbench {

namespace fs = std::filesystem;

namespace {

pid_t start_worker(const std::string& exe, const std::vector<std::string>& args) {
  std::cout.flush();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
  if (pid == 0) {
    std::vector<char*> argv{const_cast<char*>(exe.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(exe.c_str(), argv.data());
    std::perror("occbench: exec of a device worker failed");
    std::_Exit(127);
  }
  return pid;
}

int wait_worker(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string device_name(int ordinal) {
  cudaDeviceProp properties{};
  OCCBENCH_CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal));
  return properties.name;
}

// The one file with this extension in a worker's folder, or "" when it has none yet.
std::string part_file(const fs::path& dir, const std::string& extension) {
  if (!fs::is_directory(dir)) return "";
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == extension) return entry.path().string();
  return "";
}

}  // namespace

std::vector<int> parse_device_list(const std::string& text, int device_count) {
  auto error = [&](const std::string& expected) { return ConfigError("command line", "--devices " + text, expected); };
  std::vector<int> devices;
  if (text == "all") {
    for (int d = 0; d < device_count; ++d) devices.push_back(d);
    if (devices.empty()) throw error("at least one GPU; this machine has none");
    return devices;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    auto comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty() || item.size() > 4 || !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw error("a comma-separated list of device ordinals (e.g. 0,1) or all");
    int d = std::stoi(item);
    if (d >= device_count)
      throw error(fmt::format("device {} does not exist: this machine has {} GPU(s) (0 to {})", d, device_count, device_count - 1));
    if (std::find(devices.begin(), devices.end(), d) != devices.end()) throw error(fmt::format("device {} listed twice", d));
    devices.push_back(d);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return devices;
}

std::vector<int> local_device_list(const std::string& text) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  return parse_device_list(text, count);
}

std::vector<std::string> claimed_without_record(const std::string& claim_dir, const std::vector<ordered_json>& results) {
  std::set<std::string> recorded;
  for (const auto& r : results) recorded.insert(record_point_id(r));
  std::vector<std::string> held;
  for (auto& id : claimed_point_ids(claim_dir))
    if (!recorded.count(id)) held.push_back(std::move(id));
  return held;
}

namespace {

// --each-device: the whole sweep on every device at once, each into its own folder (GPUs of one
// model would otherwise name their files alike).
int run_on_each_device(const MultiDeviceRun& run, const std::string& exe, std::ostream& log) {
  std::vector<pid_t> workers;
  for (int d : run.devices) {
    std::string out = (fs::path(run.out_dir) / fmt::format("device{}", d)).string();
    std::vector<std::string> args = {"run", run.config_path, "--device", std::to_string(d), "--out", out};
    args.insert(args.end(), run.worker_args.begin(), run.worker_args.end());
    workers.push_back(start_worker(exe, args));
  }
  int worst = 0;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    int code = wait_worker(workers[i]);
    if (code != 0) log << fmt::format("occbench run: the worker on device {} exited with {}\n", run.devices[i], code);
    worst = std::max(worst, code);
  }
  log << fmt::format("occbench run --each-device: the sweep ran on devices {}; one results file each in {}/device<N>/ "
                     "(occbench report/compare and plots/occplot.py --overlay take them together)\n",
                     fmt::join(run.devices, ","), run.out_dir);
  return worst;
}

// One sweep over several devices: where its files go, and what its .jsonl header says to resume it.
struct SharedSweep {
  std::string stem, started, config_path, jsonl_path;
  std::vector<int> devices;
  std::vector<std::string> worker_args;
  ordered_json multi;
  fs::path parts_dir, claims;
};

SharedSweep shared_sweep(const MultiDeviceRun& run) {
  SharedSweep s{"", utc_now_iso(), run.config_path, "", run.devices, run.worker_args, {}, {}, {}};
  if (!run.resume_path.empty()) {
    s.multi = run.resume_header["multi_device"];
    s.stem = run.resume_path.substr(0, run.resume_path.size() - std::string(".jsonl").size());
    s.devices = s.multi["devices"].get<std::vector<int>>();
    s.worker_args = s.multi["worker_args"].get<std::vector<std::string>>();
    s.config_path = run.resume_header.value("config_source", "");
    s.started = run.resume_header.value("started_utc", s.started);
  } else {
    std::set<std::string> names;
    for (int d : s.devices) names.insert(device_name(d));
    std::string label = names.size() == 1 ? *names.begin() : "mixed";
    s.stem = output_stem(run.out_dir, run.sweep_name, fmt::format("{}x{}", s.devices.size(), label), utc_now_compact());
    s.multi = {{"devices", s.devices}, {"parts_dir", fs::path(s.stem + ".parts").filename().string()}, {"worker_args", s.worker_args}};
  }
  s.parts_dir = fs::path(s.stem).parent_path() / s.multi["parts_dir"].get<std::string>();
  s.claims = s.parts_dir / "claims";
  s.jsonl_path = s.stem + ".jsonl";
  return s;
}

// A new run: the .jsonl is only its header until the workers finish (what run --resume needs to
// restart them). A resumed one: claims of unfinished points are dropped (a worker died holding
// them), finished ones kept.
void prepare_claims(const MultiDeviceRun& run, const SharedSweep& s) {
  if (run.resume_path.empty()) {
    ordered_json header = {{"occbench_jsonl", kJsonlVersion},          {"tool", tool_block()},
                           {"config", read_json_file(s.config_path)}, {"config_source", s.config_path},
                           {"started_utc", s.started},     {"multi_device", s.multi}};
    fs::create_directories(s.claims);
    write_text_file(s.jsonl_path, header.dump() + "\n");
    return;
  }
  fs::remove_all(s.claims);
  fs::remove_all(s.parts_dir / "slots");  // a shared search's budget slots: its workers take them again
  fs::create_directories(s.claims);
  for (int d : s.devices) {
    std::string part = part_file(s.parts_dir / fmt::format("device{}", d), ".jsonl");
    if (part.empty()) continue;
    std::vector<std::string> finished;
    for (const auto& r : read_jsonl(part).results) finished.push_back(record_point_id(r));
    mark_claimed(s.claims.string(), finished);
  }
}

// One worker per device, each writing its part; the worst exit code of them.
int run_workers(const SharedSweep& s, const std::string& exe, std::ostream& log) {
  log << fmt::format("occbench run: {} worker(s) on devices {}; their parts in {}\n", s.devices.size(), fmt::join(s.devices, ","),
                     s.parts_dir.string());
  // Each worker compiles ahead of the points it measures (a search: its likely next) with its share
  // of the cores, unless the user set the count; without, a cold search waits on the compiler. Set
  // here, before the forks, for the workers to inherit: this process compiles nothing afterwards.
  if (!std::getenv("OCCBENCH_COMPILE_PROCESSES"))
    setenv("OCCBENCH_COMPILE_PROCESSES", std::to_string(std::max(2u, compile_processes() / unsigned(s.devices.size()))).c_str(), 1);
  std::vector<pid_t> workers;
  for (int d : s.devices) {
    fs::path dir = s.parts_dir / fmt::format("device{}", d);
    std::string part = part_file(dir, ".jsonl");
    std::vector<std::string> args = part.empty() ? std::vector<std::string>{"run", s.config_path, "--out", dir.string()}
                                                 : std::vector<std::string>{"run", "--resume", part};
    for (const std::string& a : {std::string("--device"), std::to_string(d), std::string("--claim-dir"), s.claims.string()})
      args.push_back(a);
    args.insert(args.end(), s.worker_args.begin(), s.worker_args.end());
    workers.push_back(start_worker(exe, args));
  }
  int worst = 0;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    int code = wait_worker(workers[i]);
    if (code != 0 && code != 1)
      log << fmt::format("occbench run: the worker on device {} exited with {}; run --resume {} continues\n", s.devices[i], code,
                         s.jsonl_path);
    // Bad input and no GPU keep their codes; a crash or a lost context is a failed run (1).
    worst = std::max(worst, code == kExitBadInput || code == kExitNoGpu || code <= kExitFailed ? code : int(kExitFailed));
  }
  return worst;
}

// The parts merged into STEM.json/.csv/.jsonl; the exit code (1 where a point failed or a claimed
// point was never recorded).
int merge_parts(const SharedSweep& s, const MultiDeviceRun& run, const Registry& registry, double wall_s, int worst,
                std::ostream& log) {
  std::vector<ShardOutput> parts;
  for (int d : s.devices) {
    fs::path dir = s.parts_dir / fmt::format("device{}", d);
    std::string part = part_file(dir, ".json");
    if (part.empty()) part = part_file(dir, ".jsonl");
    if (part.empty()) {
      log << fmt::format("occbench run: device {} left no results in {}\n", d, dir.string());
      return std::max(worst, 1);
    }
    parts.push_back(read_shard_output(part));
  }
  MergedResults merged = merge_shard_outputs(parts, registry);
  for (std::size_t i = 0; i < merged.devices.size(); ++i) merged.devices[i]["ordinal"] = s.devices[i];
  double timed_s = 0;
  for (const auto& part_run : merged.runs) timed_s += part_run.value("timed_s", 0.0);
  ordered_json run_block = {{"kind", "run"},          {"devices", s.devices},          {"started_utc", s.started},
                            {"finished_utc", utc_now_iso()}, {"command", run.command_line}, {"config_source", s.config_path},
                            {"wall_s", wall_s},       {"timed_s", timed_s},            {"parts", merged.runs}};
  if (!merged.runs.empty()) run_block["measurement"] = merged.runs.front().value("measurement", ordered_json(nullptr));
  if (!merged.runs.empty() && merged.runs.front().contains("strategy")) run_block["strategy"] = merged.runs.front()["strategy"];  // a sample or a shared search
  std::size_t ok = 0, failed = 0, skipped = 0;
  for (const auto& r : merged.results) {
    std::string status = r.value("status", "");
    ok += status == "ok", failed += status == "failed", skipped += status == "skipped";
  }
  write_text_file(s.stem + ".json", merged_document(merged, run_block).dump(2) + "\n");
  write_text_file(s.stem + ".csv", to_csv(merged.results));
  write_text_file(s.jsonl_path, merged_jsonl(merged, {{"started_utc", s.started}, {"multi_device", s.multi}}));
  log << fmt::format("\nall devices: {} ok, {} failed, {} skipped in {:.1f} s on {} GPU(s)\nwrote {}.json\n      {}.csv\n      {}\n",
                     ok, failed, skipped, wall_s, s.devices.size(), s.stem, s.stem, s.jsonl_path);
  if (failed > 0) worst = std::max(worst, 1);
  // A point claimed by a worker that stopped before recording it has no record anywhere: say so.
  std::vector<std::string> held = claimed_without_record(s.claims.string(), merged.results);
  if (!held.empty()) {
    log << fmt::format("occbench run: {} point(s) were claimed by a worker that stopped before recording them and were "
                       "not measured: {}; run --resume {} measures them\n",
                       held.size(), fmt::join(held, ", "), s.jsonl_path);
    worst = std::max(worst, 1);
  }
  return worst;
}

}  // namespace

int run_on_devices(const MultiDeviceRun& run, const Registry& registry, std::ostream& log) {
  std::string exe = self_executable();
  auto t0 = std::chrono::steady_clock::now();
  if (run.each_device) return run_on_each_device(run, exe, log);
  SharedSweep sweep = shared_sweep(run);
  prepare_claims(run, sweep);
  int worst = run_workers(sweep, exe, log);
  return merge_parts(sweep, run, registry, seconds_since(t0), worst, log);
}

}  // namespace occbench
