#include "launch/launch.hpp"

#include "launch/capture.hpp"
#include "launch/values.hpp"

#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/core/files.hpp"

#include <cuda.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace occbench::launch {

namespace {

// The defaults, each replaced by the chosen point's value where it has one.
std::vector<std::pair<std::string, std::int64_t>> chosen_parameters(const KernelDeclaration& d, const LaunchChoice& choice) {
  std::vector<std::pair<std::string, std::int64_t>> out = d.parameters;
  if (!choice.best) return out;
  for (auto& [name, value] : out)
    if (auto found = choice.best->params.find(name); found != choice.best->params.end() && found->is_number_integer())
      value = found->get<std::int64_t>();
  return out;
}

// A grid's or a block's three expressions ("grid[0]", ...), each at least 1.
dim3 dimensions(const std::array<std::string, 3>& texts, const char* what, const Params& values) {
  std::array<unsigned, 3> d{};
  for (std::size_t i = 0; i < 3; ++i) d[i] = unsigned(evaluate(texts[i], fmt::format("{}[{}]", what, i), values, 1));
  return dim3(d[0], d[1], d[2]);
}

// The bytes from `pointer` to the end of its allocation, as the driver knows them
// (cuMemGetAddressRange, reached through the runtime: nothing more to link); nothing for memory
// the driver does not know (the host's).
std::optional<std::size_t> allocation_bytes_from(const void* pointer) {
  using Range = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);
  static const Range range = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &function, 3020, cudaEnableDefault, &status) != cudaSuccess ||
        status != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return Range(nullptr);
    }
    return reinterpret_cast<Range>(function);
  }();
  CUdeviceptr base = 0, at = reinterpret_cast<CUdeviceptr>(pointer);
  std::size_t size = 0;
  if (!range || range(&base, &size, at) != CUDA_SUCCESS) return std::nullopt;
  return std::size_t(base + size - at);
}

// Each argument's bytes: a scalar's, a buffer's declared count, else its allocation's from the
// pointer on. Nothing, with `why`, where a buffer's count runs past its allocation.
std::optional<std::vector<std::size_t>> argument_bytes(const KernelDeclaration& d, const std::map<std::string, double>& sizes, void** args,
                                                       std::string& why) {
  std::vector<std::optional<std::size_t>> declared = captured_bytes(d, sizes);
  std::vector<std::size_t> bytes(declared.size());
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const ArgumentDeclaration& a = d.arguments[i];
    if (a.role == "scalar") {
      bytes[i] = *declared[i];
      continue;
    }
    std::optional<std::size_t> room = allocation_bytes_from(*static_cast<void**>(args[i]));
    if (!declared[i] && !room) return why = fmt::format("argument '{}' has no count, and its pointer is not to device memory", a.name), std::nullopt;
    if (declared[i] && room && *declared[i] > *room)
      return why = fmt::format("argument '{}': its count is {} bytes from its pointer, its allocation holds {}", a.name, *declared[i], *room),
             std::nullopt;
    bytes[i] = declared[i] ? *declared[i] : *room - *room % element_bytes(a.type);
  }
  return bytes;
}

// Copies the arguments' bytes into `captured`: before the launch, the inputs', inouts' and
// scalars' (from where `args` points); after it, the outputs' and inouts'. False, with `why`,
// where a copy fails.
bool copy_arguments(const KernelDeclaration& d, void** args, const std::vector<std::size_t>& bytes, bool after,
                    std::vector<CapturedArgument>& captured, std::string& why) {
  for (std::size_t i = 0; i < d.arguments.size(); ++i) {
    const ArgumentDeclaration& a = d.arguments[i];
    bool wanted = after ? (a.role == "output" || a.role == "inout") : a.role != "output";
    if (!wanted) continue;
    std::vector<unsigned char>& into = after ? captured[i].after : captured[i].before;
    into.resize(bytes[i]);
    if (a.role == "scalar") {
      std::memcpy(into.data(), args[i], bytes[i]);
      continue;
    }
    cudaError_t e = cudaMemcpy(into.data(), *static_cast<void**>(args[i]), bytes[i], cudaMemcpyDefault);
    if (e != cudaSuccess) {
      cudaGetLastError();  // not sticky: the application's later calls see nothing of it
      why = fmt::format("copying argument '{}' ({} bytes) failed: {}", a.name, bytes[i], cudaGetErrorString(e));
      return false;
    }
  }
  return true;
}

std::string capture_root() {
  const char* dir = std::getenv("OCCBENCH_CAPTURE_DIR");
  return dir && *dir ? dir : "occbench-captures";
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
  const char* wanted = std::getenv("OCCBENCH_CAPTURE");
  if (wanted && capture_wanted(wanted, declaration_)) {
    std::string why = capture_refusal(declaration_);
    capture_ = why.empty();
    if (!capture_) log_ << fmt::format("occbench::launch: {}: OCCBENCH_CAPTURE names it, but it cannot be captured: {}\n", declaration_.name, why);
  }
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
  r.gpu_name = prop.name;
  r.capture_pending = capture_;
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
  if (r.capture_pending) return capture_launch(r, sizes, args, stream);
  OCCBENCH_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(r.kernel), r.grid, r.block, args, r.dynamic_smem_bytes, stream));
}

// The launch, once, with its arguments copied before and its outputs after; a capture that
// fails is said in the log and the application goes on as without it.
void Kernel::capture_launch(Ready& r, const std::map<std::string, double>& sizes, void** args, cudaStream_t stream) {
  r.capture_pending = false;
  std::vector<CapturedArgument> captured(declaration_.arguments.size());
  std::string why, path;
  std::optional<std::vector<std::size_t>> bytes;
  try {
    bytes = argument_bytes(declaration_, sizes, args, why);
  } catch (const std::exception& e) {
    why = e.what();
  }
  OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  bool ok = bytes && copy_arguments(declaration_, args, *bytes, false, captured, why);
  OCCBENCH_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(r.kernel), r.grid, r.block, args, r.dynamic_smem_bytes, stream));
  OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  ok = ok && copy_arguments(declaration_, args, *bytes, true, captured, why);
  if (ok) try {
      path = write_capture(declaration_, sizes, captured, {r.gpu_name, r.parameters}, capture_directory(capture_root(), declaration_, sizes));
    } catch (const std::exception& e) {
      why = e.what();
    }
  if (path.empty()) log_ << fmt::format("occbench::launch: {} at {}: not captured: {}\n", declaration_.name, sizes_text(sizes), why);
  else log_ << fmt::format("occbench::launch: {} at {}: captured in {} (occbench run {})\n", declaration_.name, sizes_text(sizes), path, path);
}

const void* Kernel::function(const std::map<std::string, double>& sizes) { return reinterpret_cast<const void*>(ready(sizes).kernel); }

const LaunchChoice& Kernel::choice(const std::map<std::string, double>& sizes) { return ready(sizes).choice; }

std::vector<std::pair<std::string, std::int64_t>> Kernel::parameters(const std::map<std::string, double>& sizes) {
  return ready(sizes).parameters;
}

}  // namespace occbench::launch
