#pragma once
// The built-in kernel families, one folder each under kernels/: what `occbench` and its tests run
// unless a config names CUDA source of its own.
#include "harness/family/registry.hpp"

namespace occbench {

const Registry& builtin_registry();

}  // namespace occbench
