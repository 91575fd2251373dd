#pragma once
// Compiles CUDA source at run time with NVRTC for one architecture, to a cubin, keeping ptxas's
// resource report (-Xptxas -v) for `occbench plan`. Each distinct compilation is cached on disk,
// keyed by the source text and the local headers it includes, the options, the name expressions,
// the architecture and NVRTC's version, so a re-run or --resume compiles nothing. A request for the
// toolkit's nvcc is built by nvcc_compiler and cached the same way.
#include "harness/compile/cubin.hpp"
#include "harness/compile/request.hpp"

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace occbench {

// The cache folder: $OCCBENCH_CACHE_DIR, else $XDG_CACHE_HOME/occbench/nvrtc, else
// ~/.cache/occbench/nvrtc, else a folder under the system's temporary directory.
std::string nvrtc_cache_dir();

std::string nvrtc_version();
// What builds the request's cubin, with its version: "nvrtc 13.0" or "nvcc 13.0".
std::string compiler_of(const NvrtcRequest& request);

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
