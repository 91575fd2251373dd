#include "harness/sweep/source_kernels.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/core/parallel.hpp"
#include "harness/family/device_buffer.hpp"
#include "harness/family/guarded_buffer.hpp"
#include "harness/family/npy.hpp"
#include "harness/family/random.hpp"
#include "harness/family/random_device.hpp"
#include "harness/family/verify_device.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>

namespace occbench {

using json = nlohmann::ordered_json;

std::vector<std::string> element_type_names(bool with_64bit_integers) {
  std::vector<std::string> names;
  for (const auto& t : kElementTypes)
    if (with_64bit_integers || t.bytes < 8 || t.is_float) names.push_back(t.name);
  return names;
}

void store_element(const ElementType& type, double value, unsigned char* out) {
  visit_element_kind(type.kind, [&](auto zero) {
    auto v = to_element<decltype(zero)>(value);
    std::memcpy(out, &v, sizeof v);
  });
}

std::string element_value_problem(const ElementType& type, double value) {
  if (!std::isfinite(value)) return fmt::format("a finite {}", type.name);
  if (type.is_float) {
    if (type.bytes == 4 && std::fabs(value) > double(std::numeric_limits<float>::max()))
      return fmt::format("a float32 (at most {:g} in magnitude)", double(std::numeric_limits<float>::max()));
    return "";
  }
  return visit_element_kind(type.kind, [&](auto zero) -> std::string {
    using T = decltype(zero);
    // The bounds as doubles: 2^63 and 2^64 are exact, and a double at or above them does not fit.
    double low = double(std::numeric_limits<T>::min()), high = double(std::numeric_limits<T>::max());
    bool fits = value >= low && (sizeof(T) == 8 ? value < high : value <= high);
    if (value == std::floor(value) && fits) return "";
    return fmt::format("a whole number in [{}, {}] ({})", std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), type.name);
  });
}

double load_element(const ElementType& type, const unsigned char* in) {
  return visit_element_kind(type.kind, [&](auto v) {
    std::memcpy(&v, in, sizeof v);
    return double(v);
  });
}

std::optional<InitSpec> init_spec(const Initializer& init, const ElementType& type) {
  if (init.kind == "uniform")
    return InitSpec{type.is_float ? InitFormula::uniform_real : InitFormula::uniform_integer, init.low, init.high};
  if (init.kind == "iota") return InitSpec{InitFormula::iota, init.start, init.step};
  if (init.kind == "constant") return InitSpec{InitFormula::constant, init.value, 0};
  return std::nullopt;
}

namespace {

std::string options_key(const std::vector<std::string>& options) { return fmt::format("{}", fmt::join(options, "\x1f")); }

}  // namespace

void SourceState::index_sweep_names() {
  names_by_options.clear();
  for (std::size_t i = 0; i < kernels.size() && i < sweep_points.size(); ++i)
    for (const auto& point : sweep_points[i]) {
      std::vector<std::string>& names = names_by_options[options_key(user_options(kernels[i], point))];
      std::string name = name_expression(kernels[i], point);
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
    }
}

NvrtcRequest SourceState::request_for(const KernelSpec& k, const Params& p, int arch,
                                      const std::function<bool(const std::string& name)>& compiled) const {
  std::string name = name_expression(k, p);
  std::vector<std::string> options = user_options(k, p);
  std::vector<std::string> group{name};
  if (auto found = names_by_options.find(options_key(options)); found != names_by_options.end())
    for (const auto& other_name : found->second)
      if (other_name != name && !compiled(other_name)) group.push_back(other_name);
  NvrtcRequest request;
  request.source_path = source_path;
  request.source_text = source_text;
  request.options = options;
  request.arch = arch;
  request.name_expressions = group;
  for (auto& global : global_expressions()) request.name_expressions.push_back(std::move(global));
  return request;
}

Instance& SourceState::instance(const KernelSpec& k, const Params& p, int arch) {
  std::string name = name_expression(k, p);
  std::vector<std::string> options = user_options(k, p);
  auto key_of = [&](const std::string& n) { return fmt::format("sm_{}|{}|{}", arch, n, fmt::join(options, " ")); };
  if (auto it = instances.find(key_of(name)); it != instances.end()) return it->second;
  NvrtcRequest request = request_for(k, p, arch, [&](const std::string& n) { return instances.count(key_of(n)) > 0; });
  auto compilation = std::make_shared<Compilation>();
  try {
    compilation->compiled = nvrtc_compile_once(request);
  } catch (const NvrtcCompileError&) {
    std::vector<std::string> alone = {name};
    for (auto& global : global_expressions()) alone.push_back(std::move(global));
    if (request.name_expressions == alone) throw;
    request.name_expressions = alone;
    compilation->compiled = nvrtc_compile_once(request);
  }
  for (const auto& n : request.name_expressions)
    if (n.rfind('&', 0) != 0) instances.emplace(key_of(n), Instance{compilation, n, nullptr});
  return instances.at(key_of(name));
}

void SourceState::precompile(const std::vector<std::pair<std::string, Params>>& points, int arch, unsigned index,
                             unsigned count) const {
  std::set<std::string> seen;
  std::vector<NvrtcRequest> share;
  std::size_t position = 0;
  for (const auto& [variant, params] : points)
    for (const auto& k : kernels) {
      if (k.variant != variant) continue;
      NvrtcRequest r = request_for(k, params, arch, [](const std::string&) { return false; });
      if (!seen.insert(fmt::format("{}|{}", fmt::join(r.options, " "), fmt::join(r.name_expressions, " "))).second) continue;
      if (position++ % count != index) continue;
      r.leave_claimed = true;  // the measuring process, or another worker, is compiling it
      share.push_back(std::move(r));
    }
  // A lone worker (two cores) starts from the sweep's end while the measuring process compiles
  // from its start what it needs: they meet, and neither waits for the other.
  if (count == 1) std::reverse(share.begin(), share.end());
  for (const auto& r : share) {
    try {
      nvrtc_compile_once(r);
    } catch (const std::exception&) {
      // The point's own compilation says what is wrong, in its record.
    }
  }
}

std::string SourceState::compile_json(Instance& inst, int arch) {
  Compilation& c = *inst.compilation;
  json record = {{"source", source_path},
                 {"kernel", inst.name_expression},
                 {"lowered_name", c.compiled.lowered.at(inst.name_expression)},
                 {"arch", fmt::format("sm_{}", arch)},
                 {"options", c.compiled.options},
                 {"kernels_in_compilation", c.compiled.lowered.size()},
                 {"nvrtc_version", c.compiled.nvrtc_version},
                 {"cache_key", c.compiled.cache_key},
                 {"cache_hit", c.reported || c.compiled.cache_hit},
                 {"compile_ms", c.reported ? 0.0 : c.compiled.compile_ms},
                 {"waited_ms", c.reported ? 0.0 : c.compiled.waited_ms}};
  c.reported = true;
  return record.dump();
}

int current_device_arch() {
  int device = 0, count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0 || cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  int major = 0, minor = 0;
  OCCBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  OCCBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major * 10 + minor;
}

Launch evaluate_launch(const KernelSpec& k, const Params& p) {
  Launch l;
  unsigned* grid[3] = {&l.grid.x, &l.grid.y, &l.grid.z};
  unsigned* block[3] = {&l.block.x, &l.block.y, &l.block.z};
  for (int d = 0; d < 3; ++d) {
    if (!k.grid[d].empty()) *grid[d] = unsigned(k.grid[d].evaluate_integer(p, 1, 2147483647));
    if (!k.block[d].empty()) *block[d] = unsigned(k.block[d].evaluate_integer(p, 1, 1024));
  }
  if (!k.dynamic_smem.empty()) l.dynamic_smem_bytes = std::size_t(k.dynamic_smem.evaluate_integer(p, 0, kMaxInt));
  return l;
}

namespace {

std::vector<unsigned char> initial_values(const Argument& a, std::size_t count, std::uint64_t seed, std::uint64_t stream) {
  const ElementType& type = *a.type;
  std::vector<unsigned char> bytes(count * type.bytes);
  const Initializer& init = a.init;
  if (init.kind == "npy") {
    NpyArray array = read_npy(init.npy_path);
    if (array.dtype != type.npy || array.count() != count)
      throw std::runtime_error(fmt::format("{}.init.file: {} holds {} elements of {}; the argument needs {} of {} ({})",
                                           a.path, init.npy_path, array.count(), array.dtype, count, type.npy,
                                           type.name));
    return array.bytes;
  }
  // Element i depends only on (seed, stream, i), so the values are the same whatever the thread count.
  std::optional<InitSpec> spec = init_spec(init, type);
  parallel_for(count, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      double v;
      if (spec) {
        v = init_value_at(spec->formula, spec->a, spec->b, seed, stream, i);
      } else {  // normal
        double u1 = unit_random(seed, 2 * stream, i), u2 = unit_random(seed, 2 * stream + 1, i);
        v = init.mean + init.stddev * std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(6.283185307179586 * u2);
      }
      store_element(type, v, bytes.data() + i * type.bytes);
    }
  });
  return bytes;
}

// One size's buffers, initial values and expected outputs.
class SourceProblem : public Problem {
 public:
  SourceProblem(std::shared_ptr<SourceState> state, const Params& sizes, std::uint64_t seed)
      : state_(std::move(state)), sizes_(sizes) {
    const auto& args = state_->arguments;
    buffers_.resize(args.size());
    expected_.resize(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Argument& a = args[i];
      if (a.role == Argument::Role::scalar) continue;
      std::size_t count = std::size_t(a.count.evaluate_integer(sizes, 0, kMaxInt));
      buffers_[i] = GuardedBuffer(count * a.type->bytes, state_->guard_zone_bytes);
      if (a.role == Argument::Role::input) {
        // On the GPU where the initializer has a shared formula: a 1 GiB input took a second to
        // make on the host and upload.
        if (std::optional<InitSpec> spec = init_spec(a.init, *a.type)) {
          fill_initial_values_device(a.type->kind, buffers_[i].get(), count, spec->formula, spec->a, spec->b, seed, i);
        } else {
          buffers_[i].upload(initial_values(a, count, seed, i));
        }
      } else if (!a.expected_npy.empty()) {
        NpyArray array = read_npy(a.expected_npy);
        if (array.dtype != a.type->npy || array.count() != count)
          throw std::runtime_error(fmt::format("{}: expected outputs for '{}' hold {} elements of {}; at {} it has {} of {} ({})",
                                               a.expected_npy, a.name, array.count(), array.dtype, sizes.to_string(), count,
                                               a.type->npy, a.type->name));
        expected_[i] = DeviceBuffer<unsigned char>(array.bytes.size());
        expected_[i].upload(array.bytes);
      }
    }
    if (state_->reference_kernel >= 0) compute_reference();
  }

  void poison_outputs() override {
    for (std::size_t i = 0; i < buffers_.size(); ++i)
      if (state_->arguments[i].role == Argument::Role::output) buffers_[i].poison();
  }

  // On the GPU against the expected values kept there: a 1 GiB output took seconds to download
  // and compare on the host, for every point.
  Verification verify() override {
    Verification v;
    v.status = "passed";
    bool first = true;
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const Argument& a = state_->arguments[i];
      if (a.role != Argument::Role::output) continue;
      std::size_t count = buffers_[i].bytes() / a.type->bytes, first_mismatch = count;
      Verification part = compare_elements_on_device(a.type->kind, buffers_[i].get(), expected_[i].get(), count,
                                                     a.abs_tolerance, a.rel_tolerance, first_mismatch);
      if (first) v.tolerance = a.rel_tolerance;
      first = false;
      v.checked += part.checked;
      v.max_rel_error = std::max(v.max_rel_error, part.max_rel_error);
      if (v.mismatches == 0 && part.mismatches > 0) {
        auto element = [&](const unsigned char* buffer) {
          unsigned char bytes[8] = {};
          OCCBENCH_CUDA_CHECK(cudaMemcpy(bytes, buffer + first_mismatch * a.type->bytes, a.type->bytes, cudaMemcpyDeviceToHost));
          return load_element(*a.type, bytes);
        };
        v.detail = fmt::format("first mismatch: {}[{}] = {:g}, expected {:g} (abs tolerance {:g}, rel {:g})", a.name,
                               first_mismatch, element(buffers_[i].get()), element(expected_[i].get()), a.abs_tolerance,
                               a.rel_tolerance);
      }
      v.mismatches += part.mismatches;
    }
    v.guard_zones = guard_zones_note();
    v.out_of_bounds = take_out_of_bounds_writes();
    if (v.mismatches || !v.out_of_bounds.empty()) v.status = "failed";
    return v;
  }

  // One launch on `stream`: global variables filled where this module has not got their values
  // yet, outputs that accumulate zeroed first (on the same stream).
  void launch(const void* kernel, const LaunchSpec& spec, const Params& params, cudaStream_t stream) {
    const auto& args = state_->arguments;
    std::vector<void*> pointers;
    std::vector<void*> device_pointers(args.size());  // cudaLaunchKernel reads each argument through a pointer to it
    std::vector<std::uint64_t> scalars(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Argument& a = args[i];
      if (a.role == Argument::Role::scalar)
        store_element(*a.type, a.value.evaluate(params), reinterpret_cast<unsigned char*>(&scalars[i]));
      if (a.global) {
        fill_global(kernel, i, scalars[i], stream);
      } else if (a.role == Argument::Role::scalar) {
        pointers.push_back(&scalars[i]);
      } else {
        device_pointers[i] = buffers_[i].get();
        pointers.push_back(&device_pointers[i]);
        if (a.zero_before_launch && buffers_[i].bytes())
          OCCBENCH_CUDA_CHECK(cudaMemsetAsync(buffers_[i].get(), 0, buffers_[i].bytes(), stream));
      }
    }
    dim3 grid(spec.grid.x, spec.grid.y, spec.grid.z), block(spec.block.x, spec.block.y, spec.block.z);
    OCCBENCH_CUDA_CHECK(cudaLaunchKernel(kernel, grid, block, pointers.data(), spec.dynamic_smem_bytes, stream));
  }

 private:
  void compute_reference();

  // What the guard zones caught since the last look, by buffer and side; empty if nothing.
  std::string take_out_of_bounds_writes() {
    std::vector<std::string> found;
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      GuardWrites w = buffers_[i].take_writes();
      const std::string& name = state_->arguments[i].name;
      if (w.before) found.push_back(fmt::format("{} bytes changed before '{}'", w.before, name));
      if (w.after) found.push_back(fmt::format("{} bytes changed after '{}'", w.after, name));
    }
    if (found.empty()) return "";
    return fmt::format("{} (caught in the guard zones, no fault)", fmt::join(found, ", "));
  }

  std::string guard_zones_note() const {
    if (state_->guard_zone_bytes == 0) return "none (guard_zone_gib 0)";
    for (const auto& b : buffers_)
      if (b.bytes() && !b.guarded()) return "unavailable: " + b.why_unguarded();
    return fmt::format("{} GiB on each side of every buffer", state_->guard_zone_bytes >> 30);
  }

  // Global argument i of the module of `kernel`: its input buffer (or scalar value) copied into the
  // variable, once per module for a buffer, again where a scalar's value changes.
  void fill_global(const void* kernel, std::size_t i, std::uint64_t scalar, cudaStream_t stream) {
    const Argument& a = state_->arguments[i];
    const Compilation& compilation = *state_->compilation_of_kernel.at(kernel);
    auto key = std::make_pair(&compilation, i);
    bool is_scalar = a.role == Argument::Role::scalar;
    if (auto done = filled_.find(key); done != filled_.end() && (!is_scalar || done->second == scalar)) return;
    void* address = nullptr;
    std::size_t bytes = 0;
    const std::string& lowered = compilation.compiled.lowered.at("&" + a.name);
    if (cudaLibraryGetGlobal(&address, &bytes, compilation.library, lowered.c_str()) != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error(fmt::format("{}.name: no __constant__ or __device__ variable '{}' in the loaded module", a.path, a.name));
    }
    std::size_t needed = is_scalar ? a.type->bytes : buffers_[i].bytes();
    if (bytes < needed)
      throw std::runtime_error(fmt::format("{}: the variable '{}' holds {} bytes; the argument has {}", a.path, a.name, bytes, needed));
    if (is_scalar)
      OCCBENCH_CUDA_CHECK(cudaMemcpyAsync(address, &scalar, needed, cudaMemcpyHostToDevice, stream));
    else if (needed)
      OCCBENCH_CUDA_CHECK(cudaMemcpyAsync(address, buffers_[i].get(), needed, cudaMemcpyDeviceToDevice, stream));
    OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));  // the scalar's host copy is on this frame
    filled_[key] = scalar;
  }

  std::shared_ptr<SourceState> state_;
  std::map<std::pair<const Compilation*, std::size_t>, std::uint64_t> filled_;  // (module, argument) -> the scalar filled
  Params sizes_;
  std::vector<GuardedBuffer> buffers_;                // empty for scalars
  std::vector<DeviceBuffer<unsigned char>> expected_;  // on the device, beside the outputs
};

}  // namespace

LaunchSpec source_launch(SourceState& state, const KernelSpec& k, const Params& p, bool for_record) {
  Launch l = evaluate_launch(k, p);
  LaunchSpec spec;
  spec.grid = l.grid;
  spec.block = l.block;
  spec.dynamic_smem_bytes = l.dynamic_smem_bytes;
  spec.kernel_name = state.name_expression(k, p);
  int arch = current_device_arch();
  if (arch == 0) return spec;  // no GPU: launch shape only (plan compiles through Variant::compile)
  Instance& inst = state.instance(k, p, arch);
  if (!inst.kernel) {
    Compilation& c = *inst.compilation;
    if (!c.library)
      OCCBENCH_CUDA_CHECK(cudaLibraryLoadData(&c.library, c.compiled.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    OCCBENCH_CUDA_CHECK(cudaLibraryGetKernel(&inst.kernel, c.library, c.compiled.lowered.at(inst.name_expression).c_str()));
  }
  // The runtime takes a cudaKernel_t wherever it takes a kernel's address (cudaFuncGetAttributes,
  // the occupancy API, cudaLaunchKernel), so the runner's resource and occupancy code applies as is.
  spec.kernel = reinterpret_cast<const void*>(inst.kernel);
  state.compilation_of_kernel[spec.kernel] = inst.compilation.get();
  if (for_record) spec.compile_json = state.compile_json(inst, arch);
  return spec;
}

void SourceProblem::compute_reference() {
  const KernelSpec& k = state_->kernels[std::size_t(state_->reference_kernel)];
  Params params = sizes_;
  for (const auto& [name, value] : state_->reference_axes.items()) params.set(name, value);
  LaunchSpec spec = source_launch(*state_, k, params, /*for_record=*/false);
  poison_outputs();
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  launch(spec.kernel, spec, params, nullptr);
  OCCBENCH_CUDA_CHECK(cudaGetLastError());
  OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  if (std::string outside = take_out_of_bounds_writes(); !outside.empty())
    throw std::runtime_error(fmt::format("the reference variant '{}' writes outside its buffers: {}", k.variant, outside));
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (state_->arguments[i].role != Argument::Role::output) continue;
    expected_[i] = DeviceBuffer<unsigned char>(buffers_[i].bytes());
    if (buffers_[i].bytes())
      OCCBENCH_CUDA_CHECK(cudaMemcpy(expected_[i].get(), buffers_[i].get(), buffers_[i].bytes(), cudaMemcpyDeviceToDevice));
  }
}

std::unique_ptr<Problem> make_source_problem(std::shared_ptr<SourceState> state, const Params& sizes, std::uint64_t seed) {
  return std::make_unique<SourceProblem>(std::move(state), sizes, seed);
}

void launch_source_kernel(Problem& problem, const LaunchSpec& launch, const Params& params, cudaStream_t stream) {
  static_cast<SourceProblem&>(problem).launch(launch.kernel, launch, params, stream);
}

}  // namespace occbench
