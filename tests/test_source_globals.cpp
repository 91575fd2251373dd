// Global arguments of user kernels ("global": true, issue 29): a __constant__ or __device__
// variable of the source instead of a kernel parameter. On a machine without a GPU: the config is
// read, NVRTC finds the variable and its size in the cubin, and a variable that is missing or too
// small for the argument is bad input naming the argument's path. Filling it: test_gpu_source_family.
#include "harness/sweep/config.hpp"
#include "data_dir.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"
#include "results_test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace occbench;
using json = nlohmann::ordered_json;

namespace {

const std::string kConvolution = std::string(OCCBENCH_SOURCE_DIR) + "/examples/kernel_tuner/convolution/convolution.json";

json convolution() { return json::parse(std::ifstream(kConvolution)); }

// The error of parsing `doc` as if it were the example itself (its .cu beside it), or "".
std::string error_of(const json& doc) {
  try {
    parse_sweep_json(doc, kConvolution, builtin_registry());
  } catch (const ConfigError& e) {
    return e.json_path() + ": " + e.expected();
  }
  return "";
}

}  // namespace

TEST(SourceGlobals, CubinSymbolSizesAreReadFromItsSymbolTable) {
  NvrtcRequest request;
  request.source_path = "globals.cu";
  request.source_text = "namespace ns { __constant__ float table[17 * 17]; }\n__device__ int counter[3];\n"
                        "extern \"C\" __global__ void k(float* o) { o[threadIdx.x] = ns::table[threadIdx.x] + counter[0]; }\n";
  request.name_expressions = {"k", "&ns::table", "&counter"};
  request.arch = 90;
  NvrtcResult compiled = nvrtc_compile_once(request);
  EXPECT_EQ(compiled.lowered.at("&ns::table"), "_ZN2ns5tableE");
  EXPECT_EQ(cubin_symbol_bytes(compiled.cubin, compiled.lowered.at("&ns::table")), std::optional<std::size_t>(17 * 17 * 4));
  EXPECT_EQ(cubin_symbol_bytes(compiled.cubin, "counter"), std::optional<std::size_t>(12));
  EXPECT_EQ(cubin_symbol_bytes(compiled.cubin, "k"), std::nullopt) << "a kernel is not a data symbol";
  EXPECT_EQ(cubin_symbol_bytes(compiled.cubin, "missing"), std::nullopt);
  EXPECT_EQ(cubin_symbol_bytes("not an ELF file", "counter"), std::nullopt);
}

TEST(SourceGlobals, TheConvolutionExampleReadsItsConstantFilter) {
  EXPECT_EQ(error_of(convolution()), "");
  SweepSpec spec = parse_sweep_json(convolution(), kConvolution, builtin_registry());
  EXPECT_EQ(expand_sweep(spec, builtin_registry()).size(), 2835u) << "Kernel Tuner's axes under its restrictions, and naive";
}

TEST(SourceGlobals, TheMatmulExampleReadsItsConstantScale) {
  std::string path = std::string(OCCBENCH_SOURCE_DIR) + "/examples/kernel_tuner/matmul/matmul.json";
  SweepSpec spec = parse_sweep_file(path, builtin_registry());
  EXPECT_EQ(expand_sweep(spec, builtin_registry()).size(), 462u) << "230 tiled points and naive, at two sizes";
  json doc = json::parse(std::ifstream(path));
  doc["arguments"][5]["type"] = "float64";
  try {
    parse_sweep_json(doc, path, builtin_registry());
    ADD_FAILURE() << "a double into a float constant was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.json_path(), "$.arguments[5]");
    EXPECT_NE(e.expected().find("holds 4 bytes"), std::string::npos) << e.expected();
  }
}

TEST(SourceGlobals, AMissingOrTooSmallVariableIsBadInputNamingTheArgument) {
  json doc = convolution();
  doc["arguments"][2]["name"] = "d_filter_missing";
  EXPECT_EQ(error_of(doc), "$.arguments[2].name: no __constant__ or __device__ variable 'd_filter_missing' in " +
                               std::string(OCCBENCH_SOURCE_DIR) + "/examples/kernel_tuner/convolution/convolution.cu");
  doc = convolution();
  doc["arguments"][2]["count"] = "17 * 18";
  std::string error = error_of(doc);
  EXPECT_EQ(error.rfind("$.arguments[2]: the variable 'd_filter' of ", 0), 0u) << error;
  EXPECT_NE(error.find("holds 1156 bytes; at image_width=4096 image_height=4096 the argument has 1224 (306 of float32)"), std::string::npos)
      << error;
  doc = convolution();
  doc["arguments"][0]["global"] = true;
  EXPECT_EQ(error_of(doc), "$.arguments[0].global: 'global' applies only to input and scalar arguments");
  doc = convolution();
  doc["arguments"][2]["global"] = "yes";
  EXPECT_EQ(error_of(doc), "$.arguments[2].global: expected true or false, got \"yes\"");
}

TEST(SourceGlobals, ValidateExitsTwoForAMissingVariable) {
  testing_support::TempDir dir;
  json doc = convolution();
  doc["source"] = std::string(OCCBENCH_SOURCE_DIR) + "/examples/kernel_tuner/convolution/convolution.cu";
  doc["arguments"][2]["name"] = "filter";
  testing_support::CliResult r = testing_support::run_cli({"validate", dir.write("c.json", doc.dump())});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("$.arguments[2].name: no __constant__ or __device__ variable 'filter'"), std::string::npos) << r.err;
}
