// What a hostile or careless user can give occbench, one test per kind of defect the fuzzer found
// (issue: crashes, hangs, files destroyed, a regression gate that passes, silent acceptance,
// library text, wrong exit codes): each is refused with exit 2, naming the file or the flag and
// what was expected, quickly, with every input file left as it was. tests/fuzz holds the fuzzer.
#include "harness/core/bad_input.hpp"
#include "data_dir.hpp"
#include "harness/core/files.hpp"
#include "harness/core/json.hpp"
#include "harness/sweep/id_filter.hpp"
#include "results_test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>

using namespace occbench;
using testing_support::run_cli;
using testing_support::TempDir;

namespace {

const std::string kSource = OCCBENCH_SOURCE_DIR;
const std::string kResults = kSource + "/results/reference/h100/adjacent_difference.json";
const std::string kJsonl = kSource + "/results/reference/h100/adjacent_difference.jsonl";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A user kernel's config (examples/my_scale) with `change` applied, written beside its source.
std::string kernel_config(const TempDir& dir, const std::function<void(nlohmann::json&)>& change) {
  std::filesystem::copy_file(kSource + "/examples/my_scale/my_scale.cu", dir.file("my_scale.cu"),
                             std::filesystem::copy_options::overwrite_existing);
  std::ifstream in(kSource + "/examples/my_scale/my_scale.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  change(doc);
  return dir.write("kernel.json", doc.dump(2));
}

// validate refuses the config with exit 2, naming the file and `expected`.
void refused(const std::string& config, const std::string& expected) {
  auto r = run_cli({"validate", config});
  EXPECT_EQ(r.code, kExitBadInput) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, config)) << r.err;
  EXPECT_TRUE(contains(r.err, expected)) << r.err;
  auto dry = run_cli({"run", config, "--dry-run"});  // the same refusal from run
  EXPECT_EQ(dry.code, kExitBadInput) << dry.out << dry.err;
}

std::string read(const std::string& path) {
  std::optional<std::string> text = read_file(path);
  EXPECT_TRUE(text.has_value()) << path << " is not there";
  return text.value_or("{}");
}

}  // namespace

// Crashes: a value nested 150,000 levels deep overflowed the stack; now the parser stops at 100.
TEST(HostileInput, DeepNestingIsRefusedNotACrash) {
  TempDir dir;
  std::string deep = "{\"family\": \"adjacent_difference\", \"description\": " + std::string(150000, '[') + std::string(150000, ']') + "}";
  refused(dir.write("deep.json", deep), "nested more than 100 levels deep");
  std::string records = read(kResults);
  std::string deep_results = records.substr(0, records.size() - 2) + ", \"extra\": " + std::string(150000, '[') + std::string(150000, ']') + "}";
  auto r = run_cli({"report", dir.write("deep_results.json", deep_results)});
  EXPECT_EQ(r.code, kExitBadInput) << r.err;
  EXPECT_TRUE(contains(r.err, "deep_results.json")) << r.err;
  EXPECT_THROW(parse_json(std::string(101, '[') + std::string(101, ']'), "x"), BadInput);
  EXPECT_NO_THROW(parse_json(std::string(100, '[') + std::string(100, ']'), "x"));
}

// Hangs and crashes of --filter: RE2 has no exponential backtracking and no recursion to overflow.
TEST(HostileInput, FilterPatternsCannotHangOrCrash) {
  auto start = std::chrono::steady_clock::now();
  auto r = run_cli({"run", "adjacent_difference", "--dry-run", "--filter", "(.*)*(.*)*x"});
  auto nested = run_cli({"run", "adjacent_difference", "--dry-run", "--filter", std::string(20000, '(') + "n" + std::string(20000, ')')});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, kExitBadInput) << r.err;  // it matches no point id
  EXPECT_TRUE(contains(r.err, "--filter (.*)*(.*)*x")) << r.err;
  EXPECT_TRUE(nested.code == kExitOk || nested.code == kExitBadInput) << nested.err;
  // std::regex took over 30 s on the first; a bound against that, not a timing of the tool.
  EXPECT_LT(seconds, 10.0);
  EXPECT_TRUE(IdFilter("n=16").matches("adjacent_difference/global/n=16777216"));
  EXPECT_FALSE(IdFilter("^global").matches("adjacent_difference/global/n=1"));
  EXPECT_THROW(IdFilter("(unclosed"), std::invalid_argument);
}

// Hangs: a FIFO blocked forever, /dev/zero was read until memory ran out, a folder threw from
// libstdc++. Only regular files are opened as inputs.
TEST(HostileInput, OnlyRegularFilesAreRead) {
  TempDir dir;
  std::string fifo = dir.file("fifo.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero"), dir.file("")}) {
    auto r = run_cli({"validate", path});
    EXPECT_EQ(r.code, kExitBadInput) << path;
    EXPECT_TRUE(contains(r.err, "not a regular file")) << r.err;
    auto report = run_cli({"report", path});
    EXPECT_EQ(report.code, kExitBadInput) << path;
    EXPECT_TRUE(contains(report.err, "not a regular file")) << report.err;
  }
  std::string why;
  EXPECT_FALSE(read_file("/dev/zero", &why).has_value());
  EXPECT_TRUE(contains(why, "character device")) << why;
}

// Data destroyed: report, best, replay and merge wrote over an input of the same name.
TEST(HostileInput, NoCommandWritesOverAFileItReads) {
  TempDir dir;
  std::string run = dir.write("run.json", read(kResults));
  std::string original = read(run);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", run, "--out", run}, {"best", run, "--out", dir.file("run")},
        {"replay", run, "--seeds", "1", "--out", run}, {"merge", run, run}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.code, kExitBadInput) << args[0] << ": " << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "also an input of this command")) << r.err;
    EXPECT_EQ(read(run), original) << args[0] << " changed its input";
  }
  EXPECT_NE(output_file_problem(dir.file(std::string(300, 'x') + ".json")), "");
  EXPECT_EQ(output_file_problem(dir.file("fine.json")), "");
  EXPECT_TRUE(contains(output_file_problem(run, {run}), "also an input"));
}

// A regression gate that passed: nan and negative numbers in flags were taken.
TEST(HostileInput, NonFiniteAndOutOfRangeFlagValuesAreRefused) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"compare", kResults, kResults, "--fail-on-regression", "nan"},
        {"compare", kResults, kResults, "--noise-factor", "nan"},
        {"compare", kResults, kResults, "--min-change", "inf"},
        {"run", "adjacent_difference", "--dry-run", "--strategy", "random", "--max-points", "2", "--seed", "-1"},
        {"run", "adjacent_difference", "--dry-run", "--strategy", "random", "--max-points", "-2"},
        {"run", "adjacent_difference", "--dry-run", "--strategy", "local", "--time-limit", "nan"},
        {"replay", kResults, "--seed", "-1"},
        // replay's numeric flags have limits that make sense (--cores 9223372036854775807 aborted,
        // 100000 or --compile-s 1e308 gave no answer, nan dropped the wall table silently), and an
        // empty list item is refused, not taken as "not given"
        {"replay", kResults, "--compile-s", "nan"},
        {"replay", kResults, "--compile-s", "1e308"},
        {"replay", kResults, "--cores", "9223372036854775807"},
        {"replay", kResults, "--cores", "100000"},
        {"replay", kResults, "--batch", "1000000"},
        {"replay", kResults, "--budgets", "1,,2"},
        {"replay", kResults, "--strategy", ""}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.code, kExitBadInput) << args[3] << " " << args.back() << r.err;
    EXPECT_TRUE(contains(r.err, "expected a")) << r.err;
  }
}

// Silent acceptance: a name both a size and an axis; restrictions that assign, list, divide by
// zero or leave nothing; scalars their type cannot hold; kernel names that name nothing; the
// reference's launch; problems larger than any GPU; .npy files of the wrong shape.
TEST(HostileInput, ConfigsAreCheckedByValidateAsRunWouldUseThem) {
  TempDir dir;
  using json = nlohmann::json;
  refused(kernel_config(dir, [](json& d) { d["axes"]["n"] = {1024}; }), "is a size ($.sizes.n) and an axis");
  refused(kernel_config(dir, [](json& d) { d["restrictions"] = {"block_size = 16"}; }), "'=' at position 12 assigns");
  refused(kernel_config(dir, [](json& d) { d["restrictions"] = {"block_size <= 256, items <= 1"}; }), "2 expressions separated by ','");
  refused(kernel_config(dir, [](json& d) { d["restrictions"] = {"1/0"}; }), "the expression \"1/0\" at n=16777216 block_size=128 items=1: '/' by zero");
  refused(kernel_config(dir, [](json& d) { d["restrictions"] = {"block_size > 100000"}; }), "rule out all 6 points");
  for (const char* value : {"-1", "5592405.33", "1e30"})
    refused(kernel_config(dir, [&](json& d) { d["arguments"][3]["value"] = value; }), "expected a whole number in [0, 4294967295] (uint32)");
  refused(kernel_config(dir, [](json& d) { d["arguments"][2]["value"] = "1/0"; }), "'/' by zero");
  for (const char* name : {"::", "k<", "scale_kernel<1>>", "a::"})
    refused(kernel_config(dir, [&](json& d) { d["kernels"]["scale"]["kernel"] = name; }), "expected a __global__ function's name");
  for (int block : {-256, 4096})
    refused(kernel_config(dir, [&](json& d) { d["reference"]["params"]["block_size"] = block; }), "$.reference: the reference run");
  refused(kernel_config(dir, [](json& d) { d["arguments"][0]["count"] = "n * 1000000"; }), "the largest GPU occbench knows has");
  std::string npy = dir.write("values.npy", "not a .npy file at all");
  refused(kernel_config(dir, [&](json& d) { d["arguments"][1]["init"] = {{"kind", "npy"}, {"file", "values.npy"}}; }),
          "values.npy: not a usable .npy file");
  (void)npy;
  json search = json::parse(read(kSource + "/configs/adjacent_difference.json"));
  search["search"] = {{"strategy", "local"}, {"max_points", 4}, {"objective", "timing.median_ms:up"}};
  refused(dir.write("search.json", search.dump()), "$.search.objective");
}

// Library text instead of a message: numbers beyond a double, fields of the wrong type.
TEST(HostileInput, LibraryExceptionsBecomeMessagesNamingFileAndField) {
  TempDir dir;
  std::string config = read(kSource + "/configs/adjacent_difference.json");
  std::string overflow = dir.write("overflow.json", std::regex_replace(config, std::regex("\"min_samples\": 10"), "\"min_samples\": 1e999"));
  refused(overflow, "number overflow");
  auto records = nlohmann::ordered_json::parse(read(kResults));
  records["results"][1]["status"] = 7;
  auto r = run_cli({"best", dir.write("status.json", records.dump())});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_TRUE(contains(r.err, "status.json: $.results[1].status: expected a string")) << r.err;
  EXPECT_FALSE(contains(r.err, "json.exception")) << r.err;
}

// Impossible timings in a record are bad input, never a best point or a noise of -500%.
TEST(HostileInput, ImpossibleTimingsInARecordAreRefused) {
  TempDir dir;
  for (const char* field : {"median_ms", "noise"}) {
    auto records = nlohmann::ordered_json::parse(read(kResults));
    records["results"][1]["timing"][field] = -3;
    std::string path = dir.write(std::string(field) + ".json", records.dump());
    for (const char* command : {"best", "report"}) {
      auto r = run_cli({command, path});
      EXPECT_EQ(r.code, kExitBadInput) << command;
      EXPECT_TRUE(contains(r.err, std::string("$.results[1].timing.") + field + ": expected a time or spread of at least 0")) << r.err;
    }
  }
  // A part of a point's time that is not a number (time_use.compiler_wait_s, summed into the run's time line).
  {
    auto records = nlohmann::ordered_json::parse(read(kResults));
    records["results"][1]["time_use"]["compiler_wait_s"] = "soon";
    std::string path = dir.write("compiler_wait.json", records.dump());
    auto r = run_cli({"report", path});
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_TRUE(contains(r.err, "$.results[1].time_use.compiler_wait_s: expected a number, got a string")) << r.err;
  }
  // The fuzzer's: a sample count beyond an int (undefined behaviour where compare read it as one).
  for (double samples : {9.2e18, 2.5}) {
    auto records = nlohmann::ordered_json::parse(read(kResults));
    records["results"][1]["timing"]["samples"] = samples;
    std::string path = dir.write("samples.json", records.dump());
    for (std::vector<std::string> command : {std::vector<std::string>{"report", path}, {"compare", kResults, path}}) {
      auto r = run_cli(command);
      EXPECT_EQ(r.code, kExitBadInput) << command[0] << " " << samples;
      EXPECT_TRUE(contains(r.err, "$.results[1].timing.samples: expected a whole number of samples")) << r.err;
    }
  }
}

// Wrong exit codes and silent acceptance of logs: a torn middle line, no header, a second header,
// an unknown version or another family's record: exit 2 from every reader (resume, merge, best).
TEST(HostileInput, JsonlLogsMustBeOneSweepsAndWhole) {
  TempDir dir;
  std::vector<std::string> lines;
  std::istringstream in(read(kJsonl));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 4u) << kJsonl;
  auto joined = [&](std::vector<std::string> chosen) {
    std::string text;
    for (const auto& l : chosen) text += l + "\n";
    return text;
  };
  auto other_family = nlohmann::ordered_json::parse(lines[2]);
  other_family["family"] = "transpose";
  auto version = nlohmann::ordered_json::parse(lines[0]);
  version["occbench_jsonl"] = 999;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {joined({lines[0], lines[1], lines[2].substr(0, 40), lines[3]}), "line 3"},
      {joined({lines[1], lines[2]}), "line 1 is not an occbench header"},
      {joined({lines[0], lines[1], lines[0], lines[2]}), "line 3: a second header"},
      {joined({version.dump(), lines[1]}), "line 1: occbench_jsonl is 999, expected 1"},
      {joined({lines[0], lines[1], other_family.dump()}), "line 3: a record of family 'transpose'"}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string path = dir.write(fmt::format("log{}.jsonl", i), cases[i].first);
    for (const std::vector<std::string>& args : {std::vector<std::string>{"run", "--resume", path, "--dry-run"},
                                                 {"merge", dir.file("merged.json"), path}, {"best", path}}) {
      auto r = run_cli(args);
      EXPECT_EQ(r.code, kExitBadInput) << args[0] << " on case " << i << ": " << r.err;
      EXPECT_TRUE(contains(r.err, path + ": " + cases[i].second)) << r.err;
    }
  }
  // A torn last line is what a killed run leaves: read without it.
  std::string torn_last = dir.write("torn_last.jsonl", joined({lines[0], lines[1], lines[2].substr(0, 40)}));
  EXPECT_EQ(run_cli({"best", torn_last}).code, kExitOk);
}

// One reading of a log: merge, best and replay refuse what run --resume refuses (a stray point of
// another sweep, a bogus strategy, a numeric shard), naming the file; merge wrote foreign points out.
TEST(HostileInput, MergeBestAndReplayReadALogAsResumeDoes) {
  TempDir dir;
  std::vector<std::string> lines;
  std::istringstream in(read(kJsonl));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 3u) << kJsonl;
  auto stray = nlohmann::ordered_json::parse(lines[1]);
  stray["point_id"] = "adjacent_difference/global/n=7/block_size=256";
  stray["params"]["n"] = 7;
  auto strategy = nlohmann::ordered_json::parse(lines[0]);
  strategy["strategy"] = {{"name", "bogus"}};
  auto shard = nlohmann::ordered_json::parse(lines[0]);
  shard["selection"] = {{"shard", 3}};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {lines[0] + "\n" + lines[1] + "\n" + stray.dump() + "\n", "record 2: point adjacent_difference/global/n=7/block_size=256 is not a point"},
      {strategy.dump() + "\n" + lines[1] + "\n", "strategy"},
      {shard.dump() + "\n" + lines[1] + "\n", "$.selection.shard: expected a string"}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string path = dir.write(fmt::format("log{}.jsonl", i), cases[i].first);
    for (const std::vector<std::string>& args : {std::vector<std::string>{"run", "--resume", path, "--dry-run"},
                                                 {"merge", dir.file("merged.json"), path}, {"best", path},
                                                 {"replay", path, "--seeds", "1"}}) {
      auto r = run_cli(args);
      EXPECT_EQ(r.code, kExitBadInput) << args[0] << " on case " << i << ": " << r.err;
      EXPECT_TRUE(contains(r.err, path)) << args[0] << ": " << r.err;
      EXPECT_TRUE(contains(r.err, cases[i].second)) << args[0] << ": " << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("merged.json")));
  }
}

// best --out PREFIX replaced an unrelated PREFIX.json (a user's run.json): an existing file is
// replaced only where best wrote it.
TEST(HostileInput, BestOutReplacesOnlyItsOwnFiles) {
  TempDir dir;
  std::string mine = dir.write("run.json", "{\"my\": \"results\"}\n");
  auto refused_run = run_cli({"best", kResults, "--out", dir.file("run")});
  EXPECT_EQ(refused_run.code, kExitBadInput) << refused_run.err;
  EXPECT_TRUE(contains(refused_run.err, "was not written by this command")) << refused_run.err;
  EXPECT_EQ(read(mine), "{\"my\": \"results\"}\n");
  auto first = run_cli({"best", kResults, "--out", dir.file("best")});
  ASSERT_EQ(first.code, kExitOk) << first.err;
  auto again = run_cli({"best", kResults, "--out", dir.file("best")});  // its own files: replaced
  EXPECT_EQ(again.code, kExitOk) << again.err;
}

// Library words, exit 1: a file that fails mid-read (/proc/self/mem: basic_filebuf::underflow)
// and an output folder that cannot be made (filesystem error, after the work) are named instead.
TEST(HostileInput, UnreadableFilesAndUnmakeableFoldersAreNamed) {
  if (!std::filesystem::exists("/proc/self/mem")) GTEST_SKIP() << "no /proc here";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"report", "/proc/self/mem"},
                                               {"validate", "/proc/self/mem"},
                                               {"plan", "adjacent_difference", "--out", "/proc/occbench-nope"},
                                               {"best", kResults, "--out", "/proc/occbench-nope/best"}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.code, kExitBadInput) << args[0] << ": " << r.err;
    EXPECT_FALSE(contains(r.err, "basic_filebuf") || contains(r.err, "filesystem error")) << r.err;
    EXPECT_TRUE(contains(r.err, "cannot be read") || contains(r.err, "cannot be made")) << r.err;
  }
}

// Silent acceptance: a misspelt objective ("timing.median") passed validate and run --dry-run and
// was looked for at every point; "block_size % 0 == 0" silently ruled out every point.
TEST(HostileInput, AMisspeltObjectiveAndARemainderByZeroAreRefused) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "adjacent_difference", "--dry-run", "--strategy", "local", "--max-points", "4",
                                 "--objective", "timing.median"},
        {"best", kResults, "--objective", "metrics.bandwidth"},
        {"replay", kResults, "--seeds", "1", "--objective", "timings.median_ms"}}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.code, kExitBadInput) << args[0] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "is no field of") || contains(r.err, "is no section of")) << r.err;
  }
  TempDir dir;
  refused(kernel_config(dir, [](nlohmann::json& doc) { doc["restrictions"] = {"block_size % 0 == 0"}; }), "'%' by zero");
  // "block_size / 0 > 1" kept every point (muparser's '/' gave inf); a division a guard rules out is not refused.
  refused(kernel_config(dir, [](nlohmann::json& doc) { doc["restrictions"] = {"block_size / 0 > 1"}; }), "'/' by zero");
  refused(kernel_config(dir, [](nlohmann::json& doc) { doc["restrictions"] = {"sqrt(0 - block_size) > 1"}; }),
          "gives nan");
  auto guarded = run_cli({"validate", kernel_config(dir, [](nlohmann::json& doc) {
                            doc["restrictions"] = {"(items - 1) != 0 && block_size / (items - 1) > 1 || items == 1"};
                          })});
  EXPECT_EQ(guarded.code, kExitOk) << guarded.err;
}

// --shard 0/1000000 of a large space gave no answer (each point scanned every shard's load): at
// most 65,536 shards, and the least loaded shard is found from a heap.
TEST(HostileInput, ShardCountsHaveALimitAndManyShardsAnswerAtOnce) {
  auto refused_run = run_cli({"run", "adjacent_difference", "--dry-run", "--shard", "0/1000000"});
  EXPECT_EQ(refused_run.code, kExitBadInput) << refused_run.err;
  EXPECT_TRUE(contains(refused_run.err, "at most 65536 shards")) << refused_run.err;
  auto many = run_cli({"run", "adjacent_difference", "--dry-run", "--shard", "65535/65536"});
  EXPECT_EQ(many.code, kExitOk) << many.err;
}
