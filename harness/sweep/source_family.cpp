#include "harness/sweep/source_family.hpp"

#include "harness/sweep/spec.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/family/device_buffer.hpp"
#include "harness/sweep/expression.hpp"
#include "harness/family/npy.hpp"
#include "harness/sweep/nvrtc_compiler.hpp"
#include "harness/model/occupancy_limit.hpp"
#include "harness/core/parallel.hpp"
#include "harness/family/random.hpp"
#include "harness/family/random_device.hpp"
#include "harness/family/verify_device.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

namespace occbench {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

struct ElementType {
  const char* name;  // in the config
  const char* npy;   // NumPy's descr
  std::size_t bytes;
  bool is_float;
  ElementKind kind;  // the type, for visit_element_kind
};
constexpr ElementType kElementTypes[] = {
    {"float32", "<f4", 4, true, ElementKind::float32},  {"float64", "<f8", 8, true, ElementKind::float64},
    {"int32", "<i4", 4, false, ElementKind::int32},     {"uint32", "<u4", 4, false, ElementKind::uint32},
    {"uint8", "|u1", 1, false, ElementKind::uint8},    {"int64", "<i8", 8, false, ElementKind::int64},
    {"uint64", "<u8", 8, false, ElementKind::uint64}};

std::vector<std::string> element_type_names(bool with_64bit_integers) {
  std::vector<std::string> names;
  for (const auto& t : kElementTypes)
    if (with_64bit_integers || t.bytes < 8 || t.is_float) names.push_back(t.name);
  return names;
}

// Stores `value` as the element type at `out` (integers rounded and clamped to the type's range,
// as harness/family/element_values' to_element does on the host and the GPU).
void store_element(const ElementType& type, double value, unsigned char* out) {
  visit_element_kind(type.kind, [&](auto zero) {
    auto v = to_element<decltype(zero)>(value);
    std::memcpy(out, &v, sizeof v);
  });
}

double load_element(const ElementType& type, const unsigned char* in) {
  return visit_element_kind(type.kind, [&](auto v) {
    std::memcpy(&v, in, sizeof v);
    return double(v);
  });
}

struct Initializer {
  std::string kind = "uniform";  // uniform | normal | iota | constant | npy
  double low = -1, high = 1;     // uniform: [low, high) for floats, [low, high] for integers
  double mean = 0, stddev = 1;   // normal
  double start = 0, step = 1;    // iota
  double value = 0;              // constant
  std::string npy_path;          // npy
};

// The formula of harness/family/element_values for an initializer and its type, where there is one
// (uniform, iota, constant): those inputs are made on the GPU. normal (the host's log and cos) and
// npy are made on the host and uploaded.
struct InitSpec {
  InitFormula formula;
  double a, b;
};
std::optional<InitSpec> init_spec(const Initializer& init, const ElementType& type) {
  if (init.kind == "uniform")
    return InitSpec{type.is_float ? InitFormula::uniform_real : InitFormula::uniform_integer, init.low, init.high};
  if (init.kind == "iota") return InitSpec{InitFormula::iota, init.start, init.step};
  if (init.kind == "constant") return InitSpec{InitFormula::constant, init.value, 0};
  return std::nullopt;
}

struct Argument {
  std::string name, path;  // path: its JSON path in the config
  enum class Role { input, output, scalar } role = Role::input;
  const ElementType* type = nullptr;
  Expression count;  // buffers: elements, from the sizes
  Expression value;  // scalars: from the point's parameters
  Initializer init;  // inputs
  double abs_tolerance = 0, rel_tolerance = 0;  // outputs
  bool zero_before_launch = false;              // outputs that kernels accumulate into (atomics)
  std::string expected_npy;                     // outputs verified against a file
};

struct KernelSpec {
  std::string variant, path, description;
  std::vector<std::pair<std::string, Expression>> name_parts;  // literal text, then an expression ("" for none)
  Expression grid[3], block[3], dynamic_smem;
  std::vector<std::pair<std::string, Expression>> defines;
  std::vector<std::string> options;
  Expression flops, global_bytes, dram_bytes, bytes_in_flight_per_warp;
  std::vector<std::string> axes;
};

// One NVRTC compilation: every kernel name of the sweep that shares its options (defines), so
// the headers are parsed once for all template instantiations.
struct Compilation {
  NvrtcResult compiled;
  cudaLibrary_t library = nullptr;  // loaded on the device on first use
  bool reported = false;            // the first point reports the compilation; later ones reuse it
};

struct Instance {
  std::shared_ptr<Compilation> compilation;
  std::string name_expression;
  cudaKernel_t kernel = nullptr;
};

// Everything the family's callbacks share: the parsed config and the compiled kernels.
struct SourceState {
  std::string config_file, source_path, source_text;
  std::vector<std::string> include_options;  // -I of the config's include_dirs
  std::vector<Argument> arguments;
  std::vector<KernelSpec> kernels;
  int reference_kernel = -1;     // index in kernels, or -1 for .npy files
  Params reference_axes;         // the reference variant's launch axes
  std::map<std::string, Instance> instances;

  std::string name_expression(const KernelSpec& k, const Params& p) const {
    std::string name;
    for (const auto& [text, expr] : k.name_parts)
      name += expr.empty() ? text : fmt::format("{}", expr.evaluate_integer(p, std::numeric_limits<std::int64_t>::min(),
                                                                            std::numeric_limits<std::int64_t>::max()));
    return name;
  }

  std::vector<std::string> user_options(const KernelSpec& k, const Params& p) const {
    std::vector<std::string> options = k.options;
    for (const auto& [name, expr] : k.defines)
      options.push_back(fmt::format("-D{}={}", name, expr.evaluate_integer(p, std::numeric_limits<std::int64_t>::min(),
                                                                             std::numeric_limits<std::int64_t>::max())));
    options.insert(options.end(), include_options.begin(), include_options.end());
    return options;
  }

  // Every point each kernel can take in this sweep (the config's values), and the reference's.
  std::vector<std::vector<Params>> sweep_points;

  // The kernel at p, compiled for sm_<arch> together with every other name of the sweep that
  // needs the same options; alone when that group does not compile (so the error is its own).
  Instance& instance(const KernelSpec& k, const Params& p, int arch) {
    std::string name = name_expression(k, p);
    std::vector<std::string> options = user_options(k, p);
    auto key_of = [&](const std::string& n, const std::vector<std::string>& o) {
      return fmt::format("sm_{}|{}|{}", arch, n, fmt::join(o, " "));
    };
    std::string key = key_of(name, options);
    if (auto it = instances.find(key); it != instances.end()) return it->second;
    std::vector<std::string> group{name};
    for (std::size_t i = 0; i < kernels.size(); ++i)
      for (const auto& other : sweep_points[i]) {
        std::string other_name = name_expression(kernels[i], other);
        if (user_options(kernels[i], other) == options && !instances.count(key_of(other_name, options)) &&
            std::find(group.begin(), group.end(), other_name) == group.end())
          group.push_back(other_name);
      }
    NvrtcRequest request;
    request.source_path = source_path;
    request.source_text = source_text;
    request.options = options;
    request.arch = arch;
    auto compilation = std::make_shared<Compilation>();
    request.name_expressions = group;
    try {
      compilation->compiled = nvrtc_compile(request);
    } catch (const NvrtcCompileError&) {
      if (group.size() == 1) throw;
      group = {name};
      request.name_expressions = group;
      compilation->compiled = nvrtc_compile(request);
    }
    for (const auto& n : group) instances.emplace(key_of(n, options), Instance{compilation, n, nullptr});
    return instances.at(key);
  }

  std::string compile_json(Instance& inst, int arch) {
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
                   {"compile_ms", c.reported ? 0.0 : c.compiled.compile_ms}};
    c.reported = true;
    return record.dump();
  }
};

// The architecture of the current CUDA device, or 0 where there is none (plan on a GPU-less machine).
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

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();

struct Launch {
  Dim3 grid, block;
  std::size_t dynamic_smem_bytes = 0;
};

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
      buffers_[i] = DeviceBuffer<unsigned char>(count * a.type->bytes);
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
        auto element = [&](const DeviceBuffer<unsigned char>& buffer) {
          unsigned char bytes[8] = {};
          OCCBENCH_CUDA_CHECK(cudaMemcpy(bytes, buffer.get() + first_mismatch * a.type->bytes, a.type->bytes,
                                         cudaMemcpyDeviceToHost));
          return load_element(*a.type, bytes);
        };
        v.detail = fmt::format("first mismatch: {}[{}] = {:g}, expected {:g} (abs tolerance {:g}, rel {:g})", a.name,
                               first_mismatch, element(buffers_[i]), element(expected_[i]), a.abs_tolerance, a.rel_tolerance);
      }
      v.mismatches += part.mismatches;
    }
    if (v.mismatches) v.status = "failed";
    return v;
  }

  // One launch on `stream`: outputs that accumulate are zeroed first (on the same stream).
  void launch(const void* kernel, const LaunchSpec& spec, const Params& params, cudaStream_t stream) {
    const auto& args = state_->arguments;
    std::vector<void*> pointers(args.size());
    std::vector<void*> device_pointers(args.size());  // cudaLaunchKernel reads each argument through a pointer to it
    std::vector<std::uint64_t> scalars(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Argument& a = args[i];
      if (a.role == Argument::Role::scalar) {
        store_element(*a.type, a.value.evaluate(params), reinterpret_cast<unsigned char*>(&scalars[i]));
        pointers[i] = &scalars[i];
      } else {
        device_pointers[i] = buffers_[i].get();
        pointers[i] = &device_pointers[i];
        if (a.zero_before_launch && buffers_[i].bytes())
          OCCBENCH_CUDA_CHECK(cudaMemsetAsync(buffers_[i].get(), 0, buffers_[i].bytes(), stream));
      }
    }
    dim3 grid(spec.grid.x, spec.grid.y, spec.grid.z), block(spec.block.x, spec.block.y, spec.block.z);
    OCCBENCH_CUDA_CHECK(cudaLaunchKernel(kernel, grid, block, pointers.data(), spec.dynamic_smem_bytes, stream));
  }

 private:
  void compute_reference();

  std::shared_ptr<SourceState> state_;
  Params sizes_;
  std::vector<DeviceBuffer<unsigned char>> buffers_;  // empty for scalars
  std::vector<DeviceBuffer<unsigned char>> expected_;  // on the device, beside the outputs
};

// `for_record`: the launch of a result record, which reports the compilation (the first one
// that uses an instance reports its NVRTC time; the reference run reports nothing).
LaunchSpec source_launch(SourceState& state, const KernelSpec& k, const Params& p, bool for_record = true) {
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
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    if (state_->arguments[i].role != Argument::Role::output) continue;
    expected_[i] = DeviceBuffer<unsigned char>(buffers_[i].bytes());
    if (buffers_[i].bytes())
      OCCBENCH_CUDA_CHECK(cudaMemcpy(expected_[i].get(), buffers_[i].get(), buffers_[i].bytes(), cudaMemcpyDeviceToDevice));
  }
}

// ---- reading the config ----

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& path, const std::string& expected) const { throw ConfigError(file_, path, expected); }
  const std::string& file() const { return file_; }

  const json& object(const json& v, const std::string& path, const std::vector<std::string>& keys) const {
    if (!v.is_object()) fail(path, fmt::format("expected an object, got {}", v.type_name()));
    for (const auto& item : v.items())
      if (std::find(keys.begin(), keys.end(), item.key()) == keys.end())
        fail(path + "." + item.key(), fmt::format("unknown key '{}'; valid keys here: {}", item.key(), fmt::join(keys, ", ")));
    return v;
  }
  std::string string(const json& v, const std::string& path) const {
    if (!v.is_string() || v.get<std::string>().empty()) fail(path, fmt::format("expected a non-empty string, got {}", v.dump()));
    return v.get<std::string>();
  }
  double number(const json& v, const std::string& path, double min = -INFINITY) const {
    if (!v.is_number() || v.get<double>() < min)
      fail(path, fmt::format("expected a number{}, got {}", std::isinf(min) ? "" : fmt::format(" of at least {}", min), v.dump()));
    return v.get<double>();
  }
  Expression expression(const json& v, const std::string& path, const std::vector<std::string>& names) const {
    if (v.is_number_integer()) return Expression(v.dump(), names, file_, path);
    if (!v.is_string())
      fail(path, fmt::format("expected an expression (a string such as \"ceil_div(n, block_size)\", or an integer), got {}", v.dump()));
    return Expression(v.get<std::string>(), names, file_, path);
  }
  std::string one_of(const json& v, const std::string& path, const std::vector<std::string>& choices) const {
    std::string s = v.is_string() ? v.get<std::string>() : v.dump();
    if (!v.is_string() || std::find(choices.begin(), choices.end(), s) == choices.end())
      fail(path, fmt::format("expected one of: {}; got {}", fmt::join(choices, ", "), v.dump()));
    return s;
  }
  // A file named relative to the config's folder, which must exist.
  std::string file_path(const json& v, const std::string& path, const fs::path& base) const {
    fs::path p = string(v, path);
    if (p.is_relative()) p = base / p;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) fail(path, fmt::format("expected an existing file; {} does not exist", p.string()));
    return p.lexically_normal().string();
  }

 private:
  std::string file_;
};

bool is_identifier(const std::string& s) {
  return !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::vector<std::string> object_keys(const json& doc, const char* key) {
  std::vector<std::string> keys;
  if (doc.contains(key) && doc[key].is_object())
    for (const auto& item : doc[key].items()) keys.push_back(item.key());
  return keys;
}

Initializer parse_init(const Reader& r, const json& v, const std::string& path, const ElementType& type, const fs::path& base) {
  Initializer init;
  r.object(v, path, {"kind", "min", "max", "mean", "stddev", "start", "step", "value", "file"});
  if (!v.contains("kind")) r.fail(path + ".kind", "missing; expected one of: uniform, normal, iota, constant, npy");
  init.kind = r.one_of(v["kind"], path + ".kind", {"uniform", "normal", "iota", "constant", "npy"});
  auto allowed = [&](std::vector<std::string> keys) {
    keys.push_back("kind");
    r.object(v, path, keys);
  };
  if (init.kind == "uniform") {
    allowed({"min", "max"});
    if (!type.is_float) init.low = 0, init.high = type.bytes == 1 ? 255 : 1000;
    if (v.contains("min")) init.low = r.number(v["min"], path + ".min");
    if (v.contains("max")) init.high = r.number(v["max"], path + ".max");
    if (!(init.high > init.low))
      r.fail(path + ".max", fmt::format("expected max > min (random inputs are never all one value), got min {} and max {}",
                                        init.low, init.high));
  } else if (init.kind == "normal") {
    allowed({"mean", "stddev"});
    if (v.contains("mean")) init.mean = r.number(v["mean"], path + ".mean");
    if (v.contains("stddev")) init.stddev = r.number(v["stddev"], path + ".stddev");
    if (!(init.stddev > 0)) r.fail(path + ".stddev", fmt::format("expected a standard deviation > 0, got {}", init.stddev));
  } else if (init.kind == "iota") {
    allowed({"start", "step"});
    if (v.contains("start")) init.start = r.number(v["start"], path + ".start");
    if (v.contains("step")) init.step = r.number(v["step"], path + ".step");
  } else if (init.kind == "constant") {
    allowed({"value"});
    if (!v.contains("value")) r.fail(path + ".value", "missing; expected the number every element holds");
    init.value = r.number(v["value"], path + ".value");
  } else {
    allowed({"file"});
    if (!v.contains("file")) r.fail(path + ".file", "missing; expected the .npy file that holds the values");
    init.npy_path = r.file_path(v["file"], path + ".file", base);
  }
  return init;
}

Argument parse_argument(const Reader& r, const json& v, const std::string& path, const std::vector<std::string>& size_names,
                        const std::vector<std::string>& all_names, const fs::path& base) {
  Argument a;
  a.path = path;
  r.object(v, path, {"name", "type", "role", "count", "value", "init", "tolerance", "zero_before_launch"});
  if (!v.contains("name")) r.fail(path + ".name", "missing; expected the kernel parameter's name");
  a.name = r.string(v["name"], path + ".name");
  if (!v.contains("role")) r.fail(path + ".role", "missing; expected one of: input, output, scalar");
  std::string role = r.one_of(v["role"], path + ".role", {"input", "output", "scalar"});
  a.role = role == "input" ? Argument::Role::input : role == "output" ? Argument::Role::output : Argument::Role::scalar;
  bool scalar = a.role == Argument::Role::scalar;
  auto types = element_type_names(scalar);
  if (!v.contains("type")) r.fail(path + ".type", fmt::format("missing; expected one of: {}", fmt::join(types, ", ")));
  std::string type = r.one_of(v["type"], path + ".type", types);
  for (const auto& t : kElementTypes)
    if (type == t.name) a.type = &t;

  auto only_for = [&](const char* key, bool allowed, const char* which) {
    if (v.contains(key) && !allowed) r.fail(path + "." + key, fmt::format("'{}' applies only to {} arguments", key, which));
  };
  only_for("value", scalar, "scalar");
  only_for("count", !scalar, "input and output");
  only_for("init", a.role == Argument::Role::input, "input");
  only_for("tolerance", a.role == Argument::Role::output, "output");
  only_for("zero_before_launch", a.role == Argument::Role::output, "output");
  if (scalar) {
    if (!v.contains("value")) r.fail(path + ".value", "missing; expected an expression of the point's parameters");
    a.value = r.expression(v["value"], path + ".value", all_names);
    return a;
  }
  if (!v.contains("count"))
    r.fail(path + ".count", fmt::format("missing; expected the number of elements, an expression of the sizes ({})",
                                        fmt::join(size_names, ", ")));
  a.count = r.expression(v["count"], path + ".count", size_names);
  if (a.role == Argument::Role::input) {
    if (v.contains("init")) a.init = parse_init(r, v["init"], path + ".init", *a.type, base);
    else if (!a.type->is_float) a.init.low = 0, a.init.high = a.type->bytes == 1 ? 255 : 1000;
    return a;
  }
  a.rel_tolerance = a.type->is_float ? (a.type->bytes == 4 ? 1e-5 : 1e-12) : 0;
  if (v.contains("tolerance")) {
    const auto& t = r.object(v["tolerance"], path + ".tolerance", {"abs", "rel"});
    if (t.contains("abs")) a.abs_tolerance = r.number(t["abs"], path + ".tolerance.abs", 0);
    if (t.contains("rel")) a.rel_tolerance = r.number(t["rel"], path + ".tolerance.rel", 0);
  }
  if (v.contains("zero_before_launch")) {
    if (!v["zero_before_launch"].is_boolean())
      r.fail(path + ".zero_before_launch", fmt::format("expected true or false, got {}", v["zero_before_launch"].dump()));
    a.zero_before_launch = v["zero_before_launch"].get<bool>();
  }
  return a;
}

// "tile_kernel<{chunk_size}, {block_size / 32}>": literal text and {expressions}.
std::vector<std::pair<std::string, Expression>> parse_kernel_name(const Reader& r, const json& v, const std::string& path,
                                                                  const std::vector<std::string>& names) {
  std::string text = r.string(v, path);
  std::vector<std::pair<std::string, Expression>> parts;
  std::size_t at = 0;
  while (at < text.size()) {
    auto open = text.find('{', at);
    auto stray = text.find('}', at);
    if (stray < open) r.fail(path, fmt::format("in \"{}\": a '}}' at position {} closes no '{{'", text, stray + 1));
    if (open == std::string::npos) {
      parts.emplace_back(text.substr(at), Expression{});
      break;
    }
    if (open > at) parts.emplace_back(text.substr(at, open - at), Expression{});
    auto close = text.find('}', open);
    if (close == std::string::npos) r.fail(path, fmt::format("in \"{}\": the '{{' at position {} is never closed", text, open + 1));
    parts.emplace_back("", Expression(text.substr(open + 1, close - open - 1), names, r.file(), path));
    at = close + 1;
  }
  std::string head = parts.empty() ? "" : parts.front().first;
  auto bracket = head.find('<');
  if (!is_identifier(head.substr(0, bracket)) && head.substr(0, bracket).find("::") == std::string::npos)
    r.fail(path, fmt::format("expected a __global__ function's name, optionally with template arguments "
                             "(\"tile_kernel<{{chunk_size}}>\"), got \"{}\"", text));
  return parts;
}

void parse_dims(const Reader& r, const json& v, const std::string& path, const std::vector<std::string>& names, Expression out[3]) {
  if (v.is_array()) {
    if (v.empty() || v.size() > 3) r.fail(path, fmt::format("expected 1 to 3 expressions (x, y, z), got {}", v.size()));
    for (std::size_t d = 0; d < v.size(); ++d) out[d] = r.expression(v[d], fmt::format("{}[{}]", path, d), names);
  } else {
    out[0] = r.expression(v, path, names);
  }
}

void parse_work(const Reader& r, const json& v, const std::string& path, const std::vector<std::string>& names, KernelSpec& k) {
  r.object(v, path, {"flops", "global_bytes", "dram_bytes", "bytes_in_flight_per_warp"});
  if (v.contains("flops")) k.flops = r.expression(v["flops"], path + ".flops", names);
  if (v.contains("global_bytes")) k.global_bytes = r.expression(v["global_bytes"], path + ".global_bytes", names);
  if (v.contains("dram_bytes")) k.dram_bytes = r.expression(v["dram_bytes"], path + ".dram_bytes", names);
  if (v.contains("bytes_in_flight_per_warp"))
    k.bytes_in_flight_per_warp = r.expression(v["bytes_in_flight_per_warp"], path + ".bytes_in_flight_per_warp", names);
}

void parse_defines(const Reader& r, const json& v, const std::string& path, const std::vector<std::string>& names,
                   std::vector<std::pair<std::string, Expression>>& out) {
  if (!v.is_object()) r.fail(path, fmt::format("expected an object of macro names and expressions, got {}", v.dump()));
  for (const auto& item : v.items()) {
    if (!is_identifier(item.key()))
      r.fail(path + "." + item.key(), fmt::format("expected a macro name (letters, digits, '_'), got '{}'", item.key()));
    out.emplace_back(item.key(), r.expression(item.value(), path + "." + item.key(), names));
  }
}

std::vector<std::string> parse_options(const Reader& r, const json& v, const std::string& path) {
  if (!v.is_array()) r.fail(path, fmt::format("expected a list of NVRTC options such as [\"-DUSE_X\", \"--use_fast_math\"], got {}", v.dump()));
  std::vector<std::string> options;
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::string o = r.string(v[i], fmt::format("{}[{}]", path, i));
    if (o[0] != '-') r.fail(fmt::format("{}[{}]", path, i), fmt::format("expected an option starting with '-', got \"{}\"", o));
    if (o.rfind("-arch", 0) == 0 || o.rfind("--gpu-architecture", 0) == 0)
      r.fail(fmt::format("{}[{}]", path, i), "the architecture is the device's own (or plan's --gpu); leave it out");
    options.push_back(o);
  }
  return options;
}

// Every combination of the config's values for `names` (sizes, then the kernel's axes: its
// variant_axes first, else the shared axes). Values that are not lists of integers are left to
// the config's own checks.
std::vector<Params> config_points(const json& doc, const std::string& variant, const std::vector<std::string>& names) {
  std::vector<Params> points{Params{}};
  for (const auto& name : names) {
    static const json kNone;
    auto member = [](const json& object, const std::string& key) -> const json& {
      return object.is_object() && object.contains(key) ? object[key] : kNone;
    };
    const json* values = nullptr;
    for (const json* where : {&member(member(doc, "variant_axes"), variant), &member(doc, "sizes"), &member(doc, "axes")})
      if (!values && member(*where, name).is_array()) values = &member(*where, name);
    if (!values) continue;
    std::vector<Params> next;
    for (const auto& point : points)
      for (const auto& v : *values)
        if (v.is_number_integer()) {
          Params p = point;
          p.set(name, v.get<std::int64_t>());
          next.push_back(std::move(p));
        }
    points = std::move(next);
  }
  return points;
}

}  // namespace

const std::vector<std::string>& source_config_keys() {
  static const std::vector<std::string> keys{"source", "compile", "arguments", "kernels", "reference", "work"};
  return keys;
}

std::shared_ptr<const Family> build_source_family(const json& doc, const std::string& config_file) {
  Reader r(config_file);
  fs::path base = fs::path(config_file).parent_path();
  auto state = std::make_shared<SourceState>();
  state->config_file = config_file;
  state->source_path = r.file_path(doc["source"], "$.source", base);
  {
    std::ifstream in(state->source_path);
    std::stringstream text;
    text << in.rdbuf();
    state->source_text = text.str();
  }

  Family family;
  family.name = fs::path(state->source_path).stem().string();
  if (doc.contains("family")) family.name = r.string(doc["family"], "$.family");
  if (!is_identifier(family.name))
    r.fail("$.family", fmt::format("expected a family name of letters, digits and '_' (default: the source file's stem), got '{}'",
                                   family.name));
  family.description = fmt::format("user kernels from {}", state->source_path);

  // Axes: whatever the config's sizes, axes and variant_axes name (their values are checked there).
  if (!doc.contains("sizes") || !doc["sizes"].is_object() || doc["sizes"].empty())
    r.fail("$.sizes", "expected an object of size axes with their values, e.g. {\"n\": [1048576]}");
  std::vector<std::string> size_names = object_keys(doc, "sizes");
  auto free_axis = [&](const std::string& name, const std::string& path, const char* what) {
    if (!is_identifier(name)) r.fail(path, fmt::format("expected an axis name of letters, digits and '_' (it is used in expressions), got '{}'", name));
    Axis axis;
    axis.name = name;
    axis.description = what;
    axis.min = std::numeric_limits<std::int64_t>::min();
    return axis;
  };
  for (const auto& n : size_names) family.size_axes.push_back(free_axis(n, "$.sizes." + n, "a size given by the config"));
  std::vector<std::string> shared_axes = object_keys(doc, "axes");
  // occupancy_limit is the harness's axis (harness/model/occupancy_limit), not one of the kernel's.
  shared_axes.erase(std::remove(shared_axes.begin(), shared_axes.end(), kOccupancyLimitAxis), shared_axes.end());

  // Compilation settings shared by every variant.
  std::vector<std::string> common_options;
  json no_defines = json::object();
  const json* common_defines = &no_defines;
  if (doc.contains("compile")) {
    const auto& c = r.object(doc["compile"], "$.compile", {"options", "defines", "include_dirs"});
    if (c.contains("options")) common_options = parse_options(r, c["options"], "$.compile.options");
    if (c.contains("defines")) common_defines = &c["defines"];
    if (c.contains("include_dirs")) {
      const auto& dirs = c["include_dirs"];
      if (!dirs.is_array()) r.fail("$.compile.include_dirs", fmt::format("expected a list of folders, got {}", dirs.dump()));
      for (std::size_t i = 0; i < dirs.size(); ++i) {
        std::string path = fmt::format("$.compile.include_dirs[{}]", i);
        fs::path dir = r.string(dirs[i], path);
        if (dir.is_relative()) dir = base / dir;
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) r.fail(path, fmt::format("expected an existing folder; {} is not one", dir.string()));
        state->include_options.push_back("-I" + dir.lexically_normal().string());
      }
    }
  }

  std::vector<std::string> all_names = size_names;
  for (const auto& a : shared_axes) all_names.push_back(a);
  json variant_axes = doc.value("variant_axes", json::object());
  for (const auto& item : variant_axes.items())
    if (item.value().is_object())
      for (const auto& axis : item.value().items())
        if (std::find(all_names.begin(), all_names.end(), axis.key()) == all_names.end()) all_names.push_back(axis.key());

  // Arguments, in the kernel's parameter order.
  if (!doc.contains("arguments") || !doc["arguments"].is_array() || doc["arguments"].empty())
    r.fail("$.arguments", "expected a list of the kernel's parameters in order, e.g. [{\"name\": \"out\", \"type\": \"float32\", "
                          "\"role\": \"output\", \"count\": \"n\"}, ...]");
  bool any_output = false;
  for (std::size_t i = 0; i < doc["arguments"].size(); ++i) {
    Argument a = parse_argument(r, doc["arguments"][i], fmt::format("$.arguments[{}]", i), size_names, all_names, base);
    for (const auto& other : state->arguments)
      if (other.name == a.name) r.fail(a.path + ".name", fmt::format("'{}' names two arguments", a.name));
    any_output = any_output || a.role == Argument::Role::output;
    state->arguments.push_back(std::move(a));
  }
  if (!any_output) r.fail("$.arguments", "expected at least one argument with \"role\": \"output\" (what is verified)");

  // Kernels: one variant each.
  if (!doc.contains("kernels") || !doc["kernels"].is_object() || doc["kernels"].empty())
    r.fail("$.kernels", "expected an object of variants, e.g. {\"global\": {\"kernel\": \"global_kernel\", \"grid\": "
                        "\"ceil_div(n, block_size)\", \"block\": \"block_size\"}}");
  json family_work = doc.value("work", json::object());
  for (const auto& item : doc["kernels"].items()) {
    std::string path = "$.kernels." + item.key();
    if (!is_identifier(item.key())) r.fail(path, fmt::format("expected a variant name of letters, digits and '_', got '{}'", item.key()));
    const auto& v = r.object(item.value(), path,
                             {"kernel", "description", "grid", "block", "dynamic_smem_bytes", "defines", "options", "axes", "work"});
    KernelSpec k;
    k.variant = item.key();
    k.path = path;
    if (v.contains("axes")) {
      const auto& list = v["axes"];
      if (!list.is_array()) r.fail(path + ".axes", fmt::format("expected a list of axis names, got {}", list.dump()));
      for (std::size_t i = 0; i < list.size(); ++i) k.axes.push_back(r.string(list[i], fmt::format("{}.axes[{}]", path, i)));
    } else {
      k.axes = shared_axes;
      if (doc.contains("variant_axes") && doc["variant_axes"].is_object() && doc["variant_axes"].contains(item.key()))
        for (const auto& axis : object_keys(doc["variant_axes"], item.key().c_str()))
          if (axis != kOccupancyLimitAxis && std::find(k.axes.begin(), k.axes.end(), axis) == k.axes.end())
            k.axes.push_back(axis);
    }
    std::vector<std::string> names = size_names;
    names.insert(names.end(), k.axes.begin(), k.axes.end());
    if (!v.contains("kernel")) r.fail(path + ".kernel", "missing; expected the __global__ function's name, e.g. \"tile_kernel<{chunk_size}>\"");
    k.name_parts = parse_kernel_name(r, v["kernel"], path + ".kernel", names);
    if (!v.contains("grid")) r.fail(path + ".grid", "missing; expected the number of blocks, e.g. \"ceil_div(n, block_size)\" or [x, y, z]");
    if (!v.contains("block")) r.fail(path + ".block", "missing; expected the threads per block, e.g. \"block_size\" or [x, y, z]");
    parse_dims(r, v["grid"], path + ".grid", names, k.grid);
    parse_dims(r, v["block"], path + ".block", names, k.block);
    if (v.contains("dynamic_smem_bytes")) k.dynamic_smem = r.expression(v["dynamic_smem_bytes"], path + ".dynamic_smem_bytes", names);
    parse_defines(r, *common_defines, "$.compile.defines", names, k.defines);
    if (v.contains("defines")) parse_defines(r, v["defines"], path + ".defines", names, k.defines);
    k.options = common_options;
    if (v.contains("options")) {
      auto more = parse_options(r, v["options"], path + ".options");
      k.options.insert(k.options.end(), more.begin(), more.end());
    }
    parse_work(r, family_work, "$.work", names, k);
    if (v.contains("work")) parse_work(r, v["work"], path + ".work", names, k);
    if (v.contains("description")) k.description = r.string(v["description"], path + ".description");
    state->kernels.push_back(std::move(k));
  }

  // Verification: a reference variant's outputs, or expected outputs from .npy files.
  if (!doc.contains("reference"))
    r.fail("$.reference", "missing; expected {\"variant\": NAME} (a kernel whose outputs the others must match) or "
                          "{\"npy\": {OUTPUT: FILE}} (expected outputs)");
  const auto& ref = r.object(doc["reference"], "$.reference", {"variant", "params", "npy"});
  if (ref.contains("variant") == ref.contains("npy"))
    r.fail("$.reference", "expected exactly one of \"variant\" and \"npy\"");
  if (ref.contains("variant")) {
    std::string name = r.string(ref["variant"], "$.reference.variant");
    std::vector<std::string> variants;
    for (std::size_t i = 0; i < state->kernels.size(); ++i) {
      variants.push_back(state->kernels[i].variant);
      if (state->kernels[i].variant == name) state->reference_kernel = int(i);
    }
    if (state->reference_kernel < 0)
      r.fail("$.reference.variant", fmt::format("unknown variant '{}'; the kernels are: {}", name, fmt::join(variants, ", ")));
    const KernelSpec& k = state->kernels[std::size_t(state->reference_kernel)];
    json params = ref.value("params", json::object());
    r.object(params, "$.reference.params", k.axes);
    for (const auto& axis : k.axes) {
      std::string path = "$.reference.params." + axis;
      if (params.contains(axis)) {
        if (!params[axis].is_number_integer()) r.fail(path, fmt::format("expected an integer, got {}", params[axis].dump()));
        state->reference_axes.set(axis, params[axis].get<std::int64_t>());
        continue;
      }
      // Default: the axis's first value in the config.
      const json* values = nullptr;
      if (doc.contains("variant_axes") && doc["variant_axes"].is_object() && doc["variant_axes"].contains(name) &&
          doc["variant_axes"][name].is_object() && doc["variant_axes"][name].contains(axis))
        values = &doc["variant_axes"][name][axis];
      else if (doc.contains("axes") && doc["axes"].is_object() && doc["axes"].contains(axis))
        values = &doc["axes"][axis];
      if (!values || !values->is_array() || values->empty() || !(*values)[0].is_number_integer())
        r.fail(path, fmt::format("missing; expected the value of '{}' for the reference run", axis));
      state->reference_axes.set(axis, (*values)[0].get<std::int64_t>());
    }
  } else {
    const auto& files = ref["npy"];
    std::vector<std::string> outputs;
    for (const auto& a : state->arguments)
      if (a.role == Argument::Role::output) outputs.push_back(a.name);
    r.object(files, "$.reference.npy", outputs);
    for (auto& a : state->arguments) {
      if (a.role != Argument::Role::output) continue;
      if (!files.contains(a.name)) r.fail("$.reference.npy." + a.name, "missing; expected the .npy file of this output's expected values");
      a.expected_npy = r.file_path(files[a.name], "$.reference.npy." + a.name, base);
    }
  }

  // The points each kernel can take, so that one NVRTC compilation serves all names with the same options.
  for (const auto& k : state->kernels) {
    std::vector<std::string> names = size_names;
    names.insert(names.end(), k.axes.begin(), k.axes.end());
    state->sweep_points.push_back(config_points(doc, k.variant, names));
  }
  if (state->reference_kernel >= 0)
    for (auto sizes : config_points(doc, "", size_names)) {
      for (const auto& [axis, value] : state->reference_axes.items()) sizes.set(axis, value);
      state->sweep_points[std::size_t(state->reference_kernel)].push_back(sizes);
    }

  // The family's callbacks.
  family.check_sizes = [state](const Params& sizes) -> std::string {
    try {
      for (const auto& a : state->arguments)
        if (!a.count.empty()) a.count.evaluate_integer(sizes, 0, kMaxInt);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  family.device_bytes = [state](const Params& sizes) {
    std::uint64_t bytes = 0;
    for (const auto& a : state->arguments)
      if (!a.count.empty())  // an output twice: its expected values are kept on the device too
        bytes += std::uint64_t(a.count.evaluate_integer(sizes, 0, kMaxInt)) * a.type->bytes *
                 (a.role == Argument::Role::output ? 2 : 1);
    return bytes;
  };
  family.make_problem = [state](const Params& sizes, std::uint64_t seed) -> std::unique_ptr<Problem> {
    return std::make_unique<SourceProblem>(state, sizes, seed);
  };
  for (std::size_t i = 0; i < state->kernels.size(); ++i) {
    const KernelSpec& k = state->kernels[i];
    Variant v;
    v.name = k.variant;
    v.description = k.description.empty() ? fmt::format("{} from {}", k.name_parts.front().first, state->source_path) : k.description;
    for (const auto& axis : k.axes) v.axes.push_back(free_axis(axis, k.path + ".axes", "a launch axis given by the config"));
    v.launch = [state, i](const Params& p) { return source_launch(*state, state->kernels[i], p); };
    v.work = [state, i](const Params& p) {
      const KernelSpec& spec = state->kernels[i];
      WorkModel w;
      if (!spec.flops.empty()) w.flops = spec.flops.evaluate(p);
      if (!spec.global_bytes.empty()) w.global_bytes = spec.global_bytes.evaluate(p);
      if (!spec.dram_bytes.empty()) w.dram_bytes = spec.dram_bytes.evaluate(p);
      if (!spec.bytes_in_flight_per_warp.empty()) w.bytes_in_flight_per_warp = spec.bytes_in_flight_per_warp.evaluate(p);
      return w;
    };
    v.run = [state](Problem& problem, const Params& p, const LaunchSpec& launch, cudaStream_t stream) {
      static_cast<SourceProblem&>(problem).launch(launch.kernel, launch, p, stream);
    };
    // Every expression of the point is evaluated when the config is validated.
    v.check = [state, i](const Params& p) -> std::string {
      try {
        const KernelSpec& spec = state->kernels[i];
        evaluate_launch(spec, p);
        state->name_expression(spec, p);
        state->user_options(spec, p);
        for (const auto& a : state->arguments)
          if (a.role == Argument::Role::scalar) a.value.evaluate(p);
      } catch (const std::exception& e) {
        return e.what();
      }
      return "";
    };
    v.compile = [state, i](const Params& p, int arch) {
      Instance& inst = state->instance(state->kernels[i], p, arch);
      CompiledSource c;
      c.ptxas_log = inst.compilation->compiled.log;
      c.mangled_name = inst.compilation->compiled.lowered.at(inst.name_expression);
      c.compile_json = state->compile_json(inst, arch);
      return c;
    };
    family.variants.push_back(std::move(v));
  }
  return std::make_shared<const Family>(std::move(family));
}

}  // namespace occbench
