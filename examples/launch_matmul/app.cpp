// An application with a tuned kernel (occbench::launch), the loop of issue 58 end to end:
//
//   OCCBENCH_CAPTURE=matmul launch_matmul --sizes 1024,2048 --out untuned.json   # capture each size
//   occbench run occbench-captures/matmul_n1024/config.json --strategy local ...  # tune the captures
//   launch_matmul --sizes 1024,2048,3072 --results R1.json R2.json --out tuned.json
//
// For each size it multiplies two random matrices with the kernel occbench::launch chooses (the
// GPU's best at the nearest tuned size, else the defaults), checks sampled elements against the
// CPU, and, given results, compares every bit with the defaults' output and times both in the
// same process, interleaved: the speedup is a ratio of one run. run.sh runs the whole loop.
#include "launch/launch.hpp"

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ojson = nlohmann::ordered_json;
using Parameters = std::vector<std::pair<std::string, std::int64_t>>;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// The kernel's source: beside the program, where its build puts it.
std::string beside_program(const std::string& file) {
  std::error_code error;
  std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? file : (program.parent_path() / file).string();
}

struct Options {
  std::string source = beside_program("matmul.cu");
  std::vector<int> sizes = {1024, 2048};
  std::vector<std::string> results;
  std::string out;
  int rounds = 15, launches = 10;  // timing: the median over rounds of one round's launches
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    if (a == "--source") o.source = value();
    else if (a == "--out") o.out = value();
    else if (a == "--rounds") o.rounds = std::stoi(value());
    else if (a == "--sizes") {
      o.sizes.clear();
      std::string list = value();
      for (std::size_t at = 0; at <= list.size();) {
        std::size_t comma = std::min(list.find(',', at), list.size());
        o.sizes.push_back(std::stoi(list.substr(at, comma - at)));
        at = comma + 1;
      }
    } else if (a == "--results") {
      while (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) o.results.push_back(argv[++i]);
    } else {
      throw std::invalid_argument("unknown option " + a + " (--source, --sizes, --results, --out, --rounds)");
    }
  }
  return o;
}

// The kernel, declared once: its shape's defaults, the space a tuning of its capture tries, and
// its arguments (what a capture writes).
occbench::launch::KernelDeclaration matmul(const Options& o, bool with_results) {
  occbench::launch::KernelDeclaration d;
  d.source = o.source;
  d.name = "matmul";
  d.variant = "app/matmul";
  d.parameters = {{"BLOCK_X", 16}, {"BLOCK_Y", 16}, {"TILE_X", 1}, {"TILE_Y", 1}};  // the textbook tile
  d.values = {{"BLOCK_X", {16, 32, 64}}, {"BLOCK_Y", {1, 2, 4, 8, 16, 32}}, {"TILE_X", {1, 2, 4, 8}}, {"TILE_Y", {1, 2, 4, 8}}};
  d.restrictions = {"BLOCK_X * BLOCK_Y <= 1024", "(BLOCK_Y * TILE_Y * BLOCK_X + BLOCK_X * BLOCK_X * TILE_X) * 4 <= 49152"};
  d.grid = {"ceil_div(n, BLOCK_X * TILE_X)", "ceil_div(n, BLOCK_Y * TILE_Y)", "1"};
  d.block = {"BLOCK_X", "BLOCK_Y", "1"};
  d.arguments = {{"C", "output", "float32", "n * n"}, {"A", "input", "float32", "n * n"}, {"B", "input", "float32", "n * n"}, {"n", "scalar", "int32", ""}};
  if (with_results) d.results = o.results;
  return d;
}

struct Device {
  float* p = nullptr;
  explicit Device(std::size_t n) { check(cudaMalloc(&p, n * sizeof(float)), "cudaMalloc"); }
  ~Device() { cudaFree(p); }
};

std::vector<float> random_matrix(int n, unsigned seed) {
  std::vector<float> m(std::size_t(n) * n);
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (float& x : m) x = uniform(generator);
  return m;
}

// C through `kernel`, poisoned first (NaN: an element it never writes fails the check).
std::vector<float> multiply(occbench::launch::Kernel& kernel, int n, Device& C, const Device& A, const Device& B) {
  std::size_t elements = std::size_t(n) * n;
  check(cudaMemset(C.p, 0xff, elements * sizeof(float)), "cudaMemset");
  const float *a = A.p, *b = B.p;
  void* args[] = {&C.p, &a, &b, &n};
  kernel.launch({{"n", double(n)}}, args);
  check(cudaGetLastError(), "matmul");
  std::vector<float> out(elements);
  check(cudaMemcpy(out.data(), C.p, elements * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  return out;
}

// Sampled elements against a double-precision dot product: how many of `samples` are off.
int wrong_elements(const std::vector<float>& C, const std::vector<float>& A, const std::vector<float>& B, int n, int samples) {
  std::mt19937 generator(n);
  std::uniform_int_distribution<int> index(0, n - 1);
  int wrong = 0;
  for (int s = 0; s < samples; ++s) {
    int r = index(generator), c = index(generator);
    double ref = 0, magnitude = 0;
    for (int k = 0; k < n; ++k) {
      double product = double(A[std::size_t(r) * n + k]) * B[std::size_t(k) * n + c];
      ref += product, magnitude += std::fabs(product);
    }
    if (!(std::fabs(C[std::size_t(r) * n + c] - ref) <= 1e-5 * magnitude + 1e-6)) ++wrong;
  }
  return wrong;
}

std::string fnv1a64(const std::vector<float>& v) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(v.data());
  for (std::size_t i = 0; i < v.size() * sizeof(float); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

// Milliseconds a launch: for each kernel, the median over rounds of one round's mean, the
// kernels' rounds interleaved so that a drift of the clock falls on both alike.
std::vector<double> median_ms(const std::vector<occbench::launch::Kernel*>& kernels, int n, Device& C, const Device& A, const Device& B,
                              const Options& o) {
  const float *a = A.p, *b = B.p;
  void* args[] = {&C.p, &a, &b, &n};
  std::vector<std::vector<double>> rounds(kernels.size());
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  for (int r = 0; r < o.rounds; ++r)
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      check(cudaEventRecord(start), "cudaEventRecord");
      for (int l = 0; l < o.launches; ++l) kernels[k]->launch({{"n", double(n)}}, args);
      check(cudaEventRecord(stop), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      rounds[k].push_back(double(ms) / o.launches);
    }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::vector<double> medians;
  for (auto& v : rounds) {
    std::sort(v.begin(), v.end());
    medians.push_back(v[v.size() / 2]);
  }
  return medians;
}

ojson kernel_record(occbench::launch::Kernel& kernel, int n, double ms) {
  ojson params = ojson::object();
  for (const auto& [name, value] : kernel.parameters({{"n", double(n)}})) params[name] = value;
  const auto& choice = kernel.choice({{"n", double(n)}});
  return {{"params", params}, {"from", occbench::from_name(choice.from)}, {"reason", choice.reason}, {"median_ms", ms}};
}

// One size: multiply, check, compare with the defaults where there are results, time.
ojson run_size(int n, occbench::launch::Kernel& app, occbench::launch::Kernel* defaults, const Options& o) {
  std::vector<float> A = random_matrix(n, 2 * n), B = random_matrix(n, 2 * n + 1);
  Device dA(A.size()), dB(B.size()), dC(A.size());
  check(cudaMemcpy(dA.p, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(dB.p, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  std::vector<float> C = multiply(app, n, dC, dA, dB);
  const int samples = 256;
  int wrong = wrong_elements(C, A, B, n, samples);
  ojson record = {{"n", n}, {"checked_elements", samples}, {"wrong_elements", wrong}, {"c_fnv1a64", fnv1a64(C)}};
  std::vector<occbench::launch::Kernel*> kernels = {&app};
  if (defaults) {
    std::vector<float> D = multiply(*defaults, n, dC, dA, dB);
    double max_difference = 0;
    for (std::size_t i = 0; i < C.size(); ++i) max_difference = std::max(max_difference, double(std::fabs(C[i] - D[i])));
    record["identical_to_defaults"] = std::memcmp(C.data(), D.data(), C.size() * sizeof(float)) == 0;
    record["max_abs_difference_to_defaults"] = max_difference;
    kernels.push_back(defaults);
  }
  std::vector<double> ms = median_ms(kernels, n, dC, dA, dB, o);
  record["app"] = kernel_record(app, n, ms[0]);
  if (defaults) {
    record["defaults"] = kernel_record(*defaults, n, ms[1]);
    record["speedup_over_defaults"] = ms[1] / ms[0];
  }
  return record;
}

}  // namespace

int main(int argc, char** argv) try {
  Options o = parse(argc, argv);
  occbench::launch::Kernel app(matmul(o, true), std::cerr);
  std::unique_ptr<occbench::launch::Kernel> defaults;
  if (!o.results.empty()) {  // the same kernel at its defaults, to compare with: never captured
    occbench::launch::KernelDeclaration d = matmul(o, false);
    d.arguments.clear();
    defaults = std::make_unique<occbench::launch::Kernel>(d, std::cerr);
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  ojson doc = {{"gpu", prop.name}, {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
               {"results", o.results}, {"sizes", ojson::array()}};
  bool ok = true;
  for (int n : o.sizes) {
    ojson record = run_size(n, app, defaults.get(), o);
    ok = ok && record["wrong_elements"] == 0 && record.value("identical_to_defaults", true);
    std::cout << record.dump() << "\n";
    doc["sizes"].push_back(record);
  }
  if (!o.out.empty()) std::ofstream(o.out) << doc.dump(2) << "\n";
  return ok ? 0 : 1;
} catch (const std::exception& e) {
  std::cerr << "launch_matmul: " << e.what() << "\n";
  return 2;
}
