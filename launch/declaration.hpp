#pragma once
// What an application declares of a kernel, once; occbench::launch's Kernel takes it (launch.hpp).
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace occbench::launch {

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
};

}  // namespace occbench::launch
