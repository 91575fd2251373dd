// The command line as a user types it: --version, run --dry-run, and the point selection flags
// (--variants, --filter, --set, --axis) of run and plan, good and bad (exit 2 naming the flag).
#include "harness/cli/cli.hpp"
#include "data_dir.hpp"
#include "harness/sweep/selection.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/sweep/config.hpp"
#include "kernels/families.hpp"
#include "results_test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace occbench;
namespace fs = std::filesystem;

namespace {

const std::string kConfig = std::string(OCCBENCH_SOURCE_DIR) + "/configs/adjacent_difference.json";
const std::string kCovariance = std::string(OCCBENCH_SOURCE_DIR) + "/configs/covariance_chunk_sweep.json";

using Outcome = testing_support::CliResult;
using testing_support::run_cli;

std::vector<std::string> lines_after_first(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

}  // namespace

TEST(Cli, VersionPrintsVersionAndCommit) {
  Outcome o = run_cli({"--version"});
  EXPECT_EQ(o.code, kExitOk) << o.err;
  EXPECT_EQ(o.out, version_text() + "\n");
  EXPECT_EQ(o.out.rfind("occbench ", 0), 0u) << o.out;
  EXPECT_NE(o.out.find("(git "), std::string::npos) << o.out;
}

TEST(Cli, DryRunListsEveryPointWithoutAGpu) {
  Outcome o = run_cli({"run", kConfig, "--dry-run"});
  ASSERT_EQ(o.code, kExitOk) << o.err;
  auto ids = lines_after_first(o.out);
  EXPECT_EQ(ids.size(), 34u) << o.out;  // 2 sizes x (host + 4 variants x 4 block sizes)
  EXPECT_EQ(ids.front(), "adjacent_difference/host/n=16777216");
  EXPECT_NE(o.out.find("34 point(s) would run"), std::string::npos) << o.out;
}

TEST(Cli, VariantsSetAxisAndFilterNarrowTheSweep) {
  Outcome o = run_cli({"run", kConfig, "--dry-run", "--variants", "global,vectorized", "--set", "n=1000,4096", "--axis",
                        "block_size=[128,256]", "--filter", "n=4096"});
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_EQ(lines_after_first(o.out),
            (std::vector<std::string>{"adjacent_difference/global/n=4096/block_size=128",
                                      "adjacent_difference/global/n=4096/block_size=256",
                                      "adjacent_difference/vectorized/n=4096/block_size=128",
                                      "adjacent_difference/vectorized/n=4096/block_size=256"}));
}

// A config of the user's own kernel (its family is its own, not the registry's) takes the same flags.
TEST(Cli, AnUnknownEnvironmentSwitchIsBadInputNamingTheVariable) {
  for (const char* variable : {"OCCBENCH_L2_FLUSH", "OCCBENCH_TIMING_SOURCE", "OCCBENCH_COUNTERS_CONFIG", "OCCBENCH_COUNTERS_ENABLE"}) {
    ASSERT_EQ(setenv(variable, "bogus", 1), 0);
    Outcome o = run_cli({"run", kConfig, "--dry-run"});
    unsetenv(variable);
    EXPECT_EQ(o.code, kExitBadInput) << variable;
    EXPECT_NE(o.err.find(std::string("environment: ") + variable + ": expected"), std::string::npos) << o.err;
    EXPECT_NE(o.err.find("got 'bogus'"), std::string::npos) << o.err;
  }
  Outcome ok = run_cli({"run", kConfig, "--dry-run"});
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
}

TEST(Cli, SelectionNarrowsAUserKernelSweep) {
  const std::string config = std::string(OCCBENCH_SOURCE_DIR) + "/examples/my_scale/my_scale.json";
  Outcome o = run_cli({"run", config, "--dry-run", "--set", "block_size=128", "--filter", "items=4"});
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_EQ(lines_after_first(o.out), (std::vector<std::string>{"my_scale/scale/n=16777216/block_size=128/items=4"}));
  Outcome bad = run_cli({"run", config, "--dry-run", "--set", "no_such_axis=1"});
  EXPECT_EQ(bad.code, kExitBadInput);
  EXPECT_NE(bad.err.find("--set no_such_axis=1"), std::string::npos) << bad.err;
}

TEST(Cli, SetReplacesPerVariantValuesToo) {
  // register_tiled has its own split_k list in variant_axes; --set replaces it as well.
  Outcome o = run_cli({"run", kCovariance, "--dry-run", "--variants", "register_tiled", "--set", "split_k=2", "--set",
                        "block_tile=64", "--set", "thread_tile=4", "--set", "n=64", "--set", "m=64"});
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_EQ(lines_after_first(o.out),
            std::vector<std::string>{"covariance/register_tiled/m=64/n=64/block_tile=64/thread_tile=4/split_k=2"});
}

TEST(Cli, VariantsOfAUserKernelLeaveTheOthersKernelsAndRestrictions) {
  // The SYRK example: naive takes none of register_tiled's axes, which its kernel and the restrictions use.
  const std::string syrk = std::string(OCCBENCH_SOURCE_DIR) + "/examples/search/syrk/syrk.json";
  Outcome naive = run_cli({"run", syrk, "--dry-run", "--variants", "naive"});
  ASSERT_EQ(naive.code, kExitOk) << naive.err;
  EXPECT_EQ(lines_after_first(naive.out), std::vector<std::string>{"covariance/naive/m=20000/n=2475"});
  Outcome tiled = run_cli({"run", syrk, "--dry-run", "--variants", "register_tiled"});
  ASSERT_EQ(tiled.code, kExitOk) << tiled.err;
  EXPECT_NE(tiled.out.find("2640 point(s) would run"), std::string::npos) << tiled.out;  // the restrictions still hold
  Outcome bad = run_cli({"run", syrk, "--dry-run", "--variants", "nope"});
  EXPECT_EQ(bad.code, kExitBadInput);
  EXPECT_NE(bad.err.find("unknown variant 'nope' of family 'covariance'; valid variants: naive, register_tiled"), std::string::npos)
      << bad.err;
}

TEST(Cli, BadSelectionsExitTwoNamingTheFlagAndWhatWasExpected) {
  struct Case {
    std::vector<std::string> flags;
    std::string expected;
  };
  for (const auto& c : std::vector<Case>{
           {{"--set", "block_size=100"}, "--set block_size=100: block_size must be a multiple of 32 in [32, 1024]"},
           {{"--axis", "block_size=[64,x]"}, "--axis block_size=[64,x]: expected an integer, got string"},
           {{"--set", "block_size"}, "--set block_size: expected AXIS=V1,V2,... or AXIS=[V1,V2,...]"},
           {{"--set", "warp=1"}, "--set warp=1: unknown axis 'warp'; expected a size axis of family 'adjacent_difference' "
                                 "or a launch axis of the sweep's variants: n, block_size"},
           {{"--set", "n=0"}, "--set n=0: "},
           {{"--set", "block_size=64", "--axis", "block_size=[128]"}, "axis 'block_size' is set twice"},
           {{"--variants", "global,nope"}, "--variants global,nope: unknown variant 'nope' of family 'adjacent_difference'"},
           {{"--variants", "global,"}, "--variants global,: expected a comma-separated list of variant names"},
           {{"--filter", "("}, "--filter (: expected a regular expression"},
           {{"--filter", "block_size=7"}, "--filter block_size=7: expected a regular expression matching at least one of "
                                          "the sweep's 34 point ids"},
       }) {
    for (std::string command : {"run", "plan"}) {
      std::vector<std::string> args = {command, kConfig, "--gpu", "h100", "--out", fs::temp_directory_path().string()};
      if (command == "run") args = {command, kConfig, "--dry-run"};
      args.insert(args.end(), c.flags.begin(), c.flags.end());
      Outcome o = run_cli(args);
      EXPECT_EQ(o.code, kExitBadInput) << command << " " << c.flags[0] << ": " << o.out;
      EXPECT_NE(o.err.find(c.expected), std::string::npos) << command << ": expected '" << c.expected << "' in: " << o.err;
    }
  }
}

TEST(Cli, PlanEchoesTheSelectionInItsRunBlock) {
  auto dir = fs::temp_directory_path() /
             ("occbench-cli-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  Outcome o = run_cli({"plan", kConfig, "--gpu", "h100", "--out", dir.string(), "--variants", "vectorized", "--set",
                        "block_size=128,256", "--filter", "n=16777216"});
  ASSERT_EQ(o.code, kExitOk) << o.err;
  fs::path json_path;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") json_path = e.path();
  std::ifstream in(json_path);
  auto doc = nlohmann::ordered_json::parse(in);
  EXPECT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["run"]["selection"], nlohmann::ordered_json::parse(
                                         R"({"variants": ["vectorized"], "filter": "n=16777216", "set": {"block_size": [128, 256]}})"));
  EXPECT_EQ(doc["config"]["variants"].size(), 5u) << "the config block stays the input as given";
  fs::remove_all(dir);
}

TEST(Selection, AnEmptySelectionChangesNothingAndIsNotEchoed) {
  SweepSpec spec = parse_sweep_file(kConfig, builtin_registry());
  SweepSpec same = apply_selection(spec, PointSelection{}, builtin_registry());
  auto before = expand_sweep(spec, builtin_registry()), after = expand_sweep(same, builtin_registry());
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(before[i].id, after[i].id);
  EXPECT_TRUE(to_json(PointSelection{}).is_null());
}

TEST(Selection, DroppingTheBaselineFallsBackToTheFirstChosenVariant) {
  SweepSpec spec = parse_sweep_file(kConfig, builtin_registry());
  PointSelection selection;
  add_variant_names(selection, "vectorized,shared_static");
  SweepSpec chosen = apply_selection(spec, selection, builtin_registry());
  EXPECT_EQ(chosen.variants, (std::vector<std::string>{"vectorized", "shared_static"}));
  EXPECT_EQ(chosen.baseline, "vectorized");
  EXPECT_EQ(chosen.raw, spec.raw);
}

// A resumed run measures what the killed one was measuring: its --variants, --filter and --set
// come back from the log's header (a resume of `run --set n=...` measured the whole config).
TEST(Cli, ResumeRestoresTheSelectionOfTheKilledRun) {
  testing_support::TempDir dir;
  std::ifstream in(std::string(OCCBENCH_SOURCE_DIR) + "/results/reference/h100/adjacent_difference.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 4u);
  auto header = nlohmann::ordered_json::parse(lines[0]);
  header["selection"] = {{"variants", {"global", "vectorized"}}, {"filter", ""}, {"set", {{"n", {16777216}}}}};
  std::string log = dir.write("killed.jsonl", header.dump() + "\n" + lines[1] + "\n" + lines[2] + "\n");
  Outcome o = run_cli({"run", "--resume", log, "--dry-run"});
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_NE(o.out.find("8 point(s) would run"), std::string::npos) << o.out;  // 2 variants x 4 block sizes at one n
  EXPECT_EQ(o.out.find("n=268435456"), std::string::npos) << o.out;
  // A selection flag given with --resume replaces the stored ones, but the stored shard stays.
  header["selection"] = {{"variants", nlohmann::json::array()}, {"filter", ""}, {"set", nlohmann::json::object()}, {"shard", "0/2"}};
  std::string shard = dir.write("shard.jsonl", header.dump() + "\n" + lines[1] + "\n");
  Outcome sharded = run_cli({"run", "--resume", shard, "--dry-run", "--filter", "global"});
  ASSERT_EQ(sharded.code, kExitOk) << sharded.err;
  Outcome whole = run_cli({"run", kConfig, "--dry-run", "--filter", "global"});
  EXPECT_LT(std::count(sharded.out.begin(), sharded.out.end(), '\n'), std::count(whole.out.begin(), whole.out.end(), '\n'))
      << sharded.out;  // half of global's 8 points, not all of them
  header["selection"] = {{"set", {{"n", "x"}}}};
  std::string bad = dir.write("bad.jsonl", header.dump() + "\n" + lines[1] + "\n");
  Outcome refused = run_cli({"run", "--resume", bad, "--dry-run"});
  EXPECT_EQ(refused.code, kExitBadInput);
  EXPECT_NE(refused.err.find("bad.jsonl: line 1: $.selection.set.n: expected a list of whole numbers"), std::string::npos) << refused.err;
}
