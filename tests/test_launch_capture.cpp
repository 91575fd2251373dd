// The format of a captured launch (launch/capture.hpp), without a GPU: the config it writes is
// one occbench reads and plans as it is, its .npy files hold the bytes the application's launch
// had, its scalars read back as the same values, and what cannot be captured is refused saying why.
#include "launch/capture.hpp"

#include "harness/family/npy.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/run/plan.hpp"
#include "harness/sweep/config.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

using namespace occbench;
using launch::ArgumentDeclaration;
using launch::CapturedArgument;
using launch::KernelDeclaration;

namespace {

namespace fs = std::filesystem;

template <typename T>
std::vector<unsigned char> bytes_of(const std::vector<T>& values) {
  std::vector<unsigned char> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("occbench-capture-cpu-" + std::to_string(::getpid()));
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "scale.cu") << R"(extern "C" __global__ void scale(float* out, const float* in, float* acc, float a, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) { out[i] = a * in[i]; acc[i] += in[i]; }
}
)";
  }
  ~Scratch() { fs::remove_all(dir); }
  KernelDeclaration declaration() const {
    KernelDeclaration d;
    d.source = (dir / "scale.cu").string();
    d.name = "scale";
    d.variant = "app/scale";
    d.parameters = {{"BLOCK", 256}};
    d.values = {{"BLOCK", {128, 256, 512}}};
    d.restrictions = {"BLOCK <= n"};
    d.grid = {"ceil_div(n, BLOCK)", "1", "1"};
    d.block = {"BLOCK", "1", "1"};
    d.arguments = {{"out", "output", "float32", "n"},
                   {"in", "input", "float32", "n"},
                   {"acc", "inout", "float32", "n"},
                   {"a", "scalar", "float32", ""},
                   {"n", "scalar", "int32", ""}};
    return d;
  }
};

}  // namespace

TEST(LaunchCapture, WritesAConfigThatOccbenchPlansAsItIs) {
  Scratch s;
  KernelDeclaration d = s.declaration();
  const int n = 1000;
  std::vector<float> in(n), out(n), acc0(n), acc1(n);
  for (int i = 0; i < n; ++i) in[i] = 0.37f * float(i % 17) - 2.5f, out[i] = 0.1f * in[i], acc0[i] = float(i) / 7, acc1[i] = acc0[i] + in[i];
  float a = 0.1f;
  std::vector<CapturedArgument> captured(5);
  captured[0].after = bytes_of(out);
  captured[1].before = bytes_of(in);
  captured[2].before = bytes_of(acc0), captured[2].after = bytes_of(acc1);
  captured[3].before = bytes_of(std::vector<float>{a});
  captured[4].before = bytes_of(std::vector<std::int32_t>{n});
  std::map<std::string, double> sizes = {{"n", n}};
  std::string folder = launch::capture_directory((s.dir / "captures").string(), d, sizes);
  EXPECT_EQ(fs::path(folder).filename(), "scale_n1000");
  std::string path = launch::write_capture(d, sizes, captured, {"NVIDIA H200", {{"BLOCK", 256}}}, folder);

  auto config = read_json_file(path);
  EXPECT_EQ(config["name"], "app");
  SweepSpec spec = parse_sweep_file(path, builtin_registry());
  EXPECT_EQ(spec.family, "app");  // so the tuning's records name the declaration's variant, app/scale
  EXPECT_EQ(spec.variants, std::vector<std::string>{"scale"});
  EXPECT_EQ(config["source"], fs::absolute(d.source).string());
  EXPECT_EQ(config["sizes"]["n"], nlohmann::ordered_json::array({n}));
  EXPECT_EQ(config["axes"]["BLOCK"], nlohmann::ordered_json::array({128, 256, 512}));
  EXPECT_EQ(config["restrictions"], nlohmann::ordered_json::array({"BLOCK <= n"}));
  EXPECT_EQ(config["kernels"]["scale"]["defines"]["BLOCK"], "BLOCK");
  EXPECT_EQ(config["reference"]["npy"]["out"], "out.expected.npy");
  EXPECT_EQ(config["reference"]["npy"]["acc"], "acc.expected.npy");
  const auto& args = config["arguments"];
  EXPECT_FALSE(args[0].contains("init"));  // an output starts as NaN: an element never written fails
  EXPECT_EQ(args[1]["init"]["file"], "in.npy");
  EXPECT_EQ(args[2]["role"], "output");
  EXPECT_EQ(args[2]["init"]["file"], "acc.npy");  // an inout starts from its contents before the launch
  EXPECT_EQ(args[3]["value"], "0.1");
  EXPECT_EQ(args[4]["value"], "1000");
  EXPECT_NE(config["description"].get<std::string>().find("on NVIDIA H200 at n=1000 (launched with BLOCK=256)"), std::string::npos);

  EXPECT_EQ(read_npy((fs::path(folder) / "in.npy").string()).bytes, bytes_of(in));
  EXPECT_EQ(read_npy((fs::path(folder) / "acc.npy").string()).bytes, bytes_of(acc0));
  EXPECT_EQ(read_npy((fs::path(folder) / "acc.expected.npy").string()).bytes, bytes_of(acc1));
  NpyArray expected = read_npy((fs::path(folder) / "out.expected.npy").string());
  EXPECT_EQ(expected.dtype, "<f4");
  EXPECT_EQ(expected.shape, std::vector<std::uint64_t>{std::uint64_t(n)});

  PlanOptions options;
  options.config = path;
  options.gpu = "h200";
  options.write_files = false;
  std::ostringstream plan_out, plan_err;
  EXPECT_EQ(plan_main(options, builtin_registry(), plan_out, plan_err), 0) << plan_err.str();
  EXPECT_NE(plan_out.str().find("3 planned, 0 skipped, 0 failed"), std::string::npos) << plan_out.str();
}

TEST(LaunchCapture, ScalarsAreWrittenAsTextThatReadsBackTheSameValue) {
  Scratch s;
  KernelDeclaration d = s.declaration();
  d.arguments = {{"out", "output", "float64", "4"}, {"f", "scalar", "float32", ""}, {"g", "scalar", "float64", ""},
                 {"i", "scalar", "int64", ""},      {"u", "scalar", "uint64", ""}};
  std::vector<CapturedArgument> captured(5);
  captured[0].after = bytes_of(std::vector<double>{1, 2, 3, 4});
  float f = 1.0f / 3;
  double g = 1e-300 / 3;
  captured[1].before = bytes_of(std::vector<float>{f});
  captured[2].before = bytes_of(std::vector<double>{g});
  captured[3].before = bytes_of(std::vector<std::int64_t>{-(std::int64_t(1) << 62) - 1});
  captured[4].before = bytes_of(std::vector<std::uint64_t>{std::numeric_limits<std::uint64_t>::max()});
  auto config = read_json_file(launch::write_capture(d, {{"n", 4}}, captured, {"gpu", {}}, (s.dir / "c").string()));
  const auto& args = config["arguments"];
  EXPECT_EQ(std::strtof(args[1]["value"].get<std::string>().c_str(), nullptr), f);
  EXPECT_EQ(std::strtod(args[2]["value"].get<std::string>().c_str(), nullptr), g);
  EXPECT_EQ(args[3]["value"], "-4611686018427387905");
  EXPECT_EQ(args[4]["value"], "18446744073709551615");

  captured[1].before = bytes_of(std::vector<float>{std::numeric_limits<float>::quiet_NaN()});
  EXPECT_THROW(launch::write_capture(d, {{"n", 4}}, captured, {"gpu", {}}, (s.dir / "nan").string()), std::runtime_error);
}

TEST(LaunchCapture, OccbenchCaptureNamesAKernelByItsNameItsVariantOrAWildcard) {
  KernelDeclaration d;
  d.name = "matmul_kernel";
  d.variant = "app/matmul";
  for (const char* yes : {"matmul", "app/matmul", "matmul_kernel", "app/*", "*_kernel", "conv,matmul", "*"})
    EXPECT_TRUE(launch::capture_wanted(yes, d)) << yes;
  for (const char* no : {"", "conv", "mat", "app", "matmul_kernel2", ",", "conv,app"}) EXPECT_FALSE(launch::capture_wanted(no, d)) << no;
}

TEST(LaunchCapture, WhatCannotBeCapturedIsRefusedSayingWhy) {
  Scratch s;
  EXPECT_EQ(launch::capture_refusal(s.declaration()), "");
  auto refusal = [&](auto change) {
    KernelDeclaration d = s.declaration();
    change(d);
    return launch::capture_refusal(d);
  };
  EXPECT_NE(refusal([](KernelDeclaration& d) { d.arguments.clear(); }).find("lists no arguments"), std::string::npos);
  EXPECT_NE(refusal([](KernelDeclaration& d) { d.arguments[0].role = "in-out"; }).find("role 'in-out', expected one of: input, output, inout, scalar"),
            std::string::npos);
  EXPECT_NE(refusal([](KernelDeclaration& d) { d.arguments[1].type = "float16"; }).find("type 'float16', expected one of: float32"),
            std::string::npos);
  EXPECT_NE(refusal([](KernelDeclaration& d) { d.arguments[1].type = "int64"; }).find("64-bit integers are for scalars only"), std::string::npos);
  EXPECT_NE(refusal([](KernelDeclaration& d) { d.arguments[1].name = "../in"; }).find("expected a name of letters, digits and '_'"),
            std::string::npos);
  EXPECT_NE(refusal([](KernelDeclaration& d) { d.values["BLOCK"] = {128, 512}; }).find("leave out its default 256"), std::string::npos);
  EXPECT_NE(refusal([](KernelDeclaration& d) { d.values["TILE"] = {1, 2}; }).find("'TILE', which is not one of its parameters"),
            std::string::npos);
}

TEST(LaunchCapture, NeverWritesOverTheKernelsSource) {
  Scratch s;
  KernelDeclaration d = s.declaration();
  fs::path folder = s.dir / "captures";
  fs::create_directories(folder);
  std::ofstream(folder / "in.npy") << "the kernel's source";
  d.source = (folder / "in.npy").string();
  std::vector<CapturedArgument> captured(5);
  captured[0].after = captured[1].before = captured[2].before = captured[2].after = bytes_of(std::vector<float>(10, 1.0f));
  captured[3].before = bytes_of(std::vector<float>{1});
  captured[4].before = bytes_of(std::vector<std::int32_t>{10});
  EXPECT_THROW(launch::write_capture(d, {{"n", 10}}, captured, {"gpu", {}}, folder.string()), std::runtime_error);
  std::ifstream source(folder / "in.npy");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(source), {}), "the kernel's source");
}

TEST(LaunchCapture, EachBuffersBytesFromItsCountAndNoneWithoutOne) {
  Scratch s;
  KernelDeclaration d = s.declaration();
  d.arguments[1].count = "";
  auto bytes = launch::captured_bytes(d, {{"n", 1000}});
  ASSERT_EQ(bytes.size(), 5u);
  EXPECT_EQ(bytes[0], std::optional<std::size_t>(4000));
  EXPECT_EQ(bytes[1], std::nullopt);  // the allocation's, found on the GPU
  EXPECT_EQ(bytes[3], std::optional<std::size_t>(4));
  d.arguments[0].count = "m";
  EXPECT_THROW(launch::captured_bytes(d, {{"n", 1000}}), std::exception);
}
