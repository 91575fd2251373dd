#pragma once
// What a compiler is asked for and what it gives back, shared by NVRTC (nvrtc_compiler) and the
// toolkit's nvcc (nvcc_compiler), and where the toolkit's headers are.
#include "harness/family/registry.hpp"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace occbench {

// What builds a request's cubin: NVRTC in this process (the default), or the toolkit's nvcc
// ("compile": {"compiler": "nvcc"}, harness/compile/nvcc_compiler.hpp).
enum class Compiler { nvrtc, nvcc };
// Its name in a config and in keys: "nvrtc" or "nvcc".
const char* compiler_name(Compiler compiler);

struct NvrtcRequest {
  std::string source_path;                    // for the log's "file(line): error" and local includes
  std::string source_text;
  std::vector<std::string> name_expressions;  // "tile_kernel<4>", "&d_filter": resolved to their lowered names
  std::vector<std::string> options;           // -D..., -I..., beyond the defaults below
  int arch = 90;                              // sm_90
  Compiler compiler = Compiler::nvrtc;
  // A compile-ahead worker: an entry another process is compiling is left to it (NvrtcLeftToOther)
  // instead of waited for, so that the workers and the measuring process never compile one twice.
  bool leave_claimed = false;
};

struct NvrtcResult {
  std::string cubin;                          // machine code for the architecture
  std::map<std::string, std::string> lowered; // name expression -> mangled name
  std::string log;                            // NVRTC's log, with ptxas's resource report
  std::string cache_key;                      // 16 hex digits
  std::string nvrtc_version;                  // "13.0"
  std::string compiler;                       // what built the cubin: "nvrtc 13.0" or "nvcc 13.0"
  std::vector<std::string> options;           // everything passed to NVRTC
  double compile_ms = 0;                      // the compiler's time (NVRTC's, or nvcc's); 0 on a cache hit
  double nvrtc_ms = 0;                        // the compiler's time for this entry, whoever compiled it (0: not kept)
  double waited_ms = 0;                       // waiting for another process compiling the same entry
  bool cache_hit = false;
};

// An entry another process was compiling, left to it (NvrtcRequest::leave_claimed).
class NvrtcLeftToOther : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A compilation error: what() is NVRTC's log (source file and line of each error).
class NvrtcCompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The error where `compiler` ("NVRTC", "nvcc") compiled the source but its output lacks the kernel
// or variable ("&name") a name expression names.
NvrtcCompileError name_not_found(const std::string& compiler, const std::string& source_path, const std::string& expression);

// The CUDA toolkit's include folders (CCCL's cub/thrust/libcu++ and the runtime headers):
// $CUDA_HOME or $CUDA_PATH, else the toolkit this binary was built against.
std::vector<std::string> toolkit_include_dirs();
// Where a CUDA toolkit's include folder may be, in that order: $CUDA_HOME/include,
// $CUDA_PATH/include, the toolkit this binary was built against, /usr/local/cuda/include (its
// parent holds bin/nvcc).
std::vector<std::string> toolkit_include_candidates();

}  // namespace occbench
