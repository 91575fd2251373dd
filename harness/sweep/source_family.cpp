#include "harness/sweep/source_family.hpp"

#include "harness/family/host_hooks.hpp"
#include "harness/sweep/source_config.hpp"
#include "harness/sweep/axis_labels.hpp"
#include "harness/sweep/source_kernels.hpp"
#include "harness/core/files.hpp"
#include "harness/family/npy.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace occbench {

namespace {

// The family's name ($.family, else the source file's stem) and description.
Family named_family(const Reader& r, const json& doc, const SourceState& state) {
  Family family;
  family.name = fs::path(state.source_path).stem().string();
  if (doc.contains("family")) family.name = r.string(doc["family"], "$.family");
  if (!is_identifier(family.name))
    r.fail("$.family", fmt::format("expected a family name of letters, digits and '_' (default: the source file's stem), got '{}'",
                                   family.name));
  family.description = fmt::format("user kernels from {}", state.source_path);
  return family;
}

// Runs f; an error the caller's launch of `k` raised there (a Python exception: a grid past
// CUDA's limits, a generator that returns no code) is bad input at the kernel's launch.host, in the
// caller's words, not the run breaking.
template <typename F>
void callers_error_as_bad_input(const std::string& file, const KernelSpec& k, F&& f) {
  try {
    f();
  } catch (const ConfigError&) {
    throw;
  } catch (const std::runtime_error& e) {
    if (k.host_launch.empty()) throw;
    throw ConfigError(file, k.path + ".launch.host", e.what());
  }
}

// The names a kernel's compilations depend on: what its name and defines read (a caller's launch
// may read any), so that listing them does not list the whole space.
std::vector<std::string> compile_names(const KernelSpec& k, const std::vector<std::string>& names) {
  if (!k.host_launch.empty()) return names;
  std::vector<std::string> used;
  for (const auto* parts : {&k.name_parts, &k.defines})
    for (const auto& [_, expr] : *parts)
      if (!expr.empty())
        for (const auto& name : expr.used_variables()) used.push_back(name);
  std::vector<std::string> kept;
  for (const auto& name : names)
    if (std::find(used.begin(), used.end(), name) != used.end()) kept.push_back(name);
  return kept;
}

// At most this many combinations of the values a templated kernel's name and defines read: each is
// a name to compile, listed before anything runs.
constexpr double kMaxCompileCombinations = 100000;

std::vector<Params> templated_points(const SourceState& state, const json& doc, const KernelSpec& k,
                                     const std::vector<std::string>& names) {
  std::vector<std::string> read = compile_names(k, names);
  if (double count = config_combinations(doc, k.variant, read); count > kMaxCompileCombinations)
    throw ConfigError(state.config_file, k.path + ".kernel",
                      fmt::format("the kernel's name and defines read {} ({:.4g} combinations of their values); expected at "
                                  "most {:.0f}, each a name to compile",
                                  fmt::join(read, ", "), count, kMaxCompileCombinations));
  return config_points(doc, k.variant, read, state.labels);
}

// The points each kernel can take, so that one NVRTC compilation serves all names with the same
// options. A kernel whose name has no template arguments has one name at every point, so there is
// nothing to group: its first point alone (a #define-parameterised space of half a million
// combinations took 2 GB and seconds to list here).
void add_sweep_points(const json& doc, const std::vector<std::string>& size_names, SourceState& state) {
  for (const auto& k : state.kernels) {
    std::vector<std::string> names = size_names;
    names.insert(names.end(), k.axes.begin(), k.axes.end());
    bool templated = std::any_of(k.name_parts.begin(), k.name_parts.end(), [](const auto& part) { return !part.second.empty(); });
    state.sweep_points.push_back(templated ? templated_points(state, doc, k, names)
                                           : first_config_point(doc, k.variant, names, state.labels));
  }
  if (state.reference_kernel >= 0)
    for (auto sizes : config_points(doc, "", size_names, state.labels)) {
      for (const auto& [axis, value] : state.reference_axes.items()) sizes.set(axis, value);
      state.sweep_points[std::size_t(state.reference_kernel)].push_back(sizes);
    }
  auto host = std::find_if(state.kernels.begin(), state.kernels.end(), [](const KernelSpec& k) { return !k.host_launch.empty(); });
  if (host == state.kernels.end()) state.index_sweep_names();
  else callers_error_as_bad_input(state.config_file, *host, [&] { state.index_sweep_names(); });
}

// A scalar argument's value at a point, which its type must hold as it is.
void check_scalar(const Argument& a, const Params& p) {
  if (a.literal_bits) return;  // its type holds it: checked when it was read
  double value = a.value.evaluate(p);
  if (std::string expected = element_value_problem(*a.type, value); !expected.empty())
    throw ConfigError("", a.path + ".value", fmt::format("the expression \"{}\" gives {} at {}; expected {}", a.value.text(), value,
                                                         p.to_string(), expected));
}

// The work model at a point: FLOPs and bytes are finite counts, never negative.
void check_work(const KernelSpec& k, const Params& p) {
  for (const Expression* e : {&k.flops, &k.global_bytes, &k.dram_bytes, &k.bytes_in_flight_per_warp}) {
    if (e->empty()) continue;
    double value = e->evaluate(p);
    if (!std::isfinite(value) || value < 0)
      throw ConfigError("", k.path + ".work", fmt::format("the expression \"{}\" gives {} at {}; expected a finite count of at least 0",
                                                          e->text(), value, p.to_string()));
  }
}

// What a launch of kernel `k` at `p` evaluates: its grid and block, its name, its options and its
// scalars. Throws ConfigError where one of them fails.
void check_launch(const SourceState& state, const KernelSpec& k, const Params& p) {
  // A caller's launch gives the grid, block and macros in one answer, which compile_at asks for:
  // asked once per point, not twice.
  if (k.host_launch.empty()) evaluate_launch(k, p);
  callers_error_as_bad_input(state.config_file, k, [&] { state.compile_at(k, p); });
  for (const auto& a : state.arguments)
    if (a.role == Argument::Role::scalar) check_scalar(a, p);
}

// The reference run at every sizes of the sweep, checked as each point is (run would otherwise
// fail at its first point, on the GPU).
void check_reference_points(const Reader& r, const json& doc, const std::vector<std::string>& size_names, const SourceState& state) {
  if (state.reference_kernel < 0) return;
  const KernelSpec& k = state.kernels[std::size_t(state.reference_kernel)];
  for (auto params : config_points(doc, "", size_names, state.labels)) {
    for (const auto& [axis, value] : state.reference_axes.items()) params.set(axis, value);
    try {
      check_launch(state, k, params);
    } catch (const ConfigError& e) {
      r.fail("$.reference", fmt::format("the reference run ({}) at {}: {}: {}", k.variant, params.to_string(), e.json_path(), e.expected()));
    }
  }
}

// Each .npy file (an input's values, an output's expected values) must hold the argument's type
// and count at every sizes of the sweep: refused here, not at the run's first point.
void check_npy_files(const Reader& r, const json& doc, const std::vector<std::string>& size_names, const SourceState& state) {
  for (const auto& a : state.arguments) {
    bool input = a.role == Argument::Role::input && a.init.kind == "npy";
    std::string file = input ? a.init.npy_path : a.role == Argument::Role::output ? a.expected_npy : "";
    if (file.empty()) continue;
    std::string path = input ? a.path + ".init.file" : "$.reference.npy." + a.name;
    NpyArray array;
    try {
      array = read_npy(file);
    } catch (const NpyError& e) {
      r.fail(path, e.what());
    }
    for (const auto& sizes : config_points(doc, "", size_names, state.labels)) {
      auto count = std::uint64_t(a.count.evaluate_integer(sizes, 0, kMaxInt));
      if (array.dtype != a.type->npy || array.count() != count)
        r.fail(path, fmt::format("{} holds {} elements of {}; at {} the argument needs {} of {} ({})", file, array.count(),
                                 array.dtype, sizes.to_string(), count, a.type->npy, a.type->name));
    }
  }
}

// Global arguments name variables of the source: compiled once here (on the CPU, NVRTC) at the
// first point, each must exist and hold the argument at every size of the config, or the config
// is refused with the argument's path. A kernel that does not compile is left to its point.
void check_globals(const Reader& r, const json& doc, const std::vector<std::string>& size_names, SourceState& state) {
  if (state.global_expressions().empty() || state.kernels.empty() || state.sweep_points[0].empty()) return;
  // Compiling here initializes the CUDA driver, which a process that forks its measuring children
  // must not (harness/family/host_hooks.hpp): there the launch checks each variable.
  if (host_hooks().keep_cuda_out) return;
  int arch = current_device_arch();
  NvrtcRequest request = state.request_for(state.kernels[0], state.sweep_points[0][0], arch ? arch : 90,
                                           [](const std::string&) { return true; });
  NvrtcResult compiled;
  try {
    compiled = nvrtc_compile_once(request);
  } catch (const NvrtcCompileError& e) {
    for (const auto& a : state.arguments)
      if (a.global && std::string(e.what()).find("nv_mangled_name &" + a.name) != std::string::npos)
        r.fail(a.path + ".name", fmt::format("no __constant__ or __device__ variable '{}' in {}", a.name, state.source_path));
    return;
  }
  for (const auto& a : state.arguments) {
    if (!a.global) continue;
    std::size_t held = cubin_symbol_bytes(compiled.cubin, compiled.lowered.at("&" + a.name)).value_or(0);
    for (const auto& sizes : config_points(doc, "", size_names, state.labels)) {
      std::size_t needed = a.role == Argument::Role::scalar ? a.type->bytes
                                                            : std::size_t(a.count.evaluate_integer(sizes, 0, kMaxInt)) * a.type->bytes;
      if (held < needed)
        r.fail(a.path, fmt::format("the variable '{}' of {} holds {} bytes; at {} the argument has {} ({} of {})", a.name,
                                   state.source_path, held, sizes.to_string(), needed,
                                   a.role == Argument::Role::scalar ? std::size_t(1) : needed / a.type->bytes, a.type->name));
    }
  }
}

// The problem's callbacks: size checks, device memory, the problem itself.
void add_problem(Family& family, const std::shared_ptr<SourceState>& state) {
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
    double bytes = 0;  // in double: 2^62 elements of 4 bytes wrapped a 64-bit count to a few bytes
    for (const auto& a : state->arguments)
      if (!a.count.empty())  // an output twice: its expected values are kept on the device too
        bytes += double(a.count.evaluate_integer(sizes, 0, kMaxInt)) * double(a.type->bytes) *
                 (a.role == Argument::Role::output ? 2 : 1);
    return bytes >= 0x1p64 ? std::numeric_limits<std::uint64_t>::max() : std::uint64_t(bytes);
  };
  family.make_problem = [state](const Params& sizes, std::uint64_t seed) { return make_source_problem(state, sizes, seed); };
  family.precompile = [state](const std::vector<std::pair<std::string, Params>>& points, int arch, unsigned index,
                               unsigned count) { state->precompile(points, arch, index, count); };
}


// Kernel i of the config as a variant: its launch, work model, run, checks and compilation.
Variant source_variant(const Reader& r, const std::shared_ptr<SourceState>& state, std::size_t i) {
  const KernelSpec& k = state->kernels[i];
  Variant v;
  v.name = k.variant;
  v.description = k.description.empty() ? fmt::format("{} from {}", k.name_parts.front().first, state->source_path) : k.description;
  for (const auto& axis : k.axes)
    v.axes.push_back(free_axis(r, axis, k.path + ".axes", "a launch axis given by the config", state->labels.get()));
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
  v.run = [](Problem& problem, const Params& p, const LaunchSpec& launch, cudaStream_t stream) {
    launch_source_kernel(problem, launch, p, stream);
  };
  // Every expression of the point is evaluated when the config is validated.
  v.check = [state, i](const Params& p) -> std::string {
    try {
      check_launch(*state, state->kernels[i], p);
      check_work(state->kernels[i], p);
    } catch (const ConfigError& e) {
      return fmt::format("{}: {}", e.json_path(), e.expected());
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  v.compile_state = [state, i](const Params& p) { return state->compile_state(state->kernels[i], p, current_device_arch()); };
  v.compile = [state, i](const Params& p, int arch) {
    Instance& inst = state->instance(state->kernels[i], p, arch);
    CompiledSource c;
    c.ptxas_log = inst.compilation->compiled.log;
    c.mangled_name = inst.compilation->compiled.lowered.at(inst.name_expression);
    c.compile_json = state->compile_json(inst, arch);
    c.cubin = inst.compilation->compiled.cubin;
    if (state->compiler == Compiler::nvcc) c.compiler = inst.compilation->compiled.compiler;
    return c;
  };
  return v;
}

}  // namespace

const std::vector<std::string>& source_config_keys() {
  static const std::vector<std::string> keys{"source", "compile", "arguments", "kernels", "reference", "work", "guard_zone_gib"};
  return keys;
}

std::shared_ptr<const Family> build_source_family(const json& doc, const std::string& source) {
  // "CONFIG (as stored in RUN.jsonl)" names a resumed run's config in messages; files it names
  // are relative to CONFIG's folder.
  const std::string config_file = source.substr(0, source.find(" (as stored in "));
  Reader r(source);
  fs::path base = fs::path(config_file).parent_path();
  auto state = std::make_shared<SourceState>();
  state->config_file = config_file;
  state->source_path = r.file_path(doc["source"], "$.source", base);
  std::string why;
  std::optional<std::string> source_text = read_file(state->source_path, &why);
  if (!source_text) r.fail("$.source", fmt::format("{}: the file {}; expected CUDA source", state->source_path, why));
  state->source_text = std::move(*source_text);
  Family family = named_family(r, doc, *state);
  SourceAxes axes = source_axes(r, doc);
  check_size_combinations(doc["sizes"], r.file());  // before the checks below enumerate them
  state->labels = parse_axis_labels(r, doc, axes);
  family.labels = state->labels;
  for (const auto& n : axes.size_names) family.size_axes.push_back(free_axis(r, n, "$.sizes." + n, "a size given by the config"));
  CompileSettings compile = parse_compile(r, doc, base, *state);
  state->arguments = parse_arguments(r, doc, axes, base);
  state->kernels = parse_kernels(r, doc, axes, compile);
  parse_reference(r, doc, base, *state);
  state->guard_zone_bytes = parse_guard_zone(r, doc);
  check_reference_points(r, doc, axes.size_names, *state);
  check_npy_files(r, doc, axes.size_names, *state);
  add_sweep_points(doc, axes.size_names, *state);
  check_globals(r, doc, axes.size_names, *state);
  add_problem(family, state);
  for (std::size_t i = 0; i < state->kernels.size(); ++i) family.variants.push_back(source_variant(r, state, i));
  return std::make_shared<const Family>(std::move(family));
}

}  // namespace occbench
