#pragma once
// The toolkit's nvcc instead of NVRTC ("compile": {"compiler": "nvcc"}): the same source and
// options, built as a CMake project's build builds it. The code differs: nvcc's front end gives
// NVVM 32-bit shared-memory addresses where NVRTC's gives 64-bit ones, and on heavily unrolled
// kernels nvcc's optimizer takes about 0.7x NVRTC's CPU time (results/reference/h200/search/
// batches/README.md); a small kernel costs nvcc's start, about 0.3 s. nvrtc_compile caches either
// (nvrtc_compiler.hpp); this file knows nothing of the cache.
#include "harness/compile/request.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

// What the toolkit's nvcc built: the cubin, nvcc's output (ptxas's report with -Xptxas -v), and
// each name expression's symbol in the cubin.
struct NvccOutput {
  std::string cubin;
  std::string log;
  std::map<std::string, std::string> lowered;
};

// Compiles `request` with nvcc and `options` (NVRTC's spelling, which nvcc also reads) to a cubin
// in a scratch folder of its own. Throws NvrtcCompileError with nvcc's messages (naming the
// request's source file) where nvcc fails or a name expression has no symbol in the cubin.
NvccOutput nvcc_compile_program(const NvrtcRequest& request, const std::vector<std::string>& options);

// The nvcc beside the first toolkit_include_candidates() folder that has one ($CUDA_HOME/bin,
// $CUDA_PATH/bin, the toolkit this binary was built against, /usr/local/cuda/bin), else "nvcc"
// from PATH (nvcc_version says whether it runs).
std::string nvcc_path();
// Where nvcc_path looks, as messages name it.
inline constexpr const char* kNvccPlaces = "$CUDA_HOME/bin, $CUDA_PATH/bin, the toolkit's bin and PATH";
// "13.0" (nvcc --version's release), or "" where there is no nvcc.
std::string nvcc_version();

// A name expression's symbol among a cubin's: `symbols` (name, is a function) as the cubin's
// symbol table lists them. A variable ("&d_filter") or an extern "C" kernel by its own name, else
// by the demangled name without return type and parameters ("tile_kernel<4>"), spaces ignored.
std::optional<std::string> lowered_name_among(const std::string& expression,
                                               const std::vector<std::pair<std::string, bool>>& symbols);

}  // namespace occbench
