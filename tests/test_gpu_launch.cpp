// occbench::launch on the GPU (launch/launch.hpp): a kernel declared once launches with the
// application's own pointers and scalars in the configuration its results name for this GPU
// (else the defaults), its output checked against the CPU on random data with the output poisoned
// first; and what a launch costs beside a plain cudaLaunchKernel (what <<<>>> compiles to).
#include "launch/launch.hpp"

#include "gpu_test_support.hpp"
#include "harness/family/device_buffer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace occbench;

namespace {

namespace fs = std::filesystem;

const char* kScale = R"(extern "C" __global__ void scale(float* out, const float* in, float a, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = a * in[i];
}
extern "C" __global__ void empty() {}
)";

// A folder with the kernel's source and a results file of this GPU: BLOCK=128 in 1.0 ms, 512 in 0.5 ms at n.
struct Workspace {
  fs::path dir;
  Workspace(const std::string& gpu, const std::string& cc, int n) {
    dir = fs::temp_directory_path() / ("occbench-launch-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "scale.cu") << kScale;
    nlohmann::ordered_json doc = {{"schema_version", 1}, {"tool", {{"name", "occbench"}}}, {"device", {{"name", gpu}, {"compute_capability", cc}}},
                                  {"config", {{"sizes", {{"n", {n}}}}}}, {"results", nlohmann::ordered_json::array()}};
    for (auto [block, ms] : {std::pair{128, 1.0}, std::pair{512, 0.5}})
      doc["results"].push_back({{"point_id", "app/scale/n=" + std::to_string(n) + "/BLOCK=" + std::to_string(block)}, {"family", "app"},
                                {"variant", "scale"}, {"status", "ok"}, {"params", {{"n", n}, {"BLOCK", block}}}, {"timing", {{"median_ms", ms}}}});
    std::ofstream(dir / "results.json") << doc.dump(1);
  }
  ~Workspace() { fs::remove_all(dir); }
  launch::KernelDeclaration scale(bool with_results) const {
    launch::KernelDeclaration d;
    d.source = (dir / "scale.cu").string();
    d.name = "scale";
    d.variant = "app/scale";
    d.parameters = {{"BLOCK", 256}};
    d.grid = {"ceil_div(n, BLOCK)", "1", "1"};
    d.block = {"BLOCK", "1", "1"};
    if (with_results) d.results = {(dir / "results.json").string()};
    return d;
  }
};

cudaDeviceProp this_gpu() {
  cudaDeviceProp prop{};
  OCCBENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  return prop;
}

// scale(out, in, a, n) through `kernel`, checked against a * in on the CPU.
void expect_scaled(launch::Kernel& kernel, int n) {
  std::vector<float> in(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n));
  std::mt19937 generator(7);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (float& x : in) x = uniform(generator);
  DeviceBuffer<float> d_in(in.size()), d_out(in.size());
  OCCBENCH_CUDA_CHECK(cudaMemcpy(d_in.get(), in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  OCCBENCH_CUDA_CHECK(cudaMemset(d_out.get(), 0xff, in.size() * sizeof(float)));  // NaN: an unwritten element fails
  float* out_ptr = d_out.get();
  const float* in_ptr = d_in.get();
  float a = 1.5f;
  void* args[] = {&out_ptr, &in_ptr, &a, &n};
  kernel.launch({{"n", double(n)}}, args);
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  OCCBENCH_CUDA_CHECK(cudaMemcpy(got.data(), d_out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], a * in[i]) << "element " << i;
}

}  // namespace

TEST(GpuLaunch, TheTunedConfigurationForThisGpuAndTheDefaultsElse) {
  OCCBENCH_REQUIRE_GPU();
  cudaDeviceProp prop = this_gpu();
  const int n = 1 << 20;
  Workspace ws(prop.name, std::to_string(prop.major) + "." + std::to_string(prop.minor), n);
  std::ostringstream log;
  launch::Kernel tuned(ws.scale(true), log);
  expect_scaled(tuned, n);
  expect_scaled(tuned, n + 3);  // another size: the nearest recorded one's best
  EXPECT_EQ(tuned.parameters({{"n", double(n)}}), (std::vector<std::pair<std::string, std::int64_t>>{{"BLOCK", 512}}));
  EXPECT_EQ(tuned.choice({{"n", double(n)}}).from, LaunchChoice::From::this_gpu);
  EXPECT_NE(log.str().find("this GPU's (" + std::string(prop.name) + ") best at this size"), std::string::npos) << log.str();
  EXPECT_NE(log.str().find("the recorded size nearest n=1048579"), std::string::npos) << log.str();
  std::ostringstream plain_log;
  launch::Kernel plain(ws.scale(false), plain_log);
  expect_scaled(plain, n);
  EXPECT_EQ(plain.parameters({{"n", double(n)}}), (std::vector<std::pair<std::string, std::int64_t>>{{"BLOCK", 256}}));
  EXPECT_NE(plain_log.str().find("the defaults"), std::string::npos) << plain_log.str();
  std::ostringstream broken_log;
  launch::KernelDeclaration broken = ws.scale(true);
  broken.results.push_back((ws.dir / "missing.json").string());
  launch::Kernel still(broken, broken_log);
  expect_scaled(still, n);
  EXPECT_NE(broken_log.str().find("missing.json left out"), std::string::npos) << broken_log.str();
}

// What a launch through occbench::launch costs beside cudaLaunchKernel of the same kernel: a map
// lookup and cudaGetDevice. Printed per launch (µs); the extra is held under 2 µs.
TEST(GpuLaunch, ALaunchCostsALookupMoreThanAPlainOne) {
  OCCBENCH_REQUIRE_GPU();
  cudaDeviceProp prop = this_gpu();
  Workspace ws(prop.name, std::to_string(prop.major) + "." + std::to_string(prop.minor), 1024);
  launch::KernelDeclaration d = ws.scale(false);
  d.name = "empty";
  d.grid = {"1", "1", "1"};
  std::ostringstream log;
  launch::Kernel kernel(d, log);
  std::map<std::string, double> sizes = {{"n", 1024}};
  kernel.launch(sizes, nullptr);  // compiled and loaded here, outside the timing
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  const void* plain = kernel.function(sizes);
  const int launches = 20000;
  // The least over five rounds of `launches` launches, in µs a launch (the queue drained between).
  auto per_launch_us = [&](auto&& one) {
    double best = 1e9;
    for (int round = 0; round < 5; ++round) {
      auto start = std::chrono::steady_clock::now();
      for (int k = 0; k < launches; ++k) one();
      double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / launches;
      OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
      best = std::min(best, us);
    }
    return best;
  };
  double direct = per_launch_us([&] { OCCBENCH_CUDA_CHECK(cudaLaunchKernel(plain, dim3(1), dim3(1), nullptr, 0, nullptr)); });
  double through = per_launch_us([&] { kernel.launch(sizes, nullptr); });
  std::printf("launch overhead: cudaLaunchKernel %.3f us, occbench::launch %.3f us a launch: %.3f us more\n", direct, through, through - direct);
  EXPECT_LT(through - direct, 2.0) << "a lookup, not a compile or a choice, per launch";
}
