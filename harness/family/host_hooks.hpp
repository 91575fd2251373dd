#pragma once
// What a program that embeds occbench (the Python package, python/occbench) hands the engine in
// memory, by name, for a config to name with "host": arrays (inputs, outputs' starting values,
// expected outputs), a kernel's launch computed by the caller, conditions on a point
// (restrictions written as functions), verification functions, and how to start a child process
// that shares this memory (a fork that keeps the interpreter sound). The command line registers
// nothing: a config that names a host item there is refused, naming it.
#include "harness/family/registry.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

// A caller's array: NumPy's type descriptor ("<f4") and elements, not copied: it lives as long as the run.
struct HostArray {
  std::string dtype;
  std::size_t count = 0;
  const void* data = nullptr;
};

// A kernel's launch at a point, as the caller computes it (Kernel Tuner's grid_div, problem_size
// and block_size_names), with the macros its source is compiled with and, where the caller
// makes them per point, the kernel's name and code.
struct HostLaunch {
  Dim3 grid, block;
  std::size_t dynamic_smem_bytes = 0;
  std::vector<std::pair<std::string, std::string>> defines;  // "#define name value" lines, in order
  std::string kernel_name;                                     // "vector_add<float>"; empty: the config's
  std::optional<std::string> source;                           // a code generator's text; none: the config's file
};

// An output as the kernel left it, copied to the host for a verification function.
struct HostOutput {
  std::string name, dtype;
  std::size_t count = 0;
  const void* data = nullptr;
};

// A verification function's answer: passed or not, and what it says (the record's detail).
struct HostVerdict {
  bool passed = false;
  std::string detail;
};

struct HostHooks {
  std::map<std::string, HostArray> arrays;
  std::map<std::string, std::function<HostLaunch(const Params&)>> launches;
  std::map<std::string, std::function<bool(const Params&)>> conditions;
  // Called with every output argument, in the kernel's parameter order.
  std::map<std::string, std::function<HostVerdict(const std::vector<HostOutput>&)>> verifiers;
  // Where the outputs of a launch go when the caller asks for them (run_kernel): by argument name,
  // memory the caller can read after the child that ran it is gone.
  std::map<std::string, void*> captures;
  // Told each point's record (one JSON line) as soon as it is written to the run's .jsonl, by the
  // process that writes it (the measuring child, or the supervisor for a point whose child died):
  // the caller keeps its own file as complete as the run's (Kernel Tuner's cache, appended per
  // configuration).
  std::function<void(const std::string& record)> record_written;
  // The caller's per-point observers (Kernel Tuner's BenchmarkObserver subclasses): told a point's
  // parameters before its samples and each gap between samples, then asked for their results, a
  // JSON object that becomes the record's "observers" section (harness/measure/host_observer.hpp).
  std::function<void(const Params&)> observe_before;
  std::function<void()> observe_between;
  std::function<std::string()> observe_after;
  // How a supervised run starts its children in an embedding program: `spawn` starts a process
  // that runs `child` and exits with its code, returning its pid (-1 on failure); `command` is
  // the occbench command line ({"occbench", "run", ...}) run in that child. Unset: fork and exec
  // this program (the occbench command).
  std::function<int(const std::function<int()>& child)> spawn;
  std::function<int(const std::vector<std::string>& argv)> command;
  // Set in a process whose children are forks (no exec): the CUDA driver does not survive a fork,
  // so that process must not initialize it (the GPU's architecture is then unknown there, as in plan).
  bool keep_cuda_out = false;
  void clear() { *this = HostHooks{}; }
};

// The process's one set of hooks.
HostHooks& host_hooks();

// The array registered under `name`, or nullptr.
const HostArray* find_host_array(const std::string& name);
// What a config's "host" name must be, for its messages: "one of the arrays handed over in memory
// (a, b, c)" or "...: none was (host items come from the Python package, occbench.tune_kernel)".
std::string host_names_expected(const char* what, const std::vector<std::string>& names);
template <typename Map>
std::vector<std::string> host_keys(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& item : map) keys.push_back(item.first);
  return keys;
}

}  // namespace occbench
