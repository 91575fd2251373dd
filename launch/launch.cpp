#include "launch/launch.hpp"

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/files.hpp"
#include "harness/sweep/expression.hpp"

#include <fmt/format.h>

#include <climits>
#include <cmath>
#include <stdexcept>

namespace occbench::launch {

namespace {

std::string parameters_text(const std::vector<std::pair<std::string, std::int64_t>>& parameters) {
  std::string text;
  for (const auto& [name, value] : parameters) text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  return text;
}

// The defaults, each replaced by the chosen point's value where it has one.
std::vector<std::pair<std::string, std::int64_t>> chosen_parameters(const KernelDeclaration& d, const LaunchChoice& choice) {
  std::vector<std::pair<std::string, std::int64_t>> out = d.parameters;
  if (!choice.best) return out;
  for (auto& [name, value] : out)
    if (auto found = choice.best->params.find(name); found != choice.best->params.end() && found->is_number_integer())
      value = found->get<std::int64_t>();
  return out;
}

// What the launch's expressions read: the parameters and the sizes (whole numbers).
Params expression_values(const std::vector<std::pair<std::string, std::int64_t>>& parameters, const std::map<std::string, double>& sizes) {
  Params values;
  for (const auto& [name, value] : parameters) values.set(name, value);
  for (const auto& [name, value] : sizes) values.set(name, std::llround(value));
  return values;
}

std::int64_t evaluate(const std::string& text, const std::string& where, const Params& values, std::int64_t least) {
  std::vector<std::string> names;
  for (const auto& [name, value] : values.items()) names.push_back(name);
  return Expression(text, names, "occbench::launch", where).evaluate_integer(values, least, INT_MAX);
}

// A grid's or a block's three expressions ("grid[0]", ...), each at least 1.
dim3 dimensions(const std::array<std::string, 3>& texts, const char* what, const Params& values) {
  std::array<unsigned, 3> d{};
  for (std::size_t i = 0; i < 3; ++i) d[i] = unsigned(evaluate(texts[i], fmt::format("{}[{}]", what, i), values, 1));
  return dim3(d[0], d[1], d[2]);
}

}  // namespace

Kernel::Kernel(KernelDeclaration declaration, std::ostream& log) : declaration_(std::move(declaration)), log_(log) {
  std::string why;
  std::optional<std::string> text = read_file(declaration_.source, &why);
  if (!text) throw std::runtime_error(fmt::format("occbench::launch: cannot read the kernel's source {}: {}", declaration_.source, why));
  source_text_ = std::move(*text);
  LaunchResults read = read_launch_results(declaration_.results);
  results_ = std::move(read.results);
  for (const auto& [path, why] : read.left_out)
    log_ << fmt::format("occbench::launch: {}: results file {} left out: {}\n", declaration_.name, path, why);
}

Kernel::~Kernel() {
  for (cudaLibrary_t library : libraries_) cudaLibraryUnload(library);  // at exit the context may be gone: no check
}

cudaKernel_t Kernel::compile(int device, const std::vector<std::pair<std::string, std::int64_t>>& parameters, std::string& how) {
  int major = 0, minor = 0;
  OCCBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  OCCBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  NvrtcRequest request;
  request.source_path = declaration_.source;
  // The parameters as #define lines above the source, as a config's `defines` and Kernel Tuner
  // write them (a -D option would also reach NVRTC's built-in headers).
  std::string prefix;
  for (const auto& [name, value] : parameters) prefix += fmt::format("#define {} {}\n", name, value);
  request.source_text = prefix + "#line 1\n" + source_text_;
  request.name_expressions = {declaration_.name};
  request.options = declaration_.options;
  request.arch = major * 10 + minor;
  NvrtcResult compiled = nvrtc_compile(request);
  how = compiled.cache_hit ? "from occbench's NVRTC cache" : fmt::format("compiled by NVRTC in {:.2f} s", compiled.compile_ms / 1e3);
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  OCCBENCH_CUDA_CHECK(cudaLibraryLoadData(&library, compiled.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  libraries_.push_back(library);
  OCCBENCH_CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, compiled.lowered.at(declaration_.name).c_str()));
  return kernel;
}

Kernel::Ready Kernel::prepare(int device, const std::map<std::string, double>& sizes) {
  cudaDeviceProp prop{};
  OCCBENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  Ready r;
  r.choice = choose_launch(results_, declaration_.variant, {prop.name, fmt::format("{}.{}", prop.major, prop.minor), sizes});
  r.parameters = chosen_parameters(declaration_, r.choice);
  std::string how;
  try {
    r.kernel = compile(device, r.parameters, how);
  } catch (const NvrtcCompileError& e) {
    if (!r.choice.best) throw;  // the defaults themselves do not compile: the application's kernel is wrong
    log_ << fmt::format("occbench::launch: {}: the chosen {} does not compile here ({}); the defaults instead\n", declaration_.name,
                        parameters_text(r.parameters), e.what());
    r.choice = LaunchChoice{LaunchChoice::From::defaults, std::nullopt, "", "the defaults: the chosen configuration did not compile"};
    r.parameters = declaration_.parameters;
    r.kernel = compile(device, r.parameters, how);
  }
  Params values = expression_values(r.parameters, sizes);
  r.grid = dimensions(declaration_.grid, "grid", values);
  r.block = dimensions(declaration_.block, "block", values);
  r.dynamic_smem_bytes = std::size_t(evaluate(declaration_.dynamic_smem_bytes, "dynamic_smem_bytes", values, 0));
  log_ << fmt::format("occbench::launch: {} on {} (device {}) at {}: {}; {}; {}\n", declaration_.name, prop.name, device, sizes_text(sizes),
                      r.choice.reason, parameters_text(r.parameters), how);
  return r;
}

Kernel::Ready& Kernel::ready(const std::map<std::string, double>& sizes) {
  int device = 0;
  OCCBENCH_CUDA_CHECK(cudaGetDevice(&device));
  auto key = std::make_pair(device, sizes);
  auto found = ready_.find(key);
  if (found == ready_.end()) found = ready_.emplace(key, prepare(device, sizes)).first;
  return found->second;
}

void Kernel::launch(const std::map<std::string, double>& sizes, void** args, cudaStream_t stream) {
  Ready& r = ready(sizes);
  OCCBENCH_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(r.kernel), r.grid, r.block, args, r.dynamic_smem_bytes, stream));
}

const void* Kernel::function(const std::map<std::string, double>& sizes) { return reinterpret_cast<const void*>(ready(sizes).kernel); }

const LaunchChoice& Kernel::choice(const std::map<std::string, double>& sizes) { return ready(sizes).choice; }

std::vector<std::pair<std::string, std::int64_t>> Kernel::parameters(const std::map<std::string, double>& sizes) {
  return ready(sizes).parameters;
}

}  // namespace occbench::launch
