// occbench doctor (harness/run/doctor.hpp): one line per capability, a fix for each that is
// missing, exit 0 only where runs can work. Runs on any machine: with or without a GPU.
#include "harness/core/cuda_check.hpp"
#include "harness/run/doctor.hpp"

#include "results_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

using namespace occbench;

TEST(Doctor, SaysWhatIsMissingAndHowToGetIt) {
  std::vector<Capability> all_ok = {{"GPU", true, "an H100", "", true}, {"ncu", true, "/usr/bin/ncu", ""}};
  EXPECT_EQ(doctor_exit_code(all_ok), 0);
  EXPECT_NE(format_capabilities(all_ok).find("Runs can work here."), std::string::npos);
  std::vector<Capability> no_tool = {{"GPU", true, "an H100", "", true}, {"ncu", false, "not on the PATH", "install it"}};
  EXPECT_EQ(doctor_exit_code(no_tool), 0) << "a missing tool does not stop runs";
  std::string text = format_capabilities(no_tool);
  EXPECT_NE(text.find("no  ncu"), std::string::npos) << text;
  EXPECT_NE(text.find("fix: install it"), std::string::npos) << text;
  std::vector<Capability> no_gpu = {{"GPU", false, "no CUDA device", "a GPU", true}};
  EXPECT_EQ(doctor_exit_code(no_gpu), 1);
  text = format_capabilities(no_gpu);
  EXPECT_NE(text.find("Runs cannot work here (GPU: no CUDA device)"), std::string::npos) << text;
  EXPECT_NE(text.find("plan --gpu KEY"), std::string::npos) << text;
}

TEST(Doctor, ChecksThisMachine) {
  testing_support::CliResult r = testing_support::run_cli({"doctor"});
  bool gpu = !no_gpu_reason();
  EXPECT_EQ(r.code, gpu ? 0 : 1) << r.out << r.err;
  EXPECT_NE(r.out.find(gpu ? "ok  GPU" : "no  GPU"), std::string::npos) << r.out;
  for (const char* line : {"ok  NVRTC", "nvcc", "ok  muparser", "hardware counters", "clock locking", "energy counter", "ncu",
                           "compute-sanitizer", "shipped files"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  // A cache folder that cannot be written is named, with the fix.
  setenv("OCCBENCH_CACHE_DIR", "/proc/occbench-doctor-test", 1);
  r = testing_support::run_cli({"doctor"});
  unsetenv("OCCBENCH_CACHE_DIR");
  EXPECT_NE(r.out.find("no  NVRTC cache"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fix: set OCCBENCH_CACHE_DIR"), std::string::npos) << r.out;
}

// A tool's line names the first line of its --version output that says "version", and no more.
TEST(Doctor, NamesAToolsVersionLine) {
  testing_support::TempDir dir;
  std::string ncu = dir.write("ncu", "#!/bin/sh\necho 'NVIDIA (R) Nsight Compute Command Line Profiler'\n"
                                 "echo 'Version 2099.1.0.0 (build 1)'\necho 'other version line'\n");
  std::filesystem::permissions(ncu, std::filesystem::perms::owner_all);
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", (std::filesystem::path(ncu).parent_path().string() + ":" + path).c_str(), 1);
  testing_support::CliResult r = testing_support::run_cli({"doctor"});
  setenv("PATH", path.c_str(), 1);
  EXPECT_NE(r.out.find("ok  ncu"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(ncu + " (Version 2099.1.0.0 (build 1))\n"), std::string::npos) << r.out;
}
