#pragma once
// Adjacent difference (seed 003): b[i] = a[i] - a[i-1], b[0] = a[0], float32.
#include "harness/family/registry.hpp"

#include <cstddef>

namespace occbench::adjacent_difference {

Family make_family();

// The CPU reference that every variant is checked against.
void reference(const float* a, float* b, std::size_t n);
// The seed's host loop (the `host` variant), timed on the host clock.
void host_loop(const float* a, float* b, std::size_t n);

// Elements each thread of the vectorized kernel handles: kItems float4 loads of 16 bytes.
inline constexpr int kVectorItems = 4;

}  // namespace occbench::adjacent_difference
