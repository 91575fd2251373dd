// A launch captured from the application (OCCBENCH_CAPTURE, launch/capture.hpp) on the GPU: the
// application's own launch goes on as without the capture, the files hold its inputs and what it
// left in its outputs, and the config they make runs in occbench as it is, every point verified
// against the application's outputs, a buffer read and written (inout) starting from its contents
// before the launch.
#include "launch/launch.hpp"

#include "gpu_test_support.hpp"
#include "harness/family/device_buffer.hpp"
#include "harness/family/npy.hpp"
#include "harness/records/record_writer.hpp"
#include "harness/run/runner.hpp"
#include "harness/sweep/config.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace occbench;

namespace {

namespace fs = std::filesystem;

const char* kKernels = R"(extern "C" __global__ void scale(float* out, const float* in, float a, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = a * in[i];
}
extern "C" __global__ void accumulate(float* acc, const float* in, int n) {
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) acc[i] += in[i];
}
)";

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::vector<float> v(n);
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (float& x : v) x = uniform(generator);
  return v;
}

std::vector<float> npy_floats(const fs::path& path) {
  NpyArray a = read_npy(path.string());
  EXPECT_EQ(a.dtype, "<f4") << path;
  std::vector<float> v(a.bytes.size() / sizeof(float));
  std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
  return v;
}

struct CaptureWorkspace {
  fs::path dir = fs::temp_directory_path() / ("occbench-capture-" + std::to_string(::getpid()));
  CaptureWorkspace() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "kernels.cu") << kKernels;
    setenv("OCCBENCH_CAPTURE", "app/sc*,accumulate", 1);
    setenv("OCCBENCH_CAPTURE_DIR", (dir / "captures").c_str(), 1);
  }
  ~CaptureWorkspace() {
    unsetenv("OCCBENCH_CAPTURE");
    unsetenv("OCCBENCH_CAPTURE_DIR");
    fs::remove_all(dir);
  }
  launch::KernelDeclaration declaration(const std::string& name) const {
    launch::KernelDeclaration d;
    d.source = (dir / "kernels.cu").string();
    d.name = name;
    d.variant = "app/" + name;
    d.parameters = {{"BLOCK", 256}};
    d.values = {{"BLOCK", {64, 256, 1024}}};
    d.block = {"BLOCK", "1", "1"};
    if (name == "scale") {
      d.grid = {"ceil_div(n, BLOCK)", "1", "1"};
      d.arguments = {{"out", "output", "float32", "n"}, {"in", "input", "float32", "n"}, {"a", "scalar", "float32", ""}, {"n", "scalar", "int32", ""}};
    } else {
      d.grid = {"7", "1", "1"};
      // `in` without its count: its allocation's, from the pointer on (as Kernel Launcher finds it).
      d.arguments = {{"acc", "inout", "float32", "n"}, {"in", "input", "float32", ""}, {"n", "scalar", "int32", ""}};
    }
    return d;
  }
  // The capture's config run in occbench: every point's verification status.
  std::vector<std::string> run_capture(const std::string& folder) const {
    SweepSpec spec = parse_sweep_file((dir / "captures" / folder / "config.json").string(), builtin_registry());
    RunOptions options;
    options.out_dir = (dir / ("results-" + folder)).string();
    std::ostringstream log;
    RunSummary summary = run_sweep(spec, builtin_registry(), options, log);
    EXPECT_EQ(summary.exit_code, 0) << log.str();
    std::vector<std::string> statuses;
    ordered_json doc = read_json_file(summary.json_path);  // kept: the loop reads inside it
    for (const auto& r : doc["results"]) {
      statuses.push_back(r["verification"]["status"].get<std::string>());
      EXPECT_EQ(r["family"], "app") << "the declaration's variant, app/" << folder;
    }
    return statuses;
  }
};

}  // namespace

TEST(GpuLaunchCapture, TheApplicationsLaunchIsWrittenAndRunsInOccbenchAsItIs) {
  OCCBENCH_REQUIRE_GPU();
  CaptureWorkspace ws;
  int n = 100003;
  std::vector<float> in = random_floats(std::size_t(n), 3), acc0 = random_floats(std::size_t(n), 4);
  DeviceBuffer<float> d_in(in.size()), d_out(in.size()), d_acc(in.size());
  OCCBENCH_CUDA_CHECK(cudaMemcpy(d_in.get(), in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  OCCBENCH_CUDA_CHECK(cudaMemcpy(d_acc.get(), acc0.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  OCCBENCH_CUDA_CHECK(cudaMemset(d_out.get(), 0xff, in.size() * sizeof(float)));
  float* out_ptr = d_out.get();
  float* acc_ptr = d_acc.get();
  const float* in_ptr = d_in.get();
  float a = 0.1f;
  std::ostringstream log;
  launch::Kernel scale(ws.declaration("scale"), log), accumulate(ws.declaration("accumulate"), log);
  std::map<std::string, double> sizes = {{"n", double(n)}};
  void* scale_args[] = {&out_ptr, &in_ptr, &a, &n};
  void* acc_args[] = {&acc_ptr, &in_ptr, &n};
  for (int round = 0; round < 2; ++round) {  // the second launch at this size is not captured again
    scale.launch(sizes, scale_args);
    accumulate.launch(sizes, acc_args);
  }
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());

  // The application's own results are as without the capture.
  std::vector<float> out(in.size()), acc(in.size());
  OCCBENCH_CUDA_CHECK(cudaMemcpy(out.data(), d_out.get(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  OCCBENCH_CUDA_CHECK(cudaMemcpy(acc.data(), d_acc.get(), acc.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(out[i], a * in[i]) << i;
    ASSERT_EQ(acc[i], (acc0[i] + in[i]) + in[i]) << i;
  }
  std::string text = log.str();
  EXPECT_NE(text.find("scale at n=100003: captured in"), std::string::npos) << text;
  EXPECT_NE(text.find("accumulate at n=100003: captured in"), std::string::npos) << text;
  std::size_t captures = 0;
  for (std::size_t at = text.find(": captured in"); at != std::string::npos; at = text.find(": captured in", at + 1)) ++captures;
  EXPECT_EQ(captures, 2u) << "each kernel captured once at its size: " << text;

  // The files: the inputs before the launch, the outputs after it; an inout both.
  fs::path scale_dir = ws.dir / "captures" / "scale_n100003", acc_dir = ws.dir / "captures" / "accumulate_n100003";
  EXPECT_EQ(npy_floats(scale_dir / "in.npy"), in);
  std::vector<float> expected = npy_floats(scale_dir / "out.expected.npy");
  for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(expected[i], a * in[i]) << i;
  EXPECT_EQ(npy_floats(acc_dir / "acc.npy"), acc0);
  std::vector<float> whole_in = npy_floats(acc_dir / "in.npy");  // the allocation's: at least n
  ASSERT_GE(whole_in.size(), in.size());
  EXPECT_TRUE(std::equal(in.begin(), in.end(), whole_in.begin()));
  std::vector<float> acc1 = npy_floats(acc_dir / "acc.expected.npy");
  for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(acc1[i], acc0[i] + in[i]) << i;

  // Run in occbench as they are: three block sizes each, every one verified.
  EXPECT_EQ(ws.run_capture("scale_n100003"), (std::vector<std::string>{"passed", "passed", "passed"}));
  EXPECT_EQ(ws.run_capture("accumulate_n100003"), (std::vector<std::string>{"passed", "passed", "passed"}));
}

// A capture that cannot be made says why and leaves the application's launch as it was.
TEST(GpuLaunchCapture, ACaptureThatCannotBeMadeLeavesTheLaunchAsItWas) {
  OCCBENCH_REQUIRE_GPU();
  CaptureWorkspace ws;
  launch::KernelDeclaration d = ws.declaration("scale");
  d.arguments[0].count = "n * 1000";  // past the application's buffer: refused before any copy
  int n = 1000;
  std::vector<float> in = random_floats(std::size_t(n), 5);
  DeviceBuffer<float> d_in(in.size()), d_out(in.size());
  OCCBENCH_CUDA_CHECK(cudaMemcpy(d_in.get(), in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  float* out_ptr = d_out.get();
  const float* in_ptr = d_in.get();
  float a = 2;
  void* args[] = {&out_ptr, &in_ptr, &a, &n};
  std::ostringstream log;
  launch::Kernel scale(d, log);
  scale.launch({{"n", double(n)}}, args);
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> out(in.size());
  OCCBENCH_CUDA_CHECK(cudaMemcpy(out.data(), d_out.get(), out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], a * in[i]) << i;
  EXPECT_NE(log.str().find("scale at n=1000: not captured: argument 'out': its count is 4000000 bytes from its pointer, its allocation holds "), std::string::npos) << log.str();
  EXPECT_FALSE(fs::exists(ws.dir / "captures" / "scale_n1000" / "config.json"));
}
