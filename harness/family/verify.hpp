#pragma once
// Compares a kernel's output with a reference, element by element. NaN (the poison) never passes.
#include "harness/family/registry.hpp"

#include <cstddef>

namespace occbench {

// An element passes when |out - ref| <= tolerance * max(|ref|, abs_floor). abs_floor keeps
// elements whose reference is near zero from demanding impossible relative accuracy.
// `positions[k]`, when given, is the k-th compared element's index in the output, for the message.
Verification compare_values(const float* out, const double* ref, std::size_t count, double tolerance, double abs_floor,
                            const std::size_t* positions = nullptr);
Verification compare_values(const float* out, const float* ref, std::size_t count, double tolerance, double abs_floor);

}  // namespace occbench
