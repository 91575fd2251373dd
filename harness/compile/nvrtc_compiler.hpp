#pragma once
// Compiles CUDA source at run time with NVRTC for one architecture, to a cubin, keeping ptxas's
// resource report (-Xptxas -v) for `occbench plan`. Each distinct compilation is cached on disk,
// keyed by the source text and the local headers it includes, the options, the name expressions,
// the architecture and NVRTC's version, so a re-run or --resume compiles nothing.
#include "harness/family/registry.hpp"

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
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

// The cache folder: $OCCBENCH_CACHE_DIR, else $XDG_CACHE_HOME/occbench/nvrtc, else
// ~/.cache/occbench/nvrtc, else a folder under the system's temporary directory.
std::string nvrtc_cache_dir();

// The CUDA toolkit's include folders (CCCL's cub/thrust/libcu++ and the runtime headers):
// $CUDA_HOME or $CUDA_PATH, else the toolkit this binary was built against.
std::vector<std::string> toolkit_include_dirs();
// Where a CUDA toolkit's include folder may be, in that order: $CUDA_HOME/include,
// $CUDA_PATH/include, the toolkit this binary was built against, /usr/local/cuda/include (its
// parent holds bin/nvcc).
std::vector<std::string> toolkit_include_candidates();

std::string nvrtc_version();
// What builds the request's cubin, with its version: "nvrtc 13.0" or "nvcc 13.0".
std::string compiler_of(const NvrtcRequest& request);

// A cubin's symbols: each name, and whether it is a function (else a variable); none where it is not an ELF file.
std::vector<std::pair<std::string, bool>> cubin_symbol_names(const std::string& cubin);

// The size in bytes of the data symbol `lowered_name` (a __constant__ or __device__ variable) in a
// cubin (an ELF file), read from its symbol table; nullopt where there is no such symbol.
std::optional<std::size_t> cubin_symbol_bytes(const std::string& cubin, const std::string& lowered_name);

// What ptxas's report says of a kernel, as the cubin itself records it: registers per thread and
// stack frame (the .nv.info attributes EIATTR_REGCOUNT and EIATTR_FRAME_SIZE), static shared
// memory (the size of .nv.shared.KERNEL, less the system's `reserved_smem_bytes` per block where
// the cubin reserves it: .nv.reservedSmem). For where NVRTC's log lacks the report (seen on the
// H100 machine); spills are not recorded there. nullopt where the cubin has no such kernel.
struct CubinKernelResources {
  int registers = 0;
  std::size_t stack_frame_bytes = 0;
  std::size_t static_smem_bytes = 0;
};
std::optional<CubinKernelResources> cubin_kernel_resources(const std::string& cubin, const std::string& lowered_name,
                                                           std::size_t reserved_smem_bytes);

NvrtcResult nvrtc_compile(const NvrtcRequest& request, const std::string& cache_dir = nvrtc_cache_dir());
// NVRTC's milliseconds for a request: those its cache entry keeps (finished), or, while a live
// process compiles it, those since that process claimed it (not finished: at least this long).
struct CompileTime {
  double ms = 0;
  bool finished = false;
};

// A request's entry in the cache folder (KEY.cubin, KEY.json, KEY.lock), its key computed once:
// the key hashes the source, its headers and the options (18 us for Kernel Tuner's convolution),
// and a run asks where the next points' kernels are every few milliseconds while workers compile
// them; each look is a file's stat.
class NvrtcCacheEntry {
 public:
  explicit NvrtcCacheEntry(const NvrtcRequest& request, const std::string& cache_dir = nvrtc_cache_dir());
  // In the cache, claimed by a live process that compiles it, or neither.
  CompileState state() const;
  // None where neither time is known (not compiled, or an entry of an older occbench).
  std::optional<CompileTime> compile_time() const;

 private:
  std::filesystem::path path_;  // KEY, without an extension
};

// nvrtc_compile, once per distinct request in this process, from any thread: a second caller of
// the same request waits for the first's result (or its error) instead of compiling again. What
// compiles the sweep ahead on several threads and what takes a point's kernel meet here.
NvrtcResult nvrtc_compile_once(const NvrtcRequest& request);

// Processes that compile a sweep's kernels ahead: one per core, or $OCCBENCH_COMPILE_PROCESSES.
// Processes, not threads: NVRTC (13.0) compiles one program at a time per process, so threads
// of one process take as long as one (measured: 4 compilations, 3.73 s on one thread, 3.66 s on
// two; 8 in two processes, 3.88 s).
unsigned compile_processes();

}  // namespace occbench
