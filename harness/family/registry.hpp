#pragma once
// What a kernel family declares: its size axes, its variants with their launch axes, launch
// configuration, work model and run function, and how to build a problem (random inputs, poisoned
// outputs, CPU reference). The harness drives everything else; nothing switches on variant names.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace occbench {

// A value of a labelled axis: a config axis whose values are not all integers (strings, floats,
// booleans: "float_type": ["float", "double", "half"]), as Kernel Tuner's parameters may be. The
// engine's value is the label's position in its axis; the kernel, the ids and the records see
// the label.
struct ParamLabel {
  std::string json;        // as JSON: "\"double\"", "0.5", "true"
  std::string text;        // in #define lines, kernel names and point ids: double, 0.5, true
  double number = 0;       // in expressions: the float; 1 or 0; a string's string_number
  bool is_string = false;
};
// Each labelled axis's labels, by axis name (a family's, shared by its points' Params).
using AxisLabels = std::map<std::string, std::vector<ParamLabel>, std::less<>>;

// A string's stand-in in expressions: a whole number below 2^53 (exact in a double) from its
// hash, so that "float_type == 'half'" compares strings; order and arithmetic mean nothing.
double string_number(std::string_view text);

// Parameter values of one point, in declaration order (sizes first, then launch axes).
class Params {
 public:
  void set(const std::string& name, std::int64_t value);
  bool has(std::string_view name) const;
  std::int64_t get(std::string_view name) const;  // throws std::out_of_range naming the axis
  const std::vector<std::pair<std::string, std::int64_t>>& items() const { return items_; }
  std::string to_string() const;  // "n=16777216 block_size=256 float_type=double"
  bool operator==(const Params& other) const { return items_ == other.items_; }

  // Labelled axes (ParamLabel): their labels; without, every value is the integer it is.
  void set_labels(std::shared_ptr<const AxisLabels> labels) { labels_ = std::move(labels); }
  const std::shared_ptr<const AxisLabels>& labels() const { return labels_; }
  const ParamLabel* label(std::string_view name) const;  // nullptr: an integer axis (or not set)
  std::string text(std::string_view name) const;         // the label's text, else the integer
  std::string json_text(std::string_view name) const;    // the label's JSON, else the integer
  double number(std::string_view name) const;            // what an expression reads
  // The value whose text() is `text` (a point id's part), or nullopt.
  std::optional<std::int64_t> value_of_text(std::string_view name, const std::string& text) const;

 private:
  std::vector<std::pair<std::string, std::int64_t>> items_;
  std::shared_ptr<const AxisLabels> labels_;
};

// One sweepable parameter and the values it may take.
struct Axis {
  std::string name;
  std::string description;
  std::vector<std::int64_t> legal_values;  // when non-empty, the value must be one of these
  std::int64_t min = 1;
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
  std::int64_t multiple_of = 1;
  std::optional<std::int64_t> default_value;  // used when a config gives the axis no values
  std::vector<ParamLabel> labels;             // a labelled axis (values: positions in it); empty: integers

  std::string check(std::int64_t value) const;  // "" when legal, else what was expected
  std::string describe_legal() const;           // "one of [2, 4, 8]" / "a multiple of 32 in [32, 1024]"
};

// The axes' names, in order.
std::vector<std::string> axis_names(const std::vector<Axis>& axes);

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t(x) * y * z; }
};

// Blocks of `per_block` work items each that cover `items` work items: at least one block, so a
// launch whose kernel also handles a remainder (or an empty main part) still runs.
inline unsigned blocks_for(std::int64_t items, std::int64_t per_block) {
  std::int64_t blocks = (items + per_block - 1) / per_block;
  return unsigned(blocks < 1 ? 1 : blocks);
}

// A __global__ function and its demangled name, both from the one template argument, so the name
// `plan` looks up cannot drift from the function that is launched:
//   l.set_kernel(kernel_ref<&global_kernel>());  l.set_kernel(kernel_ref<&tiled_kernel<32>>());
// The name is the host compiler's spelling of the template argument ("ns::k<32>" where ptxas
// demangles "ns::k<32u>"); kernel_name_matches (harness/model/kernel_resources.hpp) reads them alike.
struct KernelRef {
  const void* function = nullptr;
  std::string name;  // "occbench::adjacent_difference::vectorized_kernel<4>"
};

// The template argument's name in the __PRETTY_FUNCTION__ of occbench_kernel_signature
// ("... [with auto Kernel = ns::k<4>]").
std::string kernel_name_in_signature(std::string_view pretty_function);

template <auto Kernel>
KernelRef kernel_ref();

}  // namespace occbench

// At global scope: inside a namespace, gcc prints the argument relative to it ("adjacent_difference::k"
// from within occbench), and the lookup needs the fully qualified name.
template <auto Kernel>
const char* occbench_kernel_signature() {
  return __PRETTY_FUNCTION__;
}

namespace occbench {

template <auto Kernel>
KernelRef kernel_ref() {
  static_assert(std::is_pointer_v<decltype(Kernel)>, "kernel_ref takes the kernel's address: kernel_ref<&my_kernel>()");
  return {reinterpret_cast<const void*>(Kernel), kernel_name_in_signature(::occbench_kernel_signature<Kernel>())};
}

struct LaunchSpec {
  Dim3 grid;
  Dim3 block;
  std::size_t dynamic_smem_bytes = 0;
  // The __global__ function, for cudaFuncGetAttributes and the occupancy API. nullptr where the
  // variant is host code or a library call with no single kernel of ours.
  const void* kernel = nullptr;
  // Demangled name prefix of that kernel ("occbench::adjacent_difference::global_kernel"), which
  // `plan` uses to find its compiled resource usage for other architectures.
  std::string kernel_name;
  // Source-defined kernels (harness/sweep/source_family): the result record's "compile" block (source,
  // kernel, options, architecture, compile time, cache hit) as JSON text; empty for built-ins.
  std::string compile_json;

  void set_kernel(const KernelRef& k) {
    kernel = k.function;
    kernel_name = k.name;
  }
};

// A source-defined kernel compiled for one architecture without a GPU, for `occbench plan`.
struct CompiledSource {
  std::string ptxas_log;     // ptxas's own resource report of that compilation (-Xptxas -v)
  std::string mangled_name;  // the entry function to read from it
  std::string compile_json;  // as LaunchSpec::compile_json
  std::string cubin;         // the compiled code, where the log lacks the report
  std::string compiler = "NVRTC";  // what compiled it, as plan's resources.from names it ("nvcc 13.0")
};

// Work of one launch, from the family's model, in FLOPs (a multiply-add counts 2) and bytes.
struct WorkModel {
  double flops = 0;             // useful floating-point operations
  double global_bytes = 0;      // global-memory bytes the kernel issues (loads + stores), for CGMA
  double dram_bytes = 0;        // minimal DRAM traffic: each input read once, each output written once
  double equivalent_flops = 0;  // FLOPs of the full naive computation where a variant skips work (0: same as flops)
  // DRAM bytes one warp keeps in flight (its independent loads before the first is used), for the
  // Little's-law occupancy model (harness/model/occupancy_model.hpp); 0: not modelled.
  double bytes_in_flight_per_warp = 0;
};

struct Verification {
  std::string status = "skipped";  // "passed" | "failed" | "skipped"
  double max_rel_error = 0;
  double tolerance = 0;
  std::uint64_t checked = 0;     // elements compared
  std::uint64_t mismatches = 0;  // elements over tolerance (NaN counts as a mismatch)
  std::string detail;            // first mismatch, for the failure message
  std::string out_of_bounds;     // writes found outside the buffers (in guard zones); empty if none
  std::string guard_zones;       // user kernels: the guard zones around the buffers, or why there are none
};

// One family's data at one problem size: inputs (random, never zeros), outputs, CPU reference.
class Problem {
 public:
  virtual ~Problem() = default;
  // Fill every output with NaN so an element the kernel never wrote cannot pass.
  virtual void poison_outputs() = 0;
  // Compare the outputs with the CPU reference (computed once per problem, then reused).
  virtual Verification verify() = 0;
};

enum class Executor {
  device,  // timed with cudaEvents on a stream
  host,    // CPU code, timed with the host clock
};

// Where a point's kernel is in its compilation: compiled (in this process or the compiler's disk
// cache), being compiled by another process (a compile worker holds its claim), or neither.
enum class CompileState { compiled, compiling_elsewhere, not_compiled };

struct Variant {
  std::string name;
  std::string description;
  Executor executor = Executor::device;
  std::vector<Axis> axes;  // launch axes this variant accepts (block_size, chunk_size, ...)
  std::string notes;       // recorded with every result (e.g. a library's math mode)

  std::function<LaunchSpec(const Params&)> launch;  // grid, block, shared memory, kernel
  std::function<WorkModel(const Params&)> work;
  // Runs once: launches (device) or computes (host). Must not synchronize the device.
  std::function<void(Problem&, const Params&, const LaunchSpec&, cudaStream_t)> run;
  // Optional: reasons this point is illegal beyond the axes' own rules ("" when fine).
  std::function<std::string(const Params&)> check;
  // Source-defined kernels only: compiles the point's kernel for sm_<arch> (NVRTC, no GPU needed).
  std::function<CompiledSource(const Params&, int arch)> compile;
  // Source-defined kernels only: where the point's kernels for this process's GPU are in their
  // compilation (CompileState), so that a run measures first what waits for no compiler.
  std::function<CompileState(const Params&)> compile_state;

  const Axis* find_axis(std::string_view axis_name) const;
};

struct Family {
  std::string name;
  std::string description;
  std::vector<Axis> size_axes;
  std::vector<Variant> variants;
  // Optional: reasons these sizes are illegal (e.g. 32-bit index overflow); "" when fine.
  std::function<std::string(const Params& sizes)> check_sizes;
  std::function<std::unique_ptr<Problem>(const Params& sizes, std::uint64_t seed)> make_problem;
  // Device memory the problem needs, for planning and early skips.
  std::function<std::uint64_t(const Params& sizes)> device_bytes;
  // Launch axes whose value changes the expected output (stencil's filter_size): the problem keeps
  // one reference per value, so run --devices hands out a value's points together.
  std::vector<std::string> reference_axes;
  // Optional: compiles the kernels of these points (variant, params) for sm_<arch> ahead, into
  // the compiler's disk cache, so that taking each point's kernel later waits for no compiler (a
  // family of the user's own CUDA source, compiled at run time): as worker `index` of `count`
  // processes, each taking the next kernel no other has taken.
  std::function<void(const std::vector<std::pair<std::string, Params>>& points, int arch, unsigned index, unsigned count)>
      precompile;
  // The labelled axes of a family of the user's own source (nullptr: none); every Params of its
  // points carries them (empty_params).
  std::shared_ptr<const AxisLabels> labels;

  const Variant* find_variant(std::string_view variant_name) const;
  const Axis* find_size_axis(std::string_view axis_name) const;
  Params empty_params() const;  // no values yet, the family's labels
  std::vector<std::string> variant_names() const;
};

class Registry {
 public:
  void add(Family family);  // throws std::logic_error on a duplicate name
  const Family* find(std::string_view family_name) const;
  const std::vector<Family>& families() const { return families_; }
  std::vector<std::string> family_names() const;

 private:
  std::vector<Family> families_;
};

}  // namespace occbench
