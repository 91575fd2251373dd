// "compile": {"compiler": "nvcc"}: the toolkit's nvcc builds a request's cubin instead of NVRTC,
// with the same options, names and cache. These run without a GPU; those that need nvcc skip
// where none runs.
#include "harness/compile/nvcc_compiler.hpp"
#include "data_dir.hpp"
#include "harness/cli/cli.hpp"
#include "harness/core/files.hpp"
#include "harness/run/plan.hpp"
#include "kernels/families.hpp"
#include "harness/model/kernel_resources.hpp"
#include "harness/compile/nvrtc_compiler.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

#define OCCBENCH_REQUIRE_NVCC() \
  if (occbench::nvcc_version().empty()) GTEST_SKIP() << "no nvcc runs here (looked in " << occbench::kNvccPlaces << ")"

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("occbench_nvcc_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

occbench::NvrtcRequest adjacent_difference_request() {
  occbench::NvrtcRequest request;
  request.source_path = std::string(OCCBENCH_SOURCE_DIR) + "/examples/adjacent_difference/adjacent_difference.cu";
  std::ifstream in(request.source_path);
  std::stringstream text;
  text << in.rdbuf();
  request.source_text = text.str();
  request.name_expressions = {"vectorized_kernel<4>", "global_kernel"};
  request.arch = 90;
  request.compiler = occbench::Compiler::nvcc;
  return request;
}

// examples/adjacent_difference's config built by nvcc, its source named by its full path (the
// config is written elsewhere).
nlohmann::json adjacent_difference_by_nvcc() {
  std::string examples = std::string(OCCBENCH_SOURCE_DIR) + "/examples/adjacent_difference/";
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(examples + "adjacent_difference.json"));
  doc["source"] = examples + "adjacent_difference.cu";
  doc["compile"]["compiler"] = "nvcc";
  return doc;
}

}  // namespace

// Names as nvcc's cubin holds them: an extern "C" kernel or a global variable by its own name, a
// template's instance or a namespaced variable by its demangled name; a kernel never stands for
// a variable of the same name, nor the other way round.
TEST(NvccNames, ExpressionsAreFoundAmongTheCubinsSymbols) {
  std::vector<std::pair<std::string, bool>> symbols = {{"convolution_kernel", true},
                                                       {"d_filter", false},
                                                       {"_Z17vectorized_kernelILi4EEvPfPKfj", true},
                                                       {"_ZN2ns5scaleE", false},
                                                       {"clash", false}};
  EXPECT_EQ(occbench::lowered_name_among("convolution_kernel", symbols), "convolution_kernel");
  EXPECT_EQ(occbench::lowered_name_among("&d_filter", symbols), "d_filter");
  EXPECT_EQ(occbench::lowered_name_among("vectorized_kernel<4>", symbols), "_Z17vectorized_kernelILi4EEvPfPKfj");
  EXPECT_EQ(occbench::lowered_name_among("vectorized_kernel< 4 >", symbols), "_Z17vectorized_kernelILi4EEvPfPKfj");
  EXPECT_EQ(occbench::lowered_name_among("&ns::scale", symbols), "_ZN2ns5scaleE");
  EXPECT_FALSE(occbench::lowered_name_among("vectorized_kernel<8>", symbols));
  EXPECT_FALSE(occbench::lowered_name_among("&convolution_kernel", symbols)) << "a kernel is not a variable";
  EXPECT_FALSE(occbench::lowered_name_among("clash", symbols)) << "a variable is not a kernel";
}

// The same request as NVRTC's test: nvcc's cubin has the same mangled names, ptxas's report in its
// log and the cubin, its own cache entry (another key: other code), and is cached as NVRTC's is.
TEST(Nvcc, CompilesARequestAsNvrtcDoesUnderItsOwnCacheKey) {
  OCCBENCH_REQUIRE_NVCC();
  fs::path cache = fresh_dir("cache");
  occbench::NvrtcRequest request = adjacent_difference_request();
  occbench::NvrtcResult cold = occbench::nvrtc_compile(request, cache.string());
  EXPECT_FALSE(cold.cache_hit);
  EXPECT_GT(cold.compile_ms, 0);
  EXPECT_EQ(cold.compiler, "nvcc " + occbench::nvcc_version());
  EXPECT_EQ(cold.lowered.at("vectorized_kernel<4>"), "_Z17vectorized_kernelILi4EEvPfPKfj");
  EXPECT_EQ(cold.lowered.at("global_kernel"), "_Z13global_kernelPfPKfj");
  EXPECT_NE(cold.log.find("Used 32 registers"), std::string::npos) << cold.log;
  auto resources = occbench::cubin_kernel_resources(cold.cubin, cold.lowered.at("vectorized_kernel<4>"), 1024);
  ASSERT_TRUE(resources);
  EXPECT_EQ(resources->registers, 32);

  occbench::NvrtcResult warm = occbench::nvrtc_compile(request, cache.string());
  EXPECT_TRUE(warm.cache_hit);
  EXPECT_EQ(warm.cubin, cold.cubin);
  EXPECT_DOUBLE_EQ(warm.nvrtc_ms, cold.compile_ms);

  request.compiler = occbench::Compiler::nvrtc;
  occbench::NvrtcResult by_nvrtc = occbench::nvrtc_compile(request, cache.string());
  EXPECT_FALSE(by_nvrtc.cache_hit);
  EXPECT_NE(by_nvrtc.cache_key, cold.cache_key);
  EXPECT_EQ(by_nvrtc.lowered, cold.lowered);
  EXPECT_EQ(by_nvrtc.compiler, "nvrtc " + occbench::nvrtc_version());
  fs::remove_all(cache);
}

TEST(Nvcc, CompileErrorNamesTheSourceFileAndLine) {
  OCCBENCH_REQUIRE_NVCC();
  occbench::NvrtcRequest request;
  request.source_path = "examples/broken/x.cu";
  request.source_text = "__global__ void k(float* o) {\n  o[0] = missing_name;\n}\n";
  request.name_expressions = {"k"};
  request.compiler = occbench::Compiler::nvcc;
  fs::path cache = fresh_dir("broken");
  try {
    occbench::nvrtc_compile(request, cache.string());
    FAIL() << "compiled";
  } catch (const occbench::NvrtcCompileError& e) {
    EXPECT_NE(std::string(e.what()).find("examples/broken/x.cu(2): error"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nvcc could not compile"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(cache / "x.cubin"));
  fs::remove_all(cache);
}

// A name expression the source does not declare is an error naming it and where it came from.
TEST(Nvcc, ANameNotInTheSourceIsNamed) {
  OCCBENCH_REQUIRE_NVCC();
  occbench::NvrtcRequest request;
  request.source_path = "named.cu";
  request.source_text = "extern \"C\" __global__ void k(float* o) { o[threadIdx.x] = 1.0f; }\n"
                        "extern \"C\" __global__ void other(float* o) { o[threadIdx.x] = 2.0f; }\n";
  request.name_expressions = {"k"};
  request.compiler = occbench::Compiler::nvcc;
  fs::path cache = fresh_dir("named");
  EXPECT_EQ(occbench::nvrtc_compile(request, cache.string()).lowered.at("k"), "k");
  request.name_expressions = {"k", "&missing_variable"};
  try {
    occbench::nvrtc_compile(request, cache.string());
    FAIL() << "compiled";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("name expressions of named.cu(2): error: identifier \"missing_variable\" is undefined"),
              std::string::npos)
        << e.what();
  }
  fs::remove_all(cache);
}

// This process's memory of what it compiled (nvrtc_compile_once) keeps NVRTC's and nvcc's builds
// of one request apart: a config built by nvcc after one built by NVRTC gets nvcc's code.
TEST(Nvcc, TheProcessesMemoryOfCompilationsTellsTheCompilersApart) {
  OCCBENCH_REQUIRE_NVCC();
  fs::path cache = fresh_dir("once");
  const char* before = std::getenv("OCCBENCH_CACHE_DIR");
  std::string kept = before ? before : "";
  ::setenv("OCCBENCH_CACHE_DIR", cache.c_str(), 1);
  occbench::NvrtcRequest request = adjacent_difference_request();
  request.source_text += "\n// once\n";  // a request no other test compiled in this process
  request.compiler = occbench::Compiler::nvrtc;
  EXPECT_EQ(occbench::nvrtc_compile_once(request).compiler.rfind("nvrtc ", 0), 0u);
  request.compiler = occbench::Compiler::nvcc;
  EXPECT_EQ(occbench::nvrtc_compile_once(request).compiler.rfind("nvcc ", 0), 0u);
  if (before) ::setenv("OCCBENCH_CACHE_DIR", kept.c_str(), 1);
  else ::unsetenv("OCCBENCH_CACHE_DIR");
  fs::remove_all(cache);
}

// `occbench validate CONFIG`, exiting with its code.
[[noreturn]] void validate_and_exit(const std::string& config) {
  std::vector<std::string> args = {"occbench", "validate", config};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::exit(occbench::cli_main(int(argv.size()), argv.data(), occbench::builtin_registry()));
}

// A config that asks for nvcc where none works is refused at once, naming the field (exit 2), not
// point by point. The check runs in a fresh process (gtest's "threadsafe" death test runs this
// binary again), whose CUDA_HOME holds an nvcc that fails.
TEST(NvccConfig, AnNvccThatDoesNotRunIsRefusedNamingTheField) {
  fs::path dir = fresh_dir("broken_toolkit");
  fs::create_directories(dir / "bin");
  occbench::write_text_file((dir / "bin" / "nvcc").string(), "#!/bin/sh\nexit 1\n");
  fs::permissions(dir / "bin" / "nvcc", fs::perms::owner_all);
  nlohmann::json doc = adjacent_difference_by_nvcc();
  std::string config = (dir / "by_nvcc.json").string();
  occbench::write_text_file(config, doc.dump());
  const char* before = std::getenv("CUDA_HOME");
  std::string kept = before ? before : "";
  ::setenv("CUDA_HOME", dir.c_str(), 1);
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(validate_and_exit(config), testing::ExitedWithCode(2), "by_nvcc.json.*compile.compiler.*no nvcc runs here");
  if (before) ::setenv("CUDA_HOME", kept.c_str(), 1);
  else ::unsetenv("CUDA_HOME");
  fs::remove_all(dir);
}

// plan of a config built by nvcc (no GPU needed): each point's registers come from ptxas's report
// in nvcc's output, and the record says nvcc built it.
TEST(NvccConfig, PlanReadsResourcesFromNvccAndSaysSo) {
  OCCBENCH_REQUIRE_NVCC();
  fs::path dir = fresh_dir("plan");
  nlohmann::json doc = adjacent_difference_by_nvcc();
  doc["sizes"] = {{"n", {100003}}};
  occbench::PlanOptions options;
  options.config = (dir / "by_nvcc.json").string();
  occbench::write_text_file(options.config, doc.dump());
  options.gpu = "h100";
  options.out_dir = (dir / "out").string();
  std::ostringstream out, err;
  ASSERT_EQ(occbench::plan_main(options, occbench::builtin_registry(), out, err), 0) << out.str() << err.str();
  std::string written;
  for (const auto& entry : fs::directory_iterator(options.out_dir))
    if (entry.path().extension() == ".json") written = entry.path().string();
  ASSERT_FALSE(written.empty()) << out.str();
  nlohmann::json plan = nlohmann::json::parse(std::ifstream(written));
  ASSERT_EQ(plan["results"].size(), 16u);
  for (const auto& r : plan["results"]) {
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(r["resources"]["from"], "ptxas -v of the nvcc " + occbench::nvcc_version() + " compilation for sm_90");
    EXPECT_EQ(r["compile"]["compiler"], "nvcc " + occbench::nvcc_version());
    EXPECT_EQ(r["resources"]["registers_per_thread"], r["variant"] == "vectorized" ? 32 : 12);
  }
  fs::remove_all(dir);
}

namespace {

// `occbench validate CONFIG` in this process: (exit code, what it printed on stderr).
std::pair<int, std::string> validate(const std::string& config) {
  std::vector<std::string> args = {"occbench", "validate", config};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  testing::internal::CaptureStderr();
  testing::internal::CaptureStdout();
  int code = occbench::cli_main(int(argv.size()), argv.data(), occbench::builtin_registry());
  testing::internal::GetCapturedStdout();
  return {code, testing::internal::GetCapturedStderr()};
}

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

}  // namespace

// Options that make a compiler write files of its own naming are refused before anything is
// compiled, for both compilers (nvcc's --output-file=my_scale.cu wrote a cubin over the source;
// -save-temps left six files in the current folder); nvcc runs in its own scratch folder, so what
// it writes besides the cubin never lands beside the caller.
TEST(NvccConfig, OptionsThatWriteFilesAreRefusedAndNothingOfTheCallersIsWritten) {
  fs::path dir = fresh_dir("writing_options");
  std::string examples = std::string(OCCBENCH_SOURCE_DIR) + "/examples/adjacent_difference/";
  fs::copy_file(examples + "adjacent_difference.cu", dir / "my_scale.cu");
  std::string source = occbench::read_file((dir / "my_scale.cu").string()).value_or("");
  for (const char* compiler : {"nvcc", "nvrtc"})
    for (const char* option : {"--output-file=my_scale.cu", "-o", "-save-temps", "--keep", "--keep-dir=.", "-MF=deps", "-MD",
                               "--options-file=opts", "-run", "-odir=.", "-Xcompiler=-o/tmp/x"}) {
      SCOPED_TRACE(std::string(compiler) + " " + option);
      nlohmann::json doc = adjacent_difference_by_nvcc();
      doc["source"] = (dir / "my_scale.cu").string();
      doc["compile"]["compiler"] = compiler;
      doc["compile"]["options"] = {option};
      std::string config = (dir / "writing.json").string();
      occbench::write_text_file(config, doc.dump());
      auto [code, err] = validate(config);
      EXPECT_EQ(code, 2) << err;
      EXPECT_NE(err.find("$.compile.options[0]"), std::string::npos) << err;
      EXPECT_NE(err.find("write files"), std::string::npos) << err;
    }
  EXPECT_EQ(occbench::read_file((dir / "my_scale.cu").string()).value_or(""), source);
  if (occbench::nvcc_version().empty()) return;  // what follows needs nvcc
  std::set<std::string> before = files_in(fs::current_path());
  occbench::NvrtcRequest request = adjacent_difference_request();
  request.options = {"-lineinfo"};
  occbench::nvrtc_compile(request, (dir / "cache").string());
  EXPECT_EQ(files_in(fs::current_path()), before);
  fs::remove_all(dir);
}
