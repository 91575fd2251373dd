#pragma once
// Hand-made result records and documents for the report and compare tests.
#include "harness/cli/cli.hpp"
#include "harness/records/record_writer.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

namespace occbench::testing_support {

// An ok point of family "f" with a median, its noise and sample count; metrics as a run writes them.
inline ordered_json make_record(const std::string& variant, int block_size, double median_ms, double noise = 0.01,
                                int samples = 20, const std::string& status = "ok") {
  ordered_json r;
  r["point_id"] = "f/" + variant + "/n=1024/block_size=" + std::to_string(block_size);
  r["family"] = "f";
  r["variant"] = variant;
  r["params"] = {{"n", 1024}, {"block_size", block_size}};
  r["status"] = status;
  r["reason"] = status == "ok" ? "" : "a reason | with a pipe";
  r["occupancy"] = {{"theoretical", 0.5}, {"limiter", "registers"}};
  r["work"] = {{"flops", 1024.0}, {"global_bytes", 8192.0}, {"dram_bytes", 8192.0}, {"cgma_flop_per_byte", 0.125}};
  if (status == "ok") {
    r["timing"] = {{"mode", "cold"},           {"samples", samples},
                   {"median_ms", median_ms},   {"mean_ms", median_ms},
                   {"min_ms", median_ms * 0.98}, {"max_ms", median_ms * 1.05},
                   {"stddev_ms", noise * median_ms}, {"noise", noise}};
    double seconds = median_ms / 1e3;
    r["metrics"] = {{"achieved_bandwidth_gbps", 8192.0 / seconds / 1e9},
                    {"gflops", 1024.0 / seconds / 1e9},
                    {"pct_of_measured_bandwidth", 12.5},
                    {"pct_of_peak_bandwidth", 10.0},
                    {"speedup_vs_baseline", 2.0}};
  } else {
    r["timing"] = nullptr;
    r["metrics"] = nullptr;
  }
  return r;
}

inline ordered_json make_doc(const std::string& device, const std::vector<ordered_json>& results) {
  ordered_json config = {{"name", "f_sweep"}, {"family", "f"}, {"baseline", "global"}};
  ordered_json doc = make_document({{"kind", "run"}, {"finished_utc", "2026-01-01T00:00:00Z"}},
                                   {{"name", device}, {"sm_count", 132}}, config, results);
  return doc;
}

// A fresh temporary folder per test, removed at the end.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            (std::string("occbench_") + info->test_suite_name() + "_" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    std::string p = (path_ / name).string();
    write_text_file(p, text);
    return p;
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

struct CliResult {
  int code;
  std::string out, err;
};

// Runs `occbench ARGS...` in process, capturing what it prints.
inline CliResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "occbench");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  int code = cli_main(int(argv.size()), argv.data(), builtin_registry());
  std::string out = ::testing::internal::GetCapturedStdout();
  std::string err = ::testing::internal::GetCapturedStderr();
  return {code, out, err};
}

// run_cli's stdout and stderr as one text, its exit code in `code`.
inline std::string run_cli_out(std::vector<std::string> args, int& code) {
  CliResult r = run_cli(std::move(args));
  code = r.code;
  return r.out + r.err;
}

}  // namespace occbench::testing_support
