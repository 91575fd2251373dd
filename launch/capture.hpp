#pragma once
// A captured launch (OCCBENCH_CAPTURE): the kernel's declaration, the problem's sizes, its scalars'
// values and each buffer's contents before the launch (.npy), written as a config that `occbench
// run` and every search take as it is, verified against what the application's own launch left
// in its outputs. The GPU part (copying the buffers around the launch) is in launch.cpp; what is
// written, and how, is here, so that a CPU test reads it back.
#include "launch/declaration.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace occbench::launch {

// One argument of the captured launch, in the declaration's order.
struct CapturedArgument {
  std::vector<unsigned char> before;  // a buffer's contents before the launch, or a scalar's bytes
  std::vector<unsigned char> after;   // an output's (or inout's) contents after the launch
};

// What the capture says about where it came from (its config's description).
struct CaptureOrigin {
  std::string gpu_name;
  std::vector<std::pair<std::string, std::int64_t>> parameters;  // the configuration the application launched
};

// Whether `wanted` (OCCBENCH_CAPTURE: names separated by commas, each may hold `*` wildcards)
// names the kernel: its name, its variant, or the variant's last part.
bool capture_wanted(const std::string& wanted, const KernelDeclaration& d);

// Why the declaration cannot be captured ("" where it can): its arguments' names, roles and
// types, and a tuning space that holds its defaults.
std::string capture_refusal(const KernelDeclaration& d);

// Each argument's bytes at `sizes`: a buffer's count times its element's size, a scalar's size;
// nothing for a buffer declared without its count (then its allocation's, from the pointer on).
std::vector<std::optional<std::size_t>> captured_bytes(const KernelDeclaration& d, const std::map<std::string, double>& sizes);

// The element's size of a declared type (0 for a type a config does not know).
std::size_t element_bytes(const std::string& type);

// The capture's folder under `root`: the variant's last part and the sizes ("matmul_n1024").
std::string capture_directory(const std::string& root, const KernelDeclaration& d, const std::map<std::string, double>& sizes);

// Writes `directory`/config.json and one .npy per buffer (the inputs' and inouts' contents before
// the launch, the outputs' and inouts' after it, as the expected values) and returns the config's
// path. Throws std::runtime_error naming the file it could not write.
std::string write_capture(const KernelDeclaration& d, const std::map<std::string, double>& sizes,
                          const std::vector<CapturedArgument>& arguments, const CaptureOrigin& origin, const std::string& directory);

}  // namespace occbench::launch
