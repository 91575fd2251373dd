#pragma once
// What an application declares of a kernel, once; occbench::launch's Kernel takes it (launch.hpp).
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace occbench::launch {

// One of the kernel's arguments, in its parameter order: what a capture (OCCBENCH_CAPTURE) writes.
struct ArgumentDeclaration {
  std::string name;
  // "input", "output" (written only: NaN before each verified launch of the capture), "inout" (read
  // and written: its contents before the launch kept) or "scalar".
  std::string role;
  std::string type;   // a config's: float32, float64, int32, uint32, uint8; int64 and uint64 for scalars
  std::string count;  // a buffer's elements: an expression of the sizes ("n * n")
};

struct KernelDeclaration {
  std::string source;   // the kernel's .cu file
  std::string name;     // the kernel's name (extern "C", or a name expression: "tiled<TILE>")
  std::string variant;  // its records' variant: "family/variant", or the variant's name
  // The tunable parameters and their defaults, #define lines above the source (as a config's defines).
  std::vector<std::pair<std::string, std::int64_t>> parameters;
  // The launch, as expressions of the parameters and the problem's sizes ("ceil_div(n, BLOCK)").
  std::array<std::string, 3> grid = {"1", "1", "1"}, block = {"1", "1", "1"};
  std::string dynamic_smem_bytes = "0";
  // `occbench run` results files (.json or .jsonl) of this kernel, or Kernel Launcher wisdom files (.wisdom).
  std::vector<std::string> results;
  std::vector<std::string> options;  // more NVRTC options (-I..., -D...)
  // For a capture: the kernel's arguments, the values a tuning of it tries by parameter (a
  // parameter not named is tried at its default alone) and restrictions (expressions of the
  // parameters and sizes, as a config's).
  std::vector<ArgumentDeclaration> arguments;
  std::map<std::string, std::vector<std::int64_t>> values;
  std::vector<std::string> restrictions;
};

}  // namespace occbench::launch
