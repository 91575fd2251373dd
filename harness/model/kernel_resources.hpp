#pragma once
// Resource usage of this build's kernels for every architecture it was compiled for, as ptxas
// reported it during the build (nvcc --resource-usage, captured by cmake/capture_ptxas_resources.sh
// and embedded by cmake/gather_kernel_resources.cmake). `occbench plan` uses it to compute
// occupancy for a GPU that is not present: registers and shared memory differ by architecture, so
// the figures of the machine code for that architecture are needed, not those of the local GPU.
#include "harness/model/occupancy.hpp"

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace occbench {

// One __global__ function compiled for one architecture.
struct CompiledKernel {
  std::string mangled_name;    // as ptxas names it: "_ZN8occbench19adjacent_difference13global_kernelEPfPKfj"
  std::string name;            // demangled, without the "void " a template's mangling carries:
                               // "occbench::adjacent_difference::vectorized_kernel<4>(float*, float const*, unsigned int)"
  int arch = 0;                // 90 for sm_90, 100 for sm_100
  std::string arch_name;       // "sm_90" (as ptxas printed it; "sm_90a" keeps its suffix)
  std::string source;          // "kernels/adjacent_difference/adjacent_difference.cu"
  bool complete = false;       // ptxas's "Used ... registers" line was seen
  int registers = 0;
  int barriers = 0;
  std::size_t static_smem_bytes = 0;
  std::size_t stack_frame_bytes = 0;
  std::size_t cumulative_stack_bytes = 0;  // including the frames of the functions it calls
  std::size_t lmem_bytes = 0;              // local memory outside the stack (rare)
  std::size_t spill_store_bytes = 0, spill_load_bytes = 0;
  std::size_t cmem0_bytes = 0;

  // Per-thread local memory, as cudaFuncAttributes::localSizeBytes counts it (stack frame + lmem).
  std::size_t local_bytes_per_thread() const { return stack_frame_bytes + lmem_bytes; }
  // For the occupancy calculator. max_threads_per_block is left 0 (a __launch_bounds__ limit is
  // not in ptxas's summary; the device limit applies) and max_dynamic_smem_bytes empty (opted in).
  KernelResources resources() const;
};

class KernelLookupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KernelResourceTable {
 public:
  // `logs`: ptxas's output (the lines capture_ptxas_resources.sh keeps), one text per source file.
  // A kernel compiled in several sources appears once per architecture (the first is kept).
  static KernelResourceTable parse(const std::vector<std::pair<std::string, std::string>>& logs);
  static KernelResourceTable parse(std::string_view ptxas_text, const std::string& source = "");

  const std::vector<CompiledKernel>& kernels() const { return kernels_; }
  std::vector<int> architectures() const;  // sorted, every arch some kernel was compiled for

  // Every kernel of `arch` whose demangled name is `kernel_name`, or starts with `kernel_name`
  // followed by its parameter list: "ns::kernel<4>" matches "ns::kernel<4>(float*)" but not
  // "ns::kernel<4>x(...)". Whitespace is ignored on both sides ("<4,8u>" == "<4, 8u>").
  std::vector<const CompiledKernel*> find(std::string_view kernel_name, int arch) const;
  // Exactly one match, else KernelLookupError saying why (not compiled for `arch`, no such
  // kernel with the names closest to it, or several overloads).
  const CompiledKernel& lookup(std::string_view kernel_name, int arch) const;

 private:
  std::vector<CompiledKernel> kernels_;
};

// The table of this build (parsed once from the embedded ptxas logs).
const KernelResourceTable& built_kernel_resources();
// The build's CUDA_ARCHITECTURES with machine code ("75", "90-real": yes; "90-virtual": no), sorted;
// for "all", "all-major" or "native", the architectures ptxas compiled the kernels for.
std::vector<int> built_cuda_architectures();

// The architecture whose machine code a GPU of compute capability major.minor runs from this
// build: its own, else the newest built one of the same major version not newer than it (machine
// code runs on later minor versions). nullopt when there is none (the driver would have to JIT PTX).
std::optional<int> sass_arch_for(int major, int minor, const std::vector<int>& built_archs);

std::string arch_list_text(const std::vector<int>& archs);  // "sm_75, sm_80, sm_90"

// abi::__cxa_demangle, without a leading "void " (a function template's return type); the input
// unchanged where it is not a mangled name (extern "C" kernels).
std::string demangle_kernel_name(const std::string& mangled);

// The demangled-name match that KernelResourceTable::find uses: equal up to the parameter list,
// ignoring spaces and integer-literal suffixes (ptxas's "k<32u>" is kernel_ref's "k<32>").
bool kernel_name_matches(std::string_view demangled, std::string_view kernel_name);

namespace generated {
struct PtxasLog {
  const char* source;
  const char* text;
};
// Defined in the generated built_kernel_resources.cpp.
extern const char* const kCudaArchitectures;  // CUDA_ARCHITECTURES of occbench_kernels, ','-joined
extern const std::size_t kPtxasLogCount;
extern const PtxasLog kPtxasLogs[];
}  // namespace generated

}  // namespace occbench
