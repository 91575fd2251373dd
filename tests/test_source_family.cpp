// User kernels defined by a config (harness/sweep/source_family): the schema, the expressions, the
// arguments, bad configs refused with exit 2 naming file, JSON path and what was expected, and
// NVRTC compilation with resource reading (plan) on a machine without a GPU.
#include "harness/cli/cli.hpp"
#include "data_dir.hpp"
#include "harness/sweep/config.hpp"
#include "harness/sweep/expression.hpp"
#include "harness/family/npy.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/run/plan.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"

#include "harness/model/kernel_resources.hpp"
#include "harness/run/supervisor.hpp"

#include <gtest/gtest.h>

#include <future>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using occbench::ConfigError;
using occbench::Expression;
using occbench::Params;
using json = nlohmann::ordered_json;

namespace {

const std::string kExampleDir = std::string(OCCBENCH_SOURCE_DIR) + "/examples/adjacent_difference";

json example_config() {
  std::ifstream in(kExampleDir + "/adjacent_difference.json");
  return json::parse(in);
}

// A scratch folder holding the example's .cu, where configs are written.
fs::path scratch_dir() {
  fs::path dir = fs::temp_directory_path() / ("occbench_source_family_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file(kExampleDir + "/adjacent_difference.cu", dir / "adjacent_difference.cu", fs::copy_options::overwrite_existing);
  return dir;
}

std::string write_config(const json& doc, const std::string& name) {
  fs::path path = scratch_dir() / name;
  std::ofstream(path) << doc.dump(2);
  return path.string();
}

int validate_exit_code(const std::string& path) {
  std::string arg0 = "occbench", arg1 = "validate", arg2 = path;
  char* argv[] = {arg0.data(), arg1.data(), arg2.data()};
  testing::internal::CaptureStderr();
  int code = occbench::cli_main(3, argv, occbench::builtin_registry());
  testing::internal::GetCapturedStderr();
  return code;
}

// Plans the config `doc` (written to `name` in the scratch folder) for an H100 without a GPU.
int plan_h100(const json& doc, const std::string& name, std::ostringstream& out, std::ostringstream& err) {
  occbench::PlanOptions options;
  options.config = write_config(doc, name);
  options.gpu = "h100";
  options.write_files = false;
  return occbench::plan_main(options, occbench::builtin_registry(), out, err);
}

}  // namespace

TEST(SourceFamily, ExampleBuildsTheSameShapeAsABuiltInFamily) {
  auto spec = occbench::parse_sweep_file(kExampleDir + "/adjacent_difference.json", occbench::builtin_registry());
  ASSERT_TRUE(spec.source_family);
  EXPECT_EQ(spec.family, "adjacent_difference");
  auto points = occbench::expand_sweep(spec, occbench::builtin_registry());
  EXPECT_EQ(points.size(), 32u);
  EXPECT_EQ(points[0].id, "adjacent_difference/global/n=16777216/block_size=128");
  auto launch = points[0].variant->launch(points[0].params);  // no GPU: the shape only
  EXPECT_EQ(launch.grid.x, 131072u);
  EXPECT_EQ(launch.block.x, 128u);
  auto work = points[0].variant->work(points[0].params);
  EXPECT_DOUBLE_EQ(work.flops, 16777216.0);
  EXPECT_DOUBLE_EQ(work.global_bytes, 12.0 * 16777216);
  EXPECT_DOUBLE_EQ(work.dram_bytes, 8.0 * 16777216);
  // The input, the output and the output's expected values (kept on the device for verification).
  EXPECT_EQ(points[0].family->device_bytes(points[0].sizes), 12u * 16777216);
}

TEST(SourceFamily, EveryExampleValidates) {
  int configs = 0;
  for (const auto& entry : fs::recursive_directory_iterator(std::string(OCCBENCH_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".json" || entry.path().filename().string().rfind("small_", 0) == 0) continue;
    ++configs;
    EXPECT_NO_THROW(occbench::parse_sweep_file(entry.path().string(), occbench::builtin_registry())) << entry.path();
  }
  EXPECT_GE(configs, 5);
}

TEST(Expression, EvaluatesWithTheHelpers) {
  Params p;
  p.set("n", 1000);
  p.set("block_size", 256);
  EXPECT_EQ(Expression("ceil_div(n, block_size)", {"n", "block_size"}, "f.json", "$.x").evaluate_integer(p, 0, 100), 4);
  EXPECT_DOUBLE_EQ(Expression("n % 7 + floor(n / 3) + ceil(1.5) + max(1, 2)", {"n"}, "f", "$").evaluate(p), 6 + 333 + 2 + 2);
  EXPECT_DOUBLE_EQ(Expression("2^10", {}, "f", "$").evaluate(p), 1024);
}

TEST(Expression, UnknownNameIsNamedWithFilePathAndExpression) {
  try {
    Expression("ceil_div(n, blok_size)", {"n", "block_size"}, "my.json", "$.kernels.global.grid");
    FAIL() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "my.json");
    EXPECT_EQ(e.json_path(), "$.kernels.global.grid");
    std::string what = e.what();
    EXPECT_NE(what.find("ceil_div(n, blok_size)"), std::string::npos) << what;
    EXPECT_NE(what.find("unknown name 'blok_size'"), std::string::npos) << what;
    EXPECT_NE(what.find("block_size"), std::string::npos) << what;  // the names it may use
  }
}

TEST(Expression, SyntaxErrorAndNonIntegerAreRefused) {
  EXPECT_THROW(Expression("n *", {"n"}, "f", "$.grid"), ConfigError);
  EXPECT_THROW(Expression("(n", {"n"}, "f", "$.grid"), ConfigError);
  EXPECT_THROW(Expression("", {"n"}, "f", "$.grid"), ConfigError);
  Params p;
  p.set("n", 3);
  try {
    Expression("n / 2", {"n"}, "f.json", "$.kernels.k.block").evaluate_integer(p, 1, 1024);
    FAIL() << "accepted 1.5 threads";
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("f.json: $.kernels.k.block"), std::string::npos) << what;
    EXPECT_NE(what.find("1.5"), std::string::npos) << what;
  }
}

TEST(Npy, RoundTripsAndRefusesBadFiles) {
  occbench::NpyArray a;
  a.dtype = "<f4";
  a.shape = {2, 3};
  float values[6] = {1, 2, 3, 4, 5, 6};
  a.bytes.assign(reinterpret_cast<unsigned char*>(values), reinterpret_cast<unsigned char*>(values) + sizeof values);
  std::string path = (scratch_dir() / "a.npy").string();
  occbench::write_npy(path, a);
  auto b = occbench::read_npy(path);
  EXPECT_EQ(b.dtype, "<f4");
  EXPECT_EQ(b.shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(b.bytes, a.bytes);
  std::ofstream(scratch_dir() / "bad.npy") << "not numpy";
  EXPECT_THROW(occbench::read_npy((scratch_dir() / "bad.npy").string()), occbench::NpyError);
  EXPECT_THROW(occbench::read_npy((scratch_dir() / "missing.npy").string()), occbench::NpyError);
}

// One bad user-kernel config: an edit of the example, the JSON path it must name and a phrase of
// what was expected.
struct BadConfig {
  const char* label;
  std::function<void(json&)> edit;
  const char* json_path;
  const char* expected;
};

// gtest names each case by its label (not the struct's bytes).
void PrintTo(const BadConfig& bad, std::ostream* os) { *os << bad.label; }

class BadSourceConfig : public testing::TestWithParam<BadConfig> {};

TEST_P(BadSourceConfig, IsRefusedWithExit2NamingFilePathAndExpectation) {
  const BadConfig& bad = GetParam();
  json doc = example_config();
  bad.edit(doc);
  std::string path = write_config(doc, std::string("bad_") + bad.label + ".json");
  try {
    occbench::parse_sweep_file(path, occbench::builtin_registry());
    FAIL() << bad.label << ": accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.json_path(), bad.json_path) << e.what();
    EXPECT_NE(std::string(e.what()).find(bad.expected), std::string::npos) << e.what();
  }
  EXPECT_EQ(validate_exit_code(path), occbench::kExitBadInput);
}

INSTANTIATE_TEST_SUITE_P(
    Refusals, BadSourceConfig,
    testing::Values(
        BadConfig{"missing_source_file", [](json& d) { d["source"] = "nowhere.cu"; }, "$.source", "expected an existing file"},
        BadConfig{"source_not_string", [](json& d) { d["source"] = 3; }, "$.source", "expected a non-empty string"},
        BadConfig{"no_arguments", [](json& d) { d.erase("arguments"); }, "$.arguments", "kernel's parameters in order"},
        BadConfig{"no_output", [](json& d) { d["arguments"].erase(0); }, "$.arguments", "\"role\": \"output\""},
        BadConfig{"bad_type", [](json& d) { d["arguments"][1]["type"] = "float16"; }, "$.arguments[1].type", "float32"},
        BadConfig{"bad_role", [](json& d) { d["arguments"][1]["role"] = "inout"; }, "$.arguments[1].role", "input, output, scalar"},
        BadConfig{"unknown_argument_key", [](json& d) { d["arguments"][1]["size"] = "n"; }, "$.arguments[1].size", "unknown key 'size'"},
        BadConfig{"count_uses_launch_axis", [](json& d) { d["arguments"][1]["count"] = "n * block_size"; },
                  "$.arguments[1].count", "unknown name 'block_size'"},
        BadConfig{"duplicate_argument", [](json& d) { d["arguments"][2]["name"] = "a"; }, "$.arguments[2].name", "names two arguments"},
        BadConfig{"init_on_output", [](json& d) { d["arguments"][0]["init"] = {{"kind", "iota"}}; }, "$.arguments[0].init.kind",
                  "expected \"host\" or \"npy\" for an output"},
        BadConfig{"unknown_init", [](json& d) { d["arguments"][1]["init"]["kind"] = "gaussian"; }, "$.arguments[1].init.kind",
                  "uniform, normal, iota, constant, npy"},
        BadConfig{"empty_random_range", [](json& d) { d["arguments"][1]["init"] = {{"kind", "uniform"}, {"min", 0}, {"max", 0}}; },
                  "$.arguments[1].init.max", "never all one value"},
        BadConfig{"negative_tolerance", [](json& d) { d["arguments"][0]["tolerance"]["rel"] = -1; },
                  "$.arguments[0].tolerance.rel", "at least 0"},
        BadConfig{"missing_npy_input", [](json& d) { d["arguments"][1]["init"] = {{"kind", "npy"}, {"file", "a.npy.missing"}}; },
                  "$.arguments[1].init.file", "expected an existing file"},
        BadConfig{"scalar_without_value", [](json& d) { d["arguments"][2].erase("value"); }, "$.arguments[2].value", "missing"},
        BadConfig{"no_kernels", [](json& d) { d["kernels"] = json::object(); }, "$.kernels", "an object of variants"},
        BadConfig{"kernel_without_name", [](json& d) { d["kernels"]["global"].erase("kernel"); }, "$.kernels.global.kernel",
                  "__global__ function's name"},
        BadConfig{"unclosed_template_brace", [](json& d) { d["kernels"]["vectorized"]["kernel"] = "vectorized_kernel<{items>"; },
                  "$.kernels.vectorized.kernel", "never closed"},
        BadConfig{"grid_syntax_error", [](json& d) { d["kernels"]["global"]["grid"] = "ceil_div(n, block_size"; },
                  "$.kernels.global.grid", "ceil_div(n, block_size"},
        BadConfig{"grid_unknown_name", [](json& d) { d["kernels"]["global"]["grid"] = "n / threads"; }, "$.kernels.global.grid",
                  "unknown name 'threads'"},
        BadConfig{"four_block_dims", [](json& d) { d["kernels"]["global"]["block"] = {"block_size", 1, 1, 1}; },
                  "$.kernels.global.block", "1 to 3 expressions"},
        BadConfig{"grid_not_expression", [](json& d) { d["kernels"]["global"]["grid"] = true; }, "$.kernels.global.grid",
                  "expected an expression"},
        BadConfig{"bad_define_name", [](json& d) { d["kernels"]["global"]["defines"] = {{"2BAD", 1}}; },
                  "$.kernels.global.defines.2BAD", "macro name"},
        BadConfig{"architecture_option", [](json& d) { d["compile"] = {{"options", {"-arch=sm_80"}}}; }, "$.compile.options[0]",
                  "leave it out"},
        BadConfig{"unknown_kernel_key", [](json& d) { d["kernels"]["global"]["threads"] = 256; }, "$.kernels.global.threads",
                  "unknown key 'threads'"},
        BadConfig{"no_reference", [](json& d) { d.erase("reference"); }, "$.reference", "missing"},
        BadConfig{"unknown_reference", [](json& d) { d["reference"]["variant"] = "fastest"; }, "$.reference.variant",
                  "unknown variant 'fastest'"},
        BadConfig{"reference_both", [](json& d) { d["reference"]["npy"] = {{"b", "x.npy"}}; }, "$.reference", "exactly one"},
        BadConfig{"work_unknown_name", [](json& d) { d["work"]["flops"] = "n * flops_per_item"; }, "$.work.flops",
                  "unknown name 'flops_per_item'"},
        BadConfig{"negative_guard_zone", [](json& d) { d["guard_zone_gib"] = -1; }, "$.guard_zone_gib",
                  "from 0 (no guard zones) to 1024"},
        BadConfig{"fractional_guard_zone", [](json& d) { d["guard_zone_gib"] = 0.5; }, "$.guard_zone_gib", "expected an integer"},
        BadConfig{"unknown_compiler", [](json& d) { d["compile"]["compiler"] = "clang"; }, "$.compile.compiler",
                  "expected \"nvrtc\" (the default) or \"nvcc\", got 'clang'"},
        BadConfig{"unknown_top_level_key", [](json& d) { d["kernel"] = "x"; }, "$.kernel", "unknown key 'kernel'"}),
    [](const testing::TestParamInfo<BadConfig>& info) { return std::string(info.param.label); });

TEST(Nvrtc, CompilesWithoutAGpuAndCachesOnDisk) {
  fs::path cache = scratch_dir() / "cache";
  fs::remove_all(cache);
  occbench::NvrtcRequest request;
  request.source_path = kExampleDir + "/adjacent_difference.cu";
  std::ifstream in(request.source_path);
  std::stringstream text;
  text << in.rdbuf();
  request.source_text = text.str();
  request.name_expressions = {"vectorized_kernel<4>"};
  request.arch = 90;
  auto cold = occbench::nvrtc_compile(request, cache.string());
  EXPECT_FALSE(cold.cache_hit);
  EXPECT_GT(cold.compile_ms, 0);
  EXPECT_FALSE(cold.cubin.empty());
  EXPECT_EQ(cold.lowered.at("vectorized_kernel<4>"), "_Z17vectorized_kernelILi4EEvPfPKfj");
  // ptxas's own report. The H100 device machine's NVRTC leaves the log empty (seen at 3b1643c and
  // again since); where there is a log, it must be ptxas's.
  if (!cold.log.empty()) EXPECT_NE(cold.log.find("Used 32 registers"), std::string::npos) << cold.log;
  else std::cout << "[ note     ] this NVRTC returned no ptxas report for --ptxas-options=-v\n";
  auto warm = occbench::nvrtc_compile(request, cache.string());
  EXPECT_TRUE(warm.cache_hit);
  EXPECT_EQ(warm.compile_ms, 0);
  EXPECT_EQ(warm.cubin, cold.cubin);
  // What compiling it cost stays with the entry (a search weighs it: compile.nvrtc_ms).
  EXPECT_EQ(cold.nvrtc_ms, cold.compile_ms);
  EXPECT_DOUBLE_EQ(warm.nvrtc_ms, cold.compile_ms);
  request.options = {"-DUNUSED=1"};  // other options: another entry
  EXPECT_FALSE(occbench::nvrtc_compile(request, cache.string()).cache_hit);
}

// A kernel that includes CUB's umbrella header (as Kernel Tuner's expdist does) compiles under
// NVRTC, whose JIT mode refuses the header's device-wide algorithms; is_cached says so after.
TEST(Nvrtc, AKernelIncludingCubsUmbrellaHeaderCompilesAndIsThenCached) {
  fs::path cache = scratch_dir() / "cub_cache";
  fs::remove_all(cache);
  occbench::NvrtcRequest request;
  request.source_path = "cub_user.cu";
  request.source_text = "#include <cub/cub.cuh>\n"
                        "__global__ void k(float* out) {\n"
                        "  typedef cub::BlockReduce<float, 128> Reduce;\n"
                        "  __shared__ typename Reduce::TempStorage storage;\n"
                        "  float sum = Reduce(storage).Sum(out[threadIdx.x]);\n"
                        "  if (threadIdx.x == 0) out[0] = sum;\n"
                        "}\n";
  request.name_expressions = {"k"};
  EXPECT_EQ(occbench::NvrtcCacheEntry(request, cache.string()).state(), occbench::CompileState::not_compiled);
  auto compiled = occbench::nvrtc_compile(request, cache.string());
  EXPECT_FALSE(compiled.cubin.empty());
  EXPECT_EQ(occbench::NvrtcCacheEntry(request, cache.string()).state(), occbench::CompileState::compiled);
}

// ptxas refusing a kernel's static shared memory: the error names the kernel and its bytes (NVRTC's
// log may hold only ptxas's report).
TEST(Nvrtc, TooMuchStaticSharedMemoryIsNamedInTheError) {
  occbench::NvrtcRequest request;
  request.source_path = "big_shared.cu";
  request.source_text = "extern \"C\" __global__ void big(float* out) {\n"
                        "  __shared__ float tile[13000];\n"
                        "  tile[threadIdx.x] = out[threadIdx.x];\n"
                        "  __syncthreads();\n"
                        "  out[threadIdx.x] = tile[12999 - threadIdx.x];\n"
                        "}\n";
  request.name_expressions = {"big"};
  fs::path cache = scratch_dir() / "big_shared_cache";
  fs::remove_all(cache);
  try {
    occbench::nvrtc_compile(request, cache.string());
    FAIL() << "52000 bytes of static shared memory compiled";
  } catch (const occbench::NvrtcCompileError& e) {
    EXPECT_NE(std::string(e.what()).find("big uses 52000 bytes of static shared memory, over the 49152"), std::string::npos)
        << e.what();
  }
}

// An entry another process is compiling (its KEY.lock, "HOST PID" of a live process) is waited for
// by the measuring process and left alone by a compile-ahead worker, so none is compiled twice; a
// lock whose process has died is taken over.
TEST(Nvrtc, AnEntryBeingCompiledElsewhereIsWaitedForOrLeftToIt) {
  fs::path done = scratch_dir() / "claim_done", cache = scratch_dir() / "claim_cache";
  fs::remove_all(done);
  fs::remove_all(cache);
  fs::create_directories(cache);
  occbench::NvrtcRequest request;
  request.source_path = "claim.cu";
  request.source_text = "__global__ void k(float* o) { o[threadIdx.x] = 1.0f; }\n";
  request.name_expressions = {"k"};
  std::string key = occbench::nvrtc_compile(request, done.string()).cache_key;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  fs::path lock = cache / (key + ".lock");
  EXPECT_EQ(occbench::NvrtcCacheEntry(request, cache.string()).state(), occbench::CompileState::not_compiled);
  EXPECT_EQ(occbench::NvrtcCacheEntry(request, done.string()).state(), occbench::CompileState::compiled);
  std::ofstream(lock) << host << " " << ::getpid();  // a live process of this host compiles it
  EXPECT_EQ(occbench::NvrtcCacheEntry(request, cache.string()).state(), occbench::CompileState::compiling_elsewhere);

  occbench::NvrtcRequest worker = request;
  worker.leave_claimed = true;
  EXPECT_THROW(occbench::nvrtc_compile(worker, cache.string()), occbench::NvrtcLeftToOther);
  auto waiting = std::async(std::launch::async, [&] { return occbench::nvrtc_compile(request, cache.string()); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout) << "did not wait";
  for (const char* ext : {".cubin", ".json"}) fs::copy_file(done / (key + ext), cache / (key + ext));  // "the other finished"
  fs::remove(lock);
  occbench::NvrtcResult waited = waiting.get();
  EXPECT_TRUE(waited.cache_hit);
  EXPECT_EQ(waited.compile_ms, 0);
  EXPECT_GE(waited.waited_ms, 250);

  pid_t dead = ::fork();
  if (dead == 0) std::_Exit(0);
  ::waitpid(dead, nullptr, 0);
  fs::remove(cache / (key + ".cubin"));
  std::ofstream(lock) << host << " " << dead;
  EXPECT_EQ(occbench::NvrtcCacheEntry(request, cache.string()).state(), occbench::CompileState::not_compiled) << "a dead process's lock";
  occbench::NvrtcResult taken_over = occbench::nvrtc_compile(worker, cache.string());
  EXPECT_FALSE(taken_over.cache_hit);
  EXPECT_FALSE(fs::exists(lock)) << "the lock outlived its compilation";
}

TEST(Nvrtc, CompileErrorNamesTheSourceFileAndLine) {
  occbench::NvrtcRequest request;
  request.source_path = "examples/broken/x.cu";
  request.source_text = "__global__ void k(float* o) {\n  o[0] = missing_name;\n}\n";
  request.name_expressions = {"k"};
  try {
    occbench::nvrtc_compile(request, (scratch_dir() / "cache").string());
    FAIL() << "compiled";
  } catch (const occbench::NvrtcCompileError& e) {
    EXPECT_NE(std::string(e.what()).find("examples/broken/x.cu(2): error"), std::string::npos) << e.what();
  }
}

// A compile-ahead worker of a run that measures a sample (run --strategy random --max-points N)
// compiles the sample's kernels, not the whole sweep's. Each share in its own occbench process, as
// the workers are (this process remembers what it compiled).
TEST(SourceFamily, ACompileShareOfASampleCompilesOnlyTheSample) {
  std::string occbench = (fs::path(occbench::self_executable()).parent_path().parent_path() / "occbench").string();
  auto entries_after = [&](const std::string& name, const std::string& sample, const std::string& share = "0/1") {
    fs::path cache = scratch_dir() / name;
    fs::remove_all(cache);
    std::string command = "OCCBENCH_CACHE_DIR=" + cache.string() + " " + occbench + " plan " + kExampleDir +
                          "/adjacent_difference.json --gpu h100 --compile-share " + share +
                          (sample.empty() ? "" : " --compile-sample " + sample) + " > /dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    std::size_t cubins = 0;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(cache, ec)) cubins += entry.path().extension() == ".cubin";
    return cubins;
  };
  std::size_t whole = entries_after("share_whole", "");
  std::size_t sample = entries_after("share_sample", "random:1:7");
  EXPECT_GE(whole, 3u) << "one instantiation per variant";
  EXPECT_GE(sample, 1u);
  EXPECT_LT(sample, whole);
  // A worker takes every kernel no other has taken: alone, worker 1 of 4 compiles them all (a
  // fixed share, every fourth, would leave the rest to workers that may be slower or done).
  EXPECT_EQ(entries_after("share_1_of_4", "", "1/4"), whole);

  // A resumed run's workers compile the points its record lacks: here those of one variant.
  std::string config = kExampleDir + "/adjacent_difference.json";
  occbench::SweepSpec spec = occbench::parse_sweep_file(config, occbench::builtin_registry());
  fs::path record = scratch_dir() / "resumed.jsonl";
  std::ofstream out(record);
  out << json{{"occbench_jsonl", 1}}.dump() << "\n";
  for (const auto& point : occbench::expand_sweep(spec, occbench::builtin_registry()))
    if (point.variant->name != "vectorized") out << json{{"point_id", point.id}, {"status", "ok"}}.dump() << "\n";
  out.close();
  fs::path cache = scratch_dir() / "share_skip";
  fs::remove_all(cache);
  std::string command = "OCCBENCH_CACHE_DIR=" + cache.string() + " " + occbench + " plan " + config +
                        " --gpu h100 --compile-share 0/1 --compile-skip " + record.string() + " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::size_t skipped = 0;
  for (const auto& entry : fs::directory_iterator(cache)) skipped += entry.path().extension() == ".cubin";
  EXPECT_GE(skipped, 1u) << "the vectorized variant's kernels";
  EXPECT_LT(skipped, whole) << "not the finished points' kernels";
}

// The cubin records what ptxas reports of a kernel: registers, stack frame, static shared memory.
TEST(Nvrtc, TheCubinHoldsWhatPtxasReportsOfEachKernel) {
  occbench::NvrtcRequest request;
  request.source_path = "resources.cu";
  request.source_text =
      "__global__ void plain(float* o) { o[threadIdx.x] = 1.0f; }\n"
      "__global__ void tiled(float* o) { __shared__ float t[300]; t[threadIdx.x] = o[threadIdx.x];\n"
      "  __syncthreads(); o[threadIdx.x] = t[299 - threadIdx.x % 300]; }\n"
      "__global__ void framed(float* o, int k) { float a[64]; for (int i = 0; i < 64; ++i) a[i] = o[i * k];\n"
      "  o[threadIdx.x] = a[(threadIdx.x * 7 + k) % 64]; }\n";
  request.name_expressions = {"plain", "tiled", "framed"};
  occbench::NvrtcResult compiled = occbench::nvrtc_compile(request, (scratch_dir() / "resources_cache").string());
  if (compiled.log.empty()) GTEST_SKIP() << "this NVRTC returned no ptxas report to compare with";
  occbench::KernelResourceTable report = occbench::KernelResourceTable::parse(compiled.log);
  int compared = 0;
  for (const auto& name : request.name_expressions) {
    std::string lowered = compiled.lowered.at(name);
    auto read = occbench::cubin_kernel_resources(compiled.cubin, lowered, 1024);  // sm_90 reserves 1 KiB a block
    ASSERT_TRUE(read) << name;
    for (const auto& k : report.kernels()) {
      if (k.mangled_name != lowered) continue;
      EXPECT_EQ(read->registers, k.registers) << name;
      EXPECT_EQ(read->static_smem_bytes, k.static_smem_bytes) << name;
      EXPECT_EQ(read->stack_frame_bytes, k.stack_frame_bytes) << name;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 3);
  EXPECT_FALSE(occbench::cubin_kernel_resources(compiled.cubin, "no_such_kernel", 1024));
  EXPECT_FALSE(occbench::cubin_kernel_resources("not an ELF file", "plain", 1024));
}

// Where NVRTC's log lacks ptxas's report (as the H100 machine's sometimes does), plan reads the
// same resources from the cubin: a second plan over cache entries whose logs were emptied.
TEST(SourceFamily, PlanReadsTheCubinWhereTheLogHasNoReport) {
  std::string occbench = (fs::path(occbench::self_executable()).parent_path().parent_path() / "occbench").string();
  fs::path cache = scratch_dir() / "emptied_logs", out = scratch_dir() / "emptied_logs_out";
  fs::remove_all(cache);
  fs::remove_all(out);
  auto plan = [&](const std::string& name) {
    std::string command = "OCCBENCH_CACHE_DIR=" + cache.string() + " OCCBENCH_COMPILE_PROCESSES=1 " + occbench + " plan " +
                          kExampleDir + "/adjacent_difference.json --gpu h100 --out " + (out / name).string() + " > /dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    fs::path json = fs::directory_iterator(out / name)->path();
    for (const auto& entry : fs::directory_iterator(out / name))
      if (entry.path().extension() == ".json") json = entry.path();
    return nlohmann::json::parse(std::ifstream(json))["results"];
  };
  nlohmann::json first = plan("first");
  int emptied = 0;
  for (const auto& entry : fs::directory_iterator(cache)) {
    if (entry.path().extension() != ".json") continue;
    nlohmann::json meta = nlohmann::json::parse(std::ifstream(entry.path()));
    meta["log"] = "";
    std::ofstream(entry.path()) << meta.dump();
    ++emptied;
  }
  ASSERT_GT(emptied, 0);
  nlohmann::json second = plan("second");
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(second[i]["status"], first[i]["status"]) << second[i].dump();
    for (const char* field : {"registers_per_thread", "static_smem_bytes", "local_bytes_per_thread"})
      EXPECT_EQ(second[i]["resources"][field], first[i]["resources"][field]) << first[i]["point_id"] << " " << field;
    EXPECT_NE(second[i]["resources"]["from"].get<std::string>().find("cubin"), std::string::npos);
    EXPECT_EQ(second[i]["occupancy"], first[i]["occupancy"]) << first[i]["point_id"];
  }
}

TEST(SourceFamily, PlanReadsResourcesFromNvrtcWithoutAGpu) {
  occbench::PlanOptions options;
  options.config = kExampleDir + "/adjacent_difference.json";
  options.gpu = "h100";
  options.write_files = false;
  std::ostringstream out, err;
  ASSERT_EQ(occbench::plan_main(options, occbench::builtin_registry(), out, err), 0) << out.str() << err.str();
  // The built-in family's registers on sm_90: 12 for the one-element kernels, 32 for vectorized<4>.
  EXPECT_NE(out.str().find("32 planned, 0 skipped, 0 failed"), std::string::npos) << out.str();
  EXPECT_TRUE(std::regex_search(out.str(), std::regex("global +n=16777216 block_size=256 +planned +65536 +256 +0 +12 ")))
      << out.str();
  EXPECT_TRUE(std::regex_search(out.str(), std::regex("vectorized +n=16777216 block_size=256 +planned +4096 +256 +0 +32 ")))
      << out.str();
}

// Names that share options compile in one NVRTC call; an instantiation that does not compile
// fails only its own points (the group falls back to compiling each name alone).
TEST(SourceFamily, OneBadInstantiationFailsOnlyItsPoints) {
  fs::path dir = scratch_dir();
  std::ofstream(dir / "pick.cu") << "template <int kWidth>\n"
                                    "__global__ void pick_kernel(float* out, unsigned n) {\n"
                                    "  static_assert(kWidth != 3, \"width 3 is not supported\");\n"
                                    "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                    "  if (i < n) out[i] = float(kWidth);\n"
                                    "}\n";
  json doc = {{"source", "pick.cu"},
              {"sizes", {{"n", {1024}}}},
              {"axes", {{"width", {1, 2, 3, 4}}}},
              {"arguments", {{{"name", "out"}, {"role", "output"}, {"type", "float32"}, {"count", "n"}},
                             {{"name", "n"}, {"role", "scalar"}, {"type", "uint32"}, {"value", "n"}}}},
              {"kernels", {{"pick", {{"kernel", "pick_kernel<{width}>"}, {"grid", "ceil_div(n, 128)"}, {"block", 128}}}}},
              {"reference", {{"variant", "pick"}}}};
  std::ostringstream out, err;
  EXPECT_EQ(plan_h100(doc, "pick.json", out, err), 1);
  EXPECT_NE(out.str().find("3 planned, 0 skipped, 1 failed"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("width 3 is not supported"), std::string::npos) << out.str();
}

// Parameters reach the kernel as #define lines written above its source, as Kernel Tuner writes
// them, not as -D options: -Dpad=1 (or x, width, size, value, type) also rewrote NVRTC's built-in
// headers and broke every compile. Each name compiles here, and its value is the point's. (A
// header the source includes after them sees them too, as under Kernel Tuner.)
TEST(SourceFamily, ParametersOfAnyNameReachTheKernelAsDefineLines) {
  fs::path dir = scratch_dir();
  std::ofstream(dir / "names.cu") << "static_assert(pad == 1 && x == 2 && size == 4 && value == 5 && type == 6, \"values\");\n"
                                     "__global__ void names_kernel(float* out, unsigned n) {\n"
                                     "  if (n > 0) out[0] = float(pad + x + width + size + value + type);  // no .x: x is a macro\n"
                                     "}\n";
  json defines = json::object();
  for (const char* name : {"pad", "x", "width", "size", "value", "type"}) defines[name] = name;
  json doc = {{"source", "names.cu"},
              {"sizes", {{"n", {1024}}}},
              {"axes", {{"pad", {1}}, {"x", {2}}, {"width", {3, 7}}, {"size", {4}}, {"value", {5}}, {"type", {6}}}},
              {"arguments", {{{"name", "out"}, {"role", "output"}, {"type", "float32"}, {"count", "n"}},
                             {{"name", "n"}, {"role", "scalar"}, {"type", "uint32"}, {"value", "n"}}}},
              {"kernels", {{"names", {{"kernel", "names_kernel"}, {"grid", "ceil_div(n, 128)"}, {"block", 128}, {"defines", defines}}}}},
              {"reference", {{"variant", "names"}}}};
  std::ostringstream out, err;
  EXPECT_EQ(plan_h100(doc, "names.json", out, err), 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("2 planned, 0 skipped, 0 failed"), std::string::npos) << out.str() << err.str();
}

// A #define line keeps the source's own line numbers in the compiler's messages (#line 1).
TEST(Nvrtc, DefineLinesKeepTheSourcesLineNumbers) {
  fs::path dir = scratch_dir();
  std::ofstream(dir / "line.cu") << "__global__ void line_kernel(float* out) {\n"
                                    "  out[0] = pad;\n"
                                    "  undeclared_on_line_3;\n"
                                    "}\n";
  json doc = {{"source", "line.cu"},
              {"sizes", {{"n", {1}}}},
              {"axes", {{"pad", {1}}}},
              {"arguments", {{{"name", "out"}, {"role", "output"}, {"type", "float32"}, {"count", "n"}}}},
              {"kernels", {{"line", {{"kernel", "line_kernel"}, {"grid", 1}, {"block", 32}, {"defines", {{"pad", "pad"}}}}}}},
              {"reference", {{"variant", "line"}}}};
  std::ostringstream out, err;
  EXPECT_EQ(plan_h100(doc, "line.json", out, err), 1);
  EXPECT_NE(out.str().find("line.cu(3)"), std::string::npos) << out.str() << err.str();
}

// A compiler's log quotes the source: a Latin-1 byte there made the record's JSON unwritable
// ([json.exception.type_error.316], no plan written). The log is made valid UTF-8 (U+FFFD).
TEST(Nvrtc, ALogQuotingALatin1SourceLineIsWrittenAsValidUtf8) {
  fs::path dir = scratch_dir();
  std::ofstream(dir / "latin1.cu") << "__global__ void latin1_kernel(float* out) {\n"
                                      "  out[0] = undeclared; /* caf\xe9 */\n"
                                      "}\n";
  json doc = {{"source", "latin1.cu"},
              {"sizes", {{"n", {1}}}},
              {"arguments", {{{"name", "out"}, {"role", "output"}, {"type", "float32"}, {"count", "n"}}}},
              {"kernels", {{"latin1", {{"kernel", "latin1_kernel"}, {"grid", 1}, {"block", 32}}}}},
              {"reference", {{"variant", "latin1"}}}};
  occbench::PlanOptions options;
  options.config = write_config(doc, "latin1.json");
  options.gpu = "h100";
  options.out_dir = (dir / "plan_out").string();
  std::ostringstream out, err;
  EXPECT_EQ(occbench::plan_main(options, occbench::builtin_registry(), out, err), 1) << out.str() << err.str();
  std::string written;
  for (const auto& entry : fs::directory_iterator(options.out_dir))
    if (entry.path().extension() == ".json") written = entry.path().string();
  ASSERT_FALSE(written.empty()) << out.str() << err.str();
  json plan = json::parse(std::ifstream(written));
  EXPECT_NE(plan["results"][0]["reason"].get<std::string>().find("caf\xef\xbf\xbd"), std::string::npos) << plan["results"][0]["reason"];
}
