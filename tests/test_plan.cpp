// `occbench plan` without a GPU: records, files, the GPU table listing and bad input.
#include "harness/cli/cli.hpp"
#include "data_dir.hpp"
#include "harness/run/plan.hpp"
#include "plan_test_support.hpp"
#include "harness/sweep/config.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace occbench;
namespace fs = std::filesystem;

namespace {

const std::string kConfig = std::string(OCCBENCH_SOURCE_DIR) + "/configs/adjacent_difference.json";

fs::path fresh_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() /
             ("occbench-" + name + "-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  fs::create_directories(dir);
  return dir;
}

struct Outcome {
  int code = 0;
  std::string out, err;
};

Outcome plan(PlanOptions options) {
  std::ostringstream out, err;
  Outcome o;
  o.code = plan_main(options, builtin_registry(), out, err);
  o.out = out.str();
  o.err = err.str();
  return o;
}

std::vector<fs::path> files_in(const fs::path& dir, const std::string& extension) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == extension) found.push_back(e.path());
  return found;
}

// Plans the shipped adjacent_difference sweep for `gpu` and checks the files and every record.
void check_adjacent_difference_plan(const std::string& gpu, int max_warps_per_sm, int arch) {
  auto dir = fresh_dir("plan-" + gpu);
  PlanOptions options;
  options.config = kConfig;
  options.gpu = gpu;
  options.out_dir = dir.string();
  Outcome o = plan(options);
  ASSERT_EQ(o.code, 0) << o.err << o.out;
  EXPECT_NE(o.out.find("planned"), std::string::npos);

  auto jsons = files_in(dir, ".json");
  auto csvs = files_in(dir, ".csv");
  ASSERT_EQ(jsons.size(), 1u);
  ASSERT_EQ(csvs.size(), 1u);
  EXPECT_EQ(jsons[0].filename().string().rfind("adjacent_difference-plan-" + gpu + "-", 0), 0u) << jsons[0];
  ordered_json doc = read_json_file(jsons[0].string());
  EXPECT_EQ(doc["schema_version"], kSchemaVersion);
  EXPECT_EQ(doc["run"]["kind"], "plan");
  EXPECT_EQ(doc["run"]["resource_arch"], "sm_" + std::to_string(arch));
  EXPECT_EQ(doc["device"]["name"], gpu_by_key(gpu).name);
  EXPECT_TRUE(doc["device"]["measured_bandwidth_gbps"].is_null());
  EXPECT_EQ(doc["device"]["sm_count"], gpu_by_key(gpu).limits.sm_count);
  EXPECT_EQ(doc["config"]["name"], "adjacent_difference");

  SweepSpec spec = parse_sweep_file(kConfig, builtin_registry());
  const auto& results = doc["results"];
  ASSERT_EQ(results.size(), expand_sweep(spec, builtin_registry()).size());
  int kernels = 0;
  for (const auto& r : results) {
    SCOPED_TRACE(r["point_id"].get<std::string>());
    EXPECT_EQ(r["status"], "planned") << r["reason"];
    EXPECT_TRUE(r["timing"].is_null());
    EXPECT_TRUE(r["metrics"].is_null());
    EXPECT_GT(r["work"]["flops"].get<double>(), 0);
    EXPECT_GT(r["work"]["cgma_flop_per_byte"].get<double>(), 0);
    EXPECT_EQ(r["footprint"]["device_bytes"], r["params"]["n"].get<std::int64_t>() * 12);
    if (r["variant"] == "host") {
      EXPECT_TRUE(r["occupancy"].is_null());
      EXPECT_NE(r["reason"].get<std::string>().find("no kernel of ours to plan"), std::string::npos);
      continue;
    }
    ++kernels;
    EXPECT_EQ(r["resources"]["arch"], "sm_" + std::to_string(arch));
    EXPECT_GT(r["resources"]["registers_per_thread"].get<int>(), 0);
    const auto& occ = r["occupancy"];
    ASSERT_TRUE(occ.is_object());
    EXPECT_FALSE(occ["limiter"].get<std::string>().empty());
    EXPECT_EQ(occ["max_warps_per_sm"], max_warps_per_sm);
    int block = r["params"]["block_size"];
    EXPECT_EQ(occ["active_warps_per_sm"].get<int>(), occ["active_blocks_per_sm"].get<int>() * (block / 32));
    EXPECT_GT(occ["theoretical"].get<double>(), 0);
    EXPECT_LE(occ["theoretical"].get<double>(), 1);
    if (r["variant"] == "shared_static") EXPECT_EQ(r["resources"]["static_smem_bytes"], 4096);
    if (r["variant"] == "shared_dynamic") EXPECT_EQ(r["launch"]["dynamic_smem_bytes"], block * 4);
  }
  EXPECT_EQ(kernels, 32);

  std::ifstream csv_in(csvs[0]);
  std::stringstream csv_text;
  csv_text << csv_in.rdbuf();
  auto rows = parse_csv(csv_text.str());
  ASSERT_EQ(rows.size(), results.size() + 1);
  const auto& header = rows[0];
  for (const char* column : {"status", "occupancy_limiter", "resources_registers_per_thread", "work_cgma_flop_per_byte",
                             "footprint_device_bytes"})
    EXPECT_NE(std::find(header.begin(), header.end(), column), header.end()) << column;
  fs::remove_all(dir);
}

}  // namespace

TEST(Plan, AdjacentDifferenceOnH100) { check_adjacent_difference_plan("h100", 64, 90); }

// Needs sm_75 in CMAKE_CUDA_ARCHITECTURES (the default build has it). Without it, plan must refuse
// the T4 clearly, naming the architectures that were built.
TEST(Plan, AdjacentDifferenceOnT4) {
  auto built = built_cuda_architectures();
  if (sass_arch_for(7, 5, built)) {
    check_adjacent_difference_plan("t4", 32, 75);
    return;
  }
  PlanOptions options;
  options.config = kConfig;
  options.gpu = "t4";
  options.write_files = false;
  Outcome o = plan(options);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("sm_75"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(arch_list_text(built)), std::string::npos) << o.err;
}

TEST(Plan, H100AndT4DifferWhereTheirLimitsDo) {
  // The same launch on two architectures: an H100 SM holds 64 warps, a T4 SM 32, so a 1024-thread
  // block of the global kernel fits twice on the first and once on the second.
  auto built = built_cuda_architectures();
  if (!sass_arch_for(7, 5, built) || !sass_arch_for(9, 0, built)) GTEST_SKIP() << "needs sm_75 and sm_90 in the build";
  SweepSpec spec = parse_sweep_file(kConfig, builtin_registry());
  for (const auto& point : expand_sweep(spec, builtin_registry())) {
    if (point.variant->name != "global" || point.params.get("block_size") != 1024) continue;
    auto h100 = plan_point(point, plan_target(gpu_by_key("h100"), built), built_kernel_resources());
    auto t4 = plan_point(point, plan_target(gpu_by_key("t4"), built), built_kernel_resources());
    EXPECT_EQ(h100["occupancy"]["active_blocks_per_sm"], 2);
    EXPECT_EQ(t4["occupancy"]["active_blocks_per_sm"], 1);
    EXPECT_EQ(h100["occupancy"]["limiter"], "warps");
    EXPECT_EQ(t4["occupancy"]["limiter"], "warps");
  }
}

TEST(Plan, ALaunchTheGpuCannotTakeIsSkippedWithTheReason) {
  auto built = built_cuda_architectures();
  if (!sass_arch_for(9, 0, built)) GTEST_SKIP() << "needs sm_90 in the build";
  PlanTarget target = plan_target(gpu_by_key("h100"), built);
  target.limits.max_threads_per_block = 512;  // a made-up GPU: 1024-thread blocks cannot run
  SweepSpec spec = parse_sweep_file(kConfig, builtin_registry());
  int skipped = 0;
  for (const auto& point : expand_sweep(spec, builtin_registry())) {
    if (point.variant->name == "host") continue;
    auto r = plan_point(point, target, built_kernel_resources());
    if (point.params.get("block_size") == 1024) {
      EXPECT_EQ(r["status"], "skipped");
      EXPECT_NE(r["reason"].get<std::string>().find("1024"), std::string::npos) << r["reason"];
      EXPECT_TRUE(r["occupancy"].is_null());
      ++skipped;
    } else {
      EXPECT_EQ(r["status"], "planned") << r["reason"];
    }
  }
  EXPECT_EQ(skipped, 8);
}

TEST(Plan, AKernelMissingFromTheBuildFailsThePoint) {
  SweepSpec spec = parse_sweep_file(kConfig, builtin_registry());
  auto points = expand_sweep(spec, builtin_registry());
  auto global = std::find_if(points.begin(), points.end(), [](const Point& p) { return p.variant->name == "global"; });
  ASSERT_NE(global, points.end());
  auto empty = KernelResourceTable::parse("");
  auto r = plan_point(*global, plan_target(gpu_by_key("h100"), {90}), empty);
  EXPECT_EQ(r["status"], "failed");
  EXPECT_NE(r["reason"].get<std::string>().find("occbench::adjacent_difference::global_kernel"), std::string::npos);
}

TEST(Plan, ListGpusShowsEveryKey) {
  PlanOptions options;
  options.list_gpus = true;
  Outcome o = plan(options);
  EXPECT_EQ(o.code, 0);
  for (const auto& g : gpu_table()) EXPECT_NE(o.out.find(g.key + " "), std::string::npos) << g.key;
  EXPECT_NE(o.out.find("machine code for: " + arch_list_text(built_cuda_architectures())), std::string::npos) << o.out;

  // Through the command line too.
  std::vector<std::string> args = {"occbench", "plan", "--list-gpus"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream captured;
  auto* old = std::cout.rdbuf(captured.rdbuf());
  int code = cli_main(int(argv.size()), argv.data(), builtin_registry());
  std::cout.rdbuf(old);
  EXPECT_EQ(code, 0);
  EXPECT_NE(captured.str().find("h100"), std::string::npos);
}

TEST(Plan, UnknownGpuExitsTwoNamingTheKnownKeys) {
  PlanOptions options;
  options.config = kConfig;
  options.gpu = "gtx480";
  options.write_files = false;
  Outcome o = plan(options);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("unknown GPU 'gtx480'"), std::string::npos) << o.err;
  for (const auto& g : gpu_table()) EXPECT_NE(o.err.find(g.key), std::string::npos) << g.key;

  std::vector<std::string> args = {"occbench", "plan", kConfig, "--gpu", "gtx480"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream captured;
  auto* old = std::cerr.rdbuf(captured.rdbuf());
  int code = cli_main(int(argv.size()), argv.data(), builtin_registry());
  std::cerr.rdbuf(old);
  EXPECT_EQ(code, kExitBadInput);
  EXPECT_NE(captured.str().find("b200"), std::string::npos) << captured.str();
}

TEST(Plan, BadInputExitsTwo) {
  PlanOptions options;
  options.write_files = false;
  EXPECT_EQ(plan(options).code, 2);  // no config
  options.config = "/nonexistent/sweep.json";
  Outcome o = plan(options);
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("/nonexistent/sweep.json"), std::string::npos);
}

TEST(Plan, WithoutGpuFlagPlansForThisGpuOrTheDefault) {
  auto dir = fresh_dir("plan-default");
  PlanOptions options;
  options.config = kConfig;
  options.out_dir = dir.string();
  Outcome o = plan(options);
  auto jsons = files_in(dir, ".json");
  if (no_gpu_reason()) {
    if (!sass_arch_for(9, 0, built_cuda_architectures())) {
      EXPECT_EQ(o.code, 2);
      return;
    }
    ASSERT_EQ(o.code, 0) << o.err;
    EXPECT_NE(o.out.find("no GPU here"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("timings need a GPU"), std::string::npos) << o.out;
    ASSERT_EQ(jsons.size(), 1u);
    EXPECT_NE(jsons[0].filename().string().find("-plan-h100-"), std::string::npos) << jsons[0];
  } else {
    ASSERT_EQ(o.code, 0) << o.err;  // the local GPU's architecture is expected to be in the build
    ASSERT_EQ(jsons.size(), 1u);
    ordered_json doc = read_json_file(jsons[0].string());
    EXPECT_EQ(doc["device"]["name"], query_device(0).name);
    EXPECT_TRUE(doc["device"]["measured_bandwidth_gbps"].is_null());
  }
  fs::remove_all(dir);
}

TEST(Plan, TableIsPrintedWithEveryPoint) {
  SweepSpec spec = parse_sweep_file(kConfig, builtin_registry());
  PlanOptions options;
  options.write_files = false;
  std::ostringstream log;
  auto summary = plan_sweep(spec, builtin_registry(), plan_target(gpu_by_key("h100"), {90}),
                            KernelResourceTable::parse(""), options, log);
  // With no resources every kernel point fails, and says why under the table.
  EXPECT_EQ(summary.failed, 32u);
  EXPECT_EQ(summary.planned, 2u);
  EXPECT_NE(log.str().find("[32] no compiled kernel matches"), std::string::npos) << log.str();
}

TEST(Plan, ArchitectureOfTheMachineCodeAGpuRuns) {
  // An A10 (8.6) runs sm_80 machine code when the build has no sm_86: plan says so and uses it.
  PlanTarget a10 = plan_target(gpu_by_key("a10"), {75, 80, 90});
  EXPECT_EQ(a10.resource_arch, 80);
  EXPECT_NE(a10.note.find("no sm_86 code"), std::string::npos) << a10.note;
  EXPECT_EQ(plan_target(gpu_by_key("a10"), {80, 86}).note, "");
  // An A100 (8.0) cannot run sm_86 or sm_90 code: refused, naming what was built.
  try {
    plan_target(gpu_by_key("a100"), {86, 90});
    ADD_FAILURE() << "planned an A100 with no sm_80 code";
  } catch (const PlanError& e) {
    EXPECT_NE(std::string(e.what()).find("built: sm_86, sm_90"), std::string::npos) << e.what();
  }
  EXPECT_EQ(plan_target(gpu_by_key("sm_100"), {90, 100}).key, "b200");
}

TEST(Plan, AProblemLargerThanTheGpuMemoryIsSkippedWithTheReason) {
  // 8192 x 8191 pixels, 16 views of 32 channels: about 144 GiB, more than an 80 GiB H100 holds
  // (less than the largest GPU of the table: a config needing more is refused, Config tests).
  SweepSpec spec = parse_sweep_text(
      R"({"name": "huge", "family": "cost_volume", "variants": ["global"],
          "sizes": {"views": [2, 16], "width": [8192], "height": [8191]}, "axes": {"block_size": [256]}})",
      "huge.json", builtin_registry());
  auto points = expand_sweep(spec, builtin_registry());
  ASSERT_EQ(points.size(), 2u);
  PlanTarget target = plan_target(gpu_by_key("h100"), built_cuda_architectures());
  auto fits = plan_point(points[0], target, built_kernel_resources());
  auto too_big = plan_point(points[1], target, built_kernel_resources());
  EXPECT_NE(fits["status"], "skipped") << fits["reason"];
  EXPECT_EQ(too_big["status"], "skipped");
  std::string reason = too_big["reason"];
  EXPECT_NE(reason.find("GiB of device memory; the GPU has 80.00 GiB"), std::string::npos) << reason;
}
