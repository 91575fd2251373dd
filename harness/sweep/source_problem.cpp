#include "harness/sweep/source_kernels.hpp"
#include "harness/core/format.hpp"

#include "harness/compile/compile_order.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/core/hash.hpp"
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

std::string instance_key(int arch, const std::string& name, const std::string& compile_key) {
  return fmt::format("sm_{}|{}|{}", arch, name, compile_key);
}

}  // namespace

std::string PointCompile::key() const {
  std::string key = fmt::format("{}", fmt::join(options, "\x1f"));
  for (const auto& [name, value] : defines) key += fmt::format("\x1e{}={}", name, value);
  if (source) key += fmt::format("\x1dsource {:016x}", fnv1a(*source));
  return key;
}

std::string PointCompile::text(const std::string& config_source) const {
  std::string prefix;
  for (const auto& [name, value] : defines) prefix += fmt::format("#define {} {}\n", name, value);
  if (!prefix.empty()) prefix += "#line 1\n";  // the source's own line numbers in the compiler's messages
  return prefix + (source ? *source : config_source);
}

namespace {

// An expression's value in a kernel name or a #define line: a labelled axis named alone gives its
// label (float_type: double; alpha: 0.5), any other expression its whole number.
std::string expression_text(const Expression& expr, const Params& p) {
  if (const ParamLabel* label = p.label(trim(expr.text()))) return label->text;
  return fmt::format("{}", expr.evaluate_integer(p, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()));
}

// The config's kernel name at p, its {expressions} evaluated.
std::string config_kernel_name(const KernelSpec& k, const Params& p) {
  std::string name;
  for (const auto& [text, expr] : k.name_parts) name += expr.empty() ? text : expression_text(expr, p);
  return name;
}

}  // namespace

std::string SourceState::name_expression(const KernelSpec& k, const Params& p) const {
  if (const auto* launch = host_launch_of(k)) {
    HostLaunch given = (*launch)(p);
    if (!given.kernel_name.empty()) return given.kernel_name;
  }
  return config_kernel_name(k, p);
}

PointCompile SourceState::compile_at(const KernelSpec& k, const Params& p) const {
  PointCompile c;
  c.options = k.options;
  c.options.insert(c.options.end(), include_options.begin(), include_options.end());
  if (const auto* launch = host_launch_of(k)) {
    HostLaunch given = (*launch)(p);
    c.defines = std::move(given.defines);
    c.source = std::move(given.source);
    c.name = given.kernel_name;
  }
  for (const auto& [name, expr] : k.defines) c.defines.emplace_back(name, expression_text(expr, p));
  if (c.name.empty()) c.name = config_kernel_name(k, p);  // the caller's launch gave none: not asked again
  return c;
}

void SourceState::index_sweep_names() {
  names_by_options.clear();
  for (std::size_t i = 0; i < kernels.size() && i < sweep_points.size(); ++i)
    for (const auto& point : sweep_points[i]) {
      PointCompile c = compile_at(kernels[i], point);
      std::vector<std::string>& names = names_by_options[c.key()];
      if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(std::move(c.name));
    }
}

NvrtcRequest SourceState::request_for(const KernelSpec& k, const Params& p, int arch,
                                      const std::function<bool(const std::string& name)>& compiled) const {
  PointCompile c = compile_at(k, p);
  std::vector<std::string> group{c.name};
  if (auto found = names_by_options.find(c.key()); found != names_by_options.end())
    for (const auto& other_name : found->second)
      if (other_name != c.name && !compiled(other_name)) group.push_back(other_name);
  NvrtcRequest request;
  request.source_path = source_path;
  request.source_text = c.text(source_text);
  request.options = c.options;
  request.arch = arch;
  request.compiler = compiler;
  request.name_expressions = group;
  for (auto& global : global_expressions()) request.name_expressions.push_back(std::move(global));
  return request;
}

CompileState SourceState::compile_state(const KernelSpec& k, const Params& p, int arch) const {
  if (arch == 0) return CompileState::not_compiled;
  PointCompile c = compile_at(k, p);
  std::string key = instance_key(arch, c.name, c.key());
  if (instances.count(key)) return CompileState::compiled;
  auto found = cache_entries.find(key);
  if (found == cache_entries.end())  // the request as precompile makes it
    found = cache_entries.emplace(key, NvrtcCacheEntry(request_for(k, p, arch, [](const std::string&) { return false; }))).first;
  return found->second.state();
}

Instance& SourceState::instance(const KernelSpec& k, const Params& p, int arch) {
  PointCompile c = compile_at(k, p);
  std::string compile_key = c.key();
  auto key_of = [&](const std::string& n) { return instance_key(arch, n, compile_key); };
  if (auto it = instances.find(key_of(c.name)); it != instances.end()) return it->second;
  NvrtcRequest request = request_for(k, p, arch, [&](const std::string& n) { return instances.count(key_of(n)) > 0; });
  auto compilation = std::make_shared<Compilation>();
  compilation->defines = c.defines;
  try {
    compilation->compiled = nvrtc_compile_once(request);
  } catch (const NvrtcCompileError&) {
    std::vector<std::string> alone = {c.name};
    for (auto& global : global_expressions()) alone.push_back(std::move(global));
    if (request.name_expressions == alone) throw;
    request.name_expressions = alone;
    compilation->compiled = nvrtc_compile_once(request);
  }
  for (const auto& n : request.name_expressions)
    if (n.rfind('&', 0) != 0) instances.emplace(key_of(n), Instance{compilation, n, nullptr});
  return instances.at(key_of(c.name));
}

void SourceState::precompile(const std::vector<std::pair<std::string, Params>>& points, int arch, unsigned index,
                             unsigned count) const {
  std::set<std::string> seen;
  std::vector<NvrtcRequest> requests;
  std::vector<Params> asked_by;  // the point that asked for each request: what its compile time is guessed from
  for (const auto& [variant, params] : points)
    for (const auto& k : kernels) {
      if (k.variant != variant) continue;
      NvrtcRequest r = request_for(k, params, arch, [](const std::string&) { return false; });
      // The text too: points that differ only in their #define lines are different compilations.
      if (!seen.insert(fmt::format("{}|{}|{:016x}", fmt::join(r.options, " "), fmt::join(r.name_expressions, " "),
                                   fnv1a(r.source_text)))
               .second)
        continue;
      r.leave_claimed = true;  // the measuring process, or another worker, is compiling it
      requests.push_back(std::move(r));
      asked_by.push_back(params);
    }
  CompileTurns turns(std::move(requests), std::move(asked_by), index, count);
  while (std::optional<std::size_t> i = turns.next()) {
    try {
      turns.compiled(*i, nvrtc_compile_once(turns.request(*i)).compile_ms);
    } catch (const std::exception&) {
      // Left to another process, or the point's own compilation says what is wrong, in its record.
    }
  }
}

namespace {

json defines_json(const std::vector<std::pair<std::string, std::string>>& defines) {
  json out = json::object();
  for (const auto& [name, value] : defines) out[name] = value;
  return out;
}

}  // namespace

std::string SourceState::compile_json(Instance& inst, int arch) {
  Compilation& c = *inst.compilation;
  json record = {{"source", source_path},
                 {"kernel", inst.name_expression},
                 {"lowered_name", c.compiled.lowered.at(inst.name_expression)},
                 {"arch", fmt::format("sm_{}", arch)},
                 {"options", c.compiled.options},
                 {"defines", defines_json(c.defines)},
                 {"kernels_in_compilation", c.compiled.lowered.size()},
                 {"nvrtc_version", c.compiled.nvrtc_version},
                 {"compiler", c.compiled.compiler},
                 {"cache_key", c.compiled.cache_key},
                 {"cache_hit", c.reported || c.compiled.cache_hit},
                 {"compile_ms", c.reported ? 0.0 : c.compiled.compile_ms},
                 {"nvrtc_ms", c.compiled.nvrtc_ms},
                 {"waited_ms", c.reported ? 0.0 : c.compiled.waited_ms}};
  c.reported = true;
  return record.dump();
}

int current_device_arch() {
  if (host_hooks().keep_cuda_out) return 0;
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

const std::function<HostLaunch(const Params&)>* host_launch_of(const KernelSpec& k) {
  if (k.host_launch.empty()) return nullptr;
  const auto& launches = host_hooks().launches;
  auto found = launches.find(k.host_launch);
  if (found == launches.end())
    throw std::runtime_error(fmt::format("{}.launch.host: no launch '{}' was handed over in memory", k.path, k.host_launch));
  return &found->second;
}

Launch evaluate_launch(const KernelSpec& k, const Params& p) {
  Launch l;
  if (const auto* launch = host_launch_of(k)) {
    HostLaunch h = (*launch)(p);
    l.grid = h.grid;
    l.block = h.block;
    l.dynamic_smem_bytes = h.dynamic_smem_bytes;
    return l;
  }
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

// An array handed over in memory, which must hold `count` elements of `type` at this size.
std::vector<unsigned char> host_values(const std::string& path, const std::string& name, const ElementType& type, std::size_t count) {
  const HostArray* array = find_host_array(name);
  if (!array) throw std::runtime_error(fmt::format("{}: no array '{}' was handed over in memory", path, name));
  if (array->dtype != type.npy || array->count != count)
    throw std::runtime_error(fmt::format("{}: the array '{}' holds {} elements of {}; the argument needs {} of {} ({})", path, name,
                                         array->count, array->dtype, count, type.npy, type.name));
  const auto* bytes = static_cast<const unsigned char*>(array->data);
  return std::vector<unsigned char>(bytes, bytes + count * type.bytes);
}

std::vector<unsigned char> initial_values(const Argument& a, std::size_t count, std::uint64_t seed, std::uint64_t stream) {
  const ElementType& type = *a.type;
  std::vector<unsigned char> bytes(count * type.bytes);
  const Initializer& init = a.init;
  if (init.kind == "host") return host_values(a.path + ".init.array", init.host_array, type, count);
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
    initial_.resize(args.size());
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
      } else {
        if (a.init.kind == "host" || a.init.kind == "npy") {  // its starting values, restored before each verified launch
          std::vector<unsigned char> bytes = initial_values(a, count, seed, i);
          initial_[i] = DeviceBuffer<unsigned char>(bytes.size());
          initial_[i].upload(bytes);
        }
        upload_expected(i, count);
      }
    }
    if (state_->reference_kernel >= 0) compute_reference();
  }

  void poison_outputs() override {
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      if (state_->arguments[i].role != Argument::Role::output) continue;
      if (initial_[i].size() == 0) buffers_[i].poison();
      else OCCBENCH_CUDA_CHECK(cudaMemcpy(buffers_[i].get(), initial_[i].get(), initial_[i].size(), cudaMemcpyDeviceToDevice));
    }
  }

  // On the GPU against the expected values kept there: a 1 GiB output took seconds to download
  // and compare on the host, for every point.
  Verification verify() override {
    Verification v;
    v.status = "passed";
    bool first = true;
    capture_buffers();
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const Argument& a = state_->arguments[i];
      if (a.role != Argument::Role::output || (state_->reference_kernel < 0 && expected_[i].size() == 0)) continue;
      add_part(v, a.compare == Argument::Compare::sum ? compare_sums(i) : compare_elements(i), a.rel_tolerance, first);
    }
    if (!state_->host_verifier.empty()) add_part(v, host_verification(), 0, first);
    if (first) {
      v.status = "skipped";
      v.detail = "no expected outputs and no verification function were given (only faults and the guard zones are checked)";
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
      if (a.role == Argument::Role::scalar && a.literal_bits) scalars[i] = *a.literal_bits;
      else if (a.role == Argument::Role::scalar)
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

  // An output's expected values, from a .npy file or from memory: as many as the output has,
  // except for outputs compared by their sums.
  void upload_expected(std::size_t i, std::size_t count) {
    const Argument& a = state_->arguments[i];
    std::vector<unsigned char> bytes;
    std::string source;
    if (!a.expected_npy.empty()) {
      NpyArray array = read_npy(a.expected_npy);
      if (array.dtype != a.type->npy)
        throw std::runtime_error(fmt::format("{}: expected outputs for '{}' hold elements of {}; the output is {} ({})",
                                             a.expected_npy, a.name, array.dtype, a.type->npy, a.type->name));
      bytes = std::move(array.bytes);
      source = a.expected_npy;
    } else if (!a.expected_host.empty()) {
      const HostArray* array = find_host_array(a.expected_host);
      if (!array) throw std::runtime_error(fmt::format("$.reference.host.{}: no array '{}' was handed over in memory", a.name, a.expected_host));
      const auto* data = static_cast<const unsigned char*>(array->data);
      bytes.assign(data, data + array->count * a.type->bytes);
      source = "$.reference.host." + a.name;
    } else {
      return;
    }
    std::size_t have = bytes.size() / a.type->bytes;
    if (a.compare == Argument::Compare::elements && have != count)
      throw std::runtime_error(fmt::format("{}: expected outputs for '{}' hold {} elements; at {} it has {} of {}", source, a.name,
                                           have, sizes_.to_string(), count, a.type->name));
    expected_[i] = DeviceBuffer<unsigned char>(bytes.size());
    if (!bytes.empty()) expected_[i].upload(bytes);
  }

  std::vector<unsigned char> download(const void* device, std::size_t bytes) const {
    std::vector<unsigned char> host(bytes);
    if (bytes) OCCBENCH_CUDA_CHECK(cudaMemcpy(host.data(), device, bytes, cudaMemcpyDeviceToHost));
    return host;
  }

  static double sum_of(const ElementType& type, const std::vector<unsigned char>& bytes) {
    double sum = 0;
    for (std::size_t at = 0; at + type.bytes <= bytes.size(); at += type.bytes) sum += load_element(type, bytes.data() + at);
    return sum;
  }

  // Output i element by element, on the GPU against its expected values; the first mismatch's
  // values in the detail.
  Verification compare_elements(std::size_t i) const {
    const Argument& a = state_->arguments[i];
    std::size_t count = buffers_[i].bytes() / a.type->bytes, first_mismatch = count;
    Verification part = compare_elements_on_device(a.type->kind, buffers_[i].get(), expected_[i].get(), count, a.abs_tolerance,
                                                   a.rel_tolerance, first_mismatch);
    if (part.mismatches == 0) return part;
    auto element = [&](const unsigned char* buffer) {
      unsigned char bytes[8] = {};
      OCCBENCH_CUDA_CHECK(cudaMemcpy(bytes, buffer + first_mismatch * a.type->bytes, a.type->bytes, cudaMemcpyDeviceToHost));
      return load_element(*a.type, bytes);
    };
    part.detail = fmt::format("first mismatch: {}[{}] = {:g}, expected {:g} (abs tolerance {:g}, rel {:g})", a.name, first_mismatch,
                              element(buffers_[i].get()), element(expected_[i].get()), a.abs_tolerance, a.rel_tolerance);
    return part;
  }

  // "compare": "sum": the output's sum against the expected values' sum, by the output's
  // tolerance (a kernel that leaves one partial result per block: Kernel Tuner's reduction).
  Verification compare_sums(std::size_t i) const {
    const Argument& a = state_->arguments[i];
    double got = sum_of(*a.type, download(buffers_[i].get(), buffers_[i].bytes()));
    double want = sum_of(*a.type, download(expected_[i].get(), expected_[i].size()));
    Verification part;
    part.checked = 1;
    double error = std::abs(got - want);
    part.max_rel_error = want != 0 ? error / std::abs(want) : error;
    if (!(error <= a.abs_tolerance + a.rel_tolerance * std::abs(want))) {
      part.mismatches = 1;
      part.detail = fmt::format("sum of {} = {:.9g}, expected {:.9g} (abs tolerance {:g}, rel {:g})", a.name, got, want,
                                a.abs_tolerance, a.rel_tolerance);
    }
    return part;
  }

  // The caller's verification function, given every output as the kernel left it.
  Verification host_verification() const {
    std::vector<std::vector<unsigned char>> copies;
    copies.reserve(buffers_.size());  // the outputs point into them
    std::vector<HostOutput> outputs;
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const Argument& a = state_->arguments[i];
      if (a.role != Argument::Role::output) continue;
      const auto& copy = copies.emplace_back(download(buffers_[i].get(), buffers_[i].bytes()));
      outputs.push_back({a.name, a.type->npy, copy.size() / a.type->bytes, copy.data()});
    }
    HostVerdict verdict = host_hooks().verifiers.at(state_->host_verifier)(outputs);
    Verification part;
    part.checked = 1;
    part.mismatches = verdict.passed ? 0 : 1;
    part.detail = verdict.passed ? "" : (verdict.detail.empty() ? "the verification function returned false" : verdict.detail);
    return part;
  }

  // Adds one check's figures to the point's verification (the first check's tolerance, the first
  // failing check's detail).
  static void add_part(Verification& v, const Verification& part, double tolerance, bool& first) {
    if (first) v.tolerance = tolerance;
    first = false;
    v.checked += part.checked;
    v.max_rel_error = std::max(v.max_rel_error, part.max_rel_error);
    if (v.mismatches == 0 && part.mismatches > 0) v.detail = part.detail;
    v.mismatches += part.mismatches;
  }

  // Every buffer the caller asked for (run_kernel), copied into its memory as the kernel left it.
  void capture_buffers() const {
    const auto& captures = host_hooks().captures;
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      auto found = captures.find(state_->arguments[i].name);
      if (found != captures.end() && buffers_[i].bytes())
        OCCBENCH_CUDA_CHECK(cudaMemcpy(found->second, buffers_[i].get(), buffers_[i].bytes(), cudaMemcpyDeviceToHost));
    }
  }

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
  std::vector<DeviceBuffer<unsigned char>> initial_;   // outputs' starting values from memory (else NaN)
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
