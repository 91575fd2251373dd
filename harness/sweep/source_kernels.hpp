#pragma once
// Inside the user-kernel family (harness/sweep/source_family.hpp), not for other modules: what a
// source config declares once read (element types, arguments and their initial values, each
// variant's kernel as expressions), the state the family's callbacks share (the NVRTC-compiled
// instances), and the problem that holds one size's buffers.
#include "harness/family/element_values.hpp"
#include "harness/family/host_hooks.hpp"
#include "harness/family/verify_device.hpp"
#include "harness/family/registry.hpp"
#include "harness/sweep/expression.hpp"
#include "harness/compile/nvrtc_compiler.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

struct ElementType {
  const char* name;  // in the config
  const char* npy;   // NumPy's descr
  std::size_t bytes;
  bool is_float;
  ElementKind kind;  // the type, for visit_element_kind
};
inline constexpr ElementType kElementTypes[] = {
    {"float32", "<f4", 4, true, ElementKind::float32},  {"float64", "<f8", 8, true, ElementKind::float64},
    {"int32", "<i4", 4, false, ElementKind::int32},     {"uint32", "<u4", 4, false, ElementKind::uint32},
    {"uint8", "|u1", 1, false, ElementKind::uint8},    {"int64", "<i8", 8, false, ElementKind::int64},
    {"uint64", "<u8", 8, false, ElementKind::uint64}};


// The type names a config may use (64-bit integers only where the role allows them).
std::vector<std::string> element_type_names(bool with_64bit_integers);
// Stores `value` as the element type at `out` (integers rounded and clamped to the type's range,
// as harness/family/element_values' to_element does on the host and the GPU); reads one back.
void store_element(const ElementType& type, double value, unsigned char* out);
double load_element(const ElementType& type, const unsigned char* in);
// What `value` must be to be stored as `type` unchanged ("a whole number in [0, 4294967295]
// (uint32)"), or "" where it is: never rounded, clamped or wrapped in silence.
std::string element_value_problem(const ElementType& type, double value);

struct Initializer {
  std::string kind = "uniform";  // uniform | normal | iota | constant | npy | host
  double low = -1, high = 1;     // uniform: [low, high) for floats, [low, high] for integers
  double mean = 0, stddev = 1;   // normal
  double start = 0, step = 1;    // iota
  double value = 0;              // constant
  std::string npy_path;          // npy
  std::string host_array;        // host: an array handed over in memory (harness/family/host_hooks.hpp)
};

// The formula of harness/family/element_values for an initializer and its type, where there is one
// (uniform, iota, constant): those inputs are made on the GPU. normal (the host's log and cos) and
// npy are made on the host and uploaded.
struct InitSpec {
  InitFormula formula;
  double a, b;
};
std::optional<InitSpec> init_spec(const Initializer& init, const ElementType& type);

struct Argument {
  std::string name, path;  // path: its JSON path in the config
  enum class Role { input, output, scalar } role = Role::input;
  const ElementType* type = nullptr;
  Expression count;  // buffers: elements, from the sizes
  Expression value;  // scalars: from the point's parameters
  // An int64 or uint64 scalar written as a whole number: its bits, exactly (an expression's
  // double holds 53; np.uint64(2**64 - 1) from Python was refused).
  std::optional<std::uint64_t> literal_bits;
  Initializer init;  // inputs
  double abs_tolerance = 0, rel_tolerance = 0;  // outputs
  bool zero_before_launch = false;              // outputs that kernels accumulate into (atomics)
  // Inputs and scalars: not a kernel parameter but the module's __constant__ or __device__
  // variable of this name, filled before the first launch of each loaded module (Kernel Tuner's
  // cmem_args); a scalar's again where its value changes.
  bool global = false;
  std::string expected_npy;                     // outputs verified against a file
  std::string expected_host;                    // ... or against an array handed over in memory
  // Outputs: element by element, or their sums (a kernel that leaves one partial result per block).
  enum class Compare { elements, sum } compare = Compare::elements;
};

struct KernelSpec {
  std::string variant, path, description;
  std::vector<std::pair<std::string, Expression>> name_parts;  // literal text, then an expression ("" for none)
  Expression grid[3], block[3], dynamic_smem;
  std::vector<std::pair<std::string, Expression>> defines;
  std::vector<std::string> options;
  Expression flops, global_bytes, dram_bytes, bytes_in_flight_per_warp;
  std::vector<std::string> axes;
  std::string host_launch;  // "launch": {"host": NAME}: grid, block, shared memory and defines from the caller
};

// The launch hook a kernel names, or nullptr.
const std::function<HostLaunch(const Params&)>* host_launch_of(const KernelSpec& k);

// What one point's kernel is compiled from besides the config's source file: its name, options,
// #define lines and, where the caller's launch gives it, the point's own code (a code generator's).
// The defines are written above the source as Kernel Tuner writes them, never passed as -D: an
// option -Dpad=1 (or x, width, size, value, type) also rewrites NVRTC's built-in headers and broke
// every compile.
struct PointCompile {
  std::string name;
  std::vector<std::string> options;
  std::vector<std::pair<std::string, std::string>> defines;
  std::optional<std::string> source;
  // What tells two compilations of one name apart: options, defines and the point's own code.
  std::string key() const;
  // The text the compiler reads: the #define lines, then the point's code or `config_source`.
  std::string text(const std::string& config_source) const;
};

// One NVRTC compilation: every kernel name of the sweep that shares its options (defines), so
// the headers are parsed once for all template instantiations.
struct Compilation {
  NvrtcResult compiled;
  cudaLibrary_t library = nullptr;  // loaded on the device on first use
  std::vector<std::pair<std::string, std::string>> defines;  // the #define lines above its source (the record's)
  bool reported = false;            // the first point reports the compilation; later ones reuse it
};

struct Instance {
  std::shared_ptr<Compilation> compilation;
  std::string name_expression;
  cudaKernel_t kernel = nullptr;
};

// Guard zones of 16 GiB: as far as an unsigned 32-bit index of 4-byte elements reaches.
constexpr std::size_t kDefaultGuardZoneBytes = std::size_t(16) << 30;

// Everything the family's callbacks share: the parsed config and the compiled kernels.
struct SourceState {
  std::string config_file, source_path, source_text;
  std::vector<std::string> include_options;  // -I of the config's include_dirs
  Compiler compiler = Compiler::nvrtc;        // $.compile.compiler
  std::vector<Argument> arguments;
  std::vector<KernelSpec> kernels;
  int reference_kernel = -1;     // index in kernels, or -1 for expected outputs (.npy files, arrays in memory, none)
  std::string host_verifier;     // "reference": {"verify": NAME}: a caller's function judges the outputs too
  Params reference_axes;         // the reference variant's launch axes
  std::shared_ptr<const AxisLabels> labels;  // the config's labelled axes (nullptr: none)
  std::size_t guard_zone_bytes = kDefaultGuardZoneBytes;  // each side of every buffer argument (0: none)
  std::map<std::string, Instance> instances;

  // The kernel's name at p: the caller's launch's name where it gives one (Kernel Tuner's
  // "vector_add<float_type>" with the point's values), else the config's with its expressions.
  std::string name_expression(const KernelSpec& k, const Params& p) const;

  // "&name" of each global argument: NVRTC's name expressions for their lowered names.
  std::vector<std::string> global_expressions() const {
    std::vector<std::string> out;
    for (const auto& a : arguments)
      if (a.global) out.push_back("&" + a.name);
    return out;
  }

  // What the kernel at p is compiled from, asking the caller's launch once.
  PointCompile compile_at(const KernelSpec& k, const Params& p) const;

  // Every point each kernel can take in this sweep (the config's values), and the reference's.
  std::vector<std::vector<Params>> sweep_points;
  // The sweep's kernel names by their options (joined), in the sweep's order, each once: the names
  // one compilation can serve. Built once from sweep_points (index_sweep_names), so finding a
  // point's group does not evaluate every other point's defines again (that made a plan or run of
  // a #define-parameterised space quadratic in its points: 30 ms a point at 3489 points).
  std::map<std::string, std::vector<std::string>> names_by_options;
  void index_sweep_names();

  // The kernel at p, compiled for sm_<arch> together with every other name of the sweep that
  // needs the same options; alone when that group does not compile (so the error is its own).
  Instance& instance(const KernelSpec& k, const Params& p, int arch);
  // Whether instance() would find the kernel here or in the compiler's cache (as a worker compiles
  // it), or would wait for the worker compiling it. The run loop asks this of the next points every
  // few milliseconds: each point's cache entry is found once (cache_entries, by instance key).
  CompileState compile_state(const KernelSpec& k, const Params& p, int arch) const;
  mutable std::map<std::string, NvrtcCacheEntry> cache_entries;
  // The NVRTC request for the kernel at p: its name and every other name of the sweep with its
  // options that is not `compiled` yet.
  NvrtcRequest request_for(const KernelSpec& k, const Params& p, int arch,
                           const std::function<bool(const std::string& name)>& compiled) const;
  // Compiles, as worker `index` of `count`, the requests the points' first instance() calls will
  // make that no process has compiled or claimed, one after another, into NVRTC's disk cache, in
  // CompileTurns' order (harness/compile/compile_order.hpp: the costliest guessed first).
  void precompile(const std::vector<std::pair<std::string, Params>>& points, int arch, unsigned index, unsigned count) const;
  // The record's compile block of an instance; the first point that uses it reports its NVRTC time.
  std::string compile_json(Instance& inst, int arch);
  // The compilation of each loaded kernel (source_launch notes it): where a launch finds the
  // module whose global variables it fills.
  std::map<const void*, const Compilation*> compilation_of_kernel;
};

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();

struct Launch {
  Dim3 grid, block;
  std::size_t dynamic_smem_bytes = 0;
};

Launch evaluate_launch(const KernelSpec& k, const Params& p);

// The architecture of the current CUDA device, or 0 where there is none (plan on a GPU-less machine).
int current_device_arch();

// The launch of kernel `k` at p: its shape, and where a GPU is, the loaded instance. `for_record`:
// the launch of a result record, which reports the compilation (the reference run reports nothing).
LaunchSpec source_launch(SourceState& state, const KernelSpec& k, const Params& p, bool for_record = true);

// One size's buffers, initial values and expected outputs (a reference variant's, or .npy files').
std::unique_ptr<Problem> make_source_problem(std::shared_ptr<SourceState> state, const Params& sizes, std::uint64_t seed);
// One launch of a source problem's kernel on `stream` (outputs that accumulate zeroed first).
void launch_source_kernel(Problem& problem, const LaunchSpec& launch, const Params& params, cudaStream_t stream);

}  // namespace occbench
