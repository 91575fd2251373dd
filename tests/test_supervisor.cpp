// The supervisor of `occbench run` for user kernels, with a shell script standing in for the
// sweep's child: a point that outlives the watchdog is killed, recorded failed in the .jsonl (a
// half-written last line dropped first), and the sweep continues in a new child with --resume.
#include "harness/measure/device.hpp"
#include "harness/run/compile_workers.hpp"
#include "harness/run/supervisor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

// Options whose child is `script` (a bash script standing in for occbench), written into `dir`.
occbench::SupervisorOptions options_with_child(const fs::path& dir, const std::string& script, double watchdog_s) {
  fs::path child = dir / "child.sh";
  std::ofstream(child) << "#!/bin/bash\n" << script << "\n";
  fs::permissions(child, fs::perms::owner_all);
  occbench::SupervisorOptions options;
  options.executable = child.string();
  options.first_args = {"first"};
  options.resume_args = {"--device", "0"};
  options.watchdog_s = watchdog_s;
  options.failed_record = [](const std::string& id, const std::string& reason) {
    return occbench::ordered_json{{"point_id", id}, {"status", "failed"}, {"reason", reason}};
  };
  return options;
}

}  // namespace

TEST(Supervisor, WatchdogFailsTheHangingPointAndResumes) {
  fs::path dir = fs::temp_directory_path() / ("occbench_supervisor_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path jsonl = dir / "run.jsonl";
  fs::path calls = dir / "calls.txt";
  std::ofstream(jsonl) << "{\"occbench_jsonl\":1}\n{\"point_id\":\"a\",\"status\":\"ok\"}\n{\"point_id\":\"b\",\"sta";
  // First child: announces its .jsonl and point b, then hangs. Second child (run --resume ...):
  // records its arguments and finishes with exit 1.
  std::string script = "if [ \"$1\" = run ]; then echo \"$@\" > " + calls.string() + "; exit 1; fi; " +
                       "echo \"jsonl " + jsonl.string() + "\" >&$OCCBENCH_SUPERVISOR_FD; " +
                       "echo \"begin b\" >&$OCCBENCH_SUPERVISOR_FD; exec sleep 30";
  occbench::SupervisorOptions options = options_with_child(dir, script, 0.5);
  std::ostringstream log;
  EXPECT_EQ(occbench::supervise_run(options, log), 1) << log.str();
  std::ifstream in(jsonl);
  std::string header, a, b, extra;
  std::getline(in, header);
  std::getline(in, a);
  std::getline(in, b);
  EXPECT_FALSE(std::getline(in, extra)) << extra;
  EXPECT_EQ(a, "{\"point_id\":\"a\",\"status\":\"ok\"}");
  EXPECT_NE(b.find("\"point_id\":\"b\",\"status\":\"failed\""), std::string::npos) << b;
  EXPECT_NE(b.find("watchdog"), std::string::npos) << b;
  std::ifstream call(calls);
  std::string args;
  std::getline(call, args);
  EXPECT_EQ(args, "run --resume " + jsonl.string() + " --device 0");
  fs::remove_all(dir);
}

// A child that announces a lost context hands the run to the standby at once: the standby (started
// when the child began its points, waiting) is released ("go": it reads the record) while the lost
// child is still ending, and cleared to measure once that child is gone; a standby left unused
// when the sweep ends is stopped.
TEST(Supervisor, TheStandbyPreparesWhileTheLostChildEndsAndMeasuresAfter) {
  fs::path dir = fs::temp_directory_path() / ("occbench_standby_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path jsonl = dir / "run.jsonl";
  std::ofstream(jsonl) << "{\"occbench_jsonl\":1}\n";
  std::string d = dir.string();
  std::string script =
      "if [ -n \"$OCCBENCH_STANDBY_FD\" ]; then echo $$ >> " + d + "/standby_pids; "
      "read -r line <&$OCCBENCH_STANDBY_FD || exit 0; echo \"$line $*\" > " + d + "/released; "
      "read -r line <&$OCCBENCH_STANDBY_FD; [ -f " + d + "/ended ] && echo \"$line\" > " + d + "/cleared_after_end; "
      "echo \"jsonl " + jsonl.string() + "\" >&$OCCBENCH_SUPERVISOR_FD; echo \"begin c\" >&$OCCBENCH_SUPERVISOR_FD; "
      "echo \"end c\" >&$OCCBENCH_SUPERVISOR_FD; sleep 0.5; exit 0; fi\n"
      "echo \"jsonl " + jsonl.string() + "\" >&$OCCBENCH_SUPERVISOR_FD; echo \"begin b\" >&$OCCBENCH_SUPERVISOR_FD\n"
      "sleep 0.5; echo lost >&$OCCBENCH_SUPERVISOR_FD; sleep 1.5\n"
      "[ -f " + d + "/released ] && echo yes > " + d + "/released_before_end; touch " + d + "/ended; exit 75";
  occbench::SupervisorOptions options = options_with_child(dir, script, 30);
  std::ostringstream log;
  EXPECT_EQ(occbench::supervise_run(options, log), 0) << log.str();
  std::string released, before_end, cleared;
  std::getline(std::ifstream(dir / "released"), released);
  EXPECT_EQ(released, "go run --resume " + jsonl.string() + " --device 0");
  std::getline(std::ifstream(dir / "released_before_end"), before_end);
  EXPECT_EQ(before_end, "yes") << "the standby was released only after the lost child ended";
  std::getline(std::ifstream(dir / "cleared_after_end"), cleared);
  EXPECT_EQ(cleared, "clear") << "the standby was cleared to measure before the lost child had ended";
  std::ifstream pids(dir / "standby_pids");
  int standbys = 0;
  for (pid_t pid = 0; pids >> pid; ++standbys)
    EXPECT_TRUE(::kill(pid, 0) != 0 && errno == ESRCH) << "standby " << pid << " outlived the run";
  EXPECT_EQ(standbys, 2) << "one released, one started after it and stopped unused";
  fs::remove_all(dir);
}

// The process that goes on after a fault resumes the run and keeps the run's ceilings (measured
// at its start) instead of measuring them again, where its record is of this same GPU.
TEST(Supervisor, AResumedRunKeepsTheCeilingsOfItsOwnGpu) {
  occbench::DeviceInfo device;
  device.name = "NVIDIA H100 80GB HBM3";
  device.pci_bus_id = "0000:00:06.0";
  nlohmann::ordered_json recorded = {{"name", device.name},           {"pci_bus_id", device.pci_bus_id},
                                     {"measured_bandwidth_gbps", 2971.7}, {"measured_l2_bandwidth_gbps", 9000.5},
                                     {"measured_smem_bandwidth_gbps", 30000.25}, {"dram_latency_ns", 650.0}};
  occbench::DeviceInfo other = device;
  other.pci_bus_id = "0000:00:07.0";
  EXPECT_FALSE(occbench::reuse_ceilings(other, recorded)) << "another GPU of the machine measures its own";
  EXPECT_FALSE(other.measured_bandwidth_gbps);
  nlohmann::ordered_json incomplete = recorded;
  incomplete["dram_latency_ns"] = nullptr;
  EXPECT_FALSE(occbench::reuse_ceilings(device, incomplete));
  EXPECT_FALSE(occbench::reuse_ceilings(device, nlohmann::ordered_json()));
  ASSERT_TRUE(occbench::reuse_ceilings(device, recorded));
  EXPECT_EQ(device.measured_bandwidth_gbps, 2971.7);
  EXPECT_EQ(device.measured_l2_bandwidth_gbps, 9000.5);
  EXPECT_EQ(device.measured_smem_bandwidth_gbps, 30000.25);
  EXPECT_EQ(device.dram_latency_ns, 650.0);
}

// Compile workers fill every core while the run measures: they must yield to the measuring process
// (sh -c 'sleep 5' stands in for occbench plan; --compile-share W/N become its $0 and $1).
TEST(CompileWorkers, RunBelowTheProcessThatStartedThem) {
  errno = 0;
  int own = getpriority(PRIO_PROCESS, 0);
  ASSERT_EQ(errno, 0);
  if (own >= 19) GTEST_SKIP() << "this test runs at the lowest priority already (nice 19)";
  occbench::CompileWorkers workers({"sh", "-c", "sleep 5"}, 2, /*hide_gpus=*/false, "/bin/sh");
  ASSERT_EQ(workers.count(), 2u);
  for (pid_t pid : workers.pids()) {
    errno = 0;
    int niceness = getpriority(PRIO_PROCESS, pid);
    ASSERT_EQ(errno, 0) << "worker " << pid;
    EXPECT_EQ(niceness, std::min(19, own + occbench::CompileWorkers::kWorkerNiceness)) << "worker " << pid;
    EXPECT_GT(niceness, own) << "worker " << pid;
  }
}  // the destructor stops them
