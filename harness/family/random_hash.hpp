#pragma once
// The formulas of harness/family/random, shared by the host (harness/family/random.cpp) and the GPU
// (harness/family/random_device.cu): element i of a stream depends only on (seed, i), so an input made on
// the GPU is, bit for bit, the one the host would make, and the host can recompute any element its
// reference needs without a copy of the input. Integer arithmetic, exact conversions and, on the
// GPU, operations rounded one by one (no contraction into a fused multiply-add): the GPU's float
// and double results are the host's.
#include <cstdint>

#if defined(__CUDACC__)
#define OCCBENCH_HOST_DEVICE __host__ __device__
#else
#define OCCBENCH_HOST_DEVICE
#endif

namespace occbench {

OCCBENCH_HOST_DEVICE inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The key of fill_uniform's and fill_uniform_bytes' stream for `seed`.
OCCBENCH_HOST_DEVICE inline std::uint64_t stream_key(std::uint64_t seed) { return splitmix64(seed); }

// Element i of fill_uniform(seed, low, high), key = stream_key(seed). 24 random bits: every value
// is exactly representable and uniform in [0, 1) before the scaling.
OCCBENCH_HOST_DEVICE inline float uniform_float_at(std::uint64_t key, std::uint64_t i, float low, float high) {
  float unit = float(splitmix64(key ^ i) >> 40) * (1.0f / 16777216.0f);
#if defined(__CUDA_ARCH__)
  return __fadd_rn(low, __fmul_rn(high - low, unit));
#else
  return low + (high - low) * unit;
#endif
}

// Element i of fill_uniform_bytes(seed), key = stream_key(seed).
OCCBENCH_HOST_DEVICE inline std::uint8_t uniform_byte_at(std::uint64_t key, std::uint64_t i) {
  return std::uint8_t(splitmix64(key ^ i) >> 56);
}

// unit_random(seed, stream, i): uniform in [0, 1) with 53 random bits.
OCCBENCH_HOST_DEVICE inline double unit_random_at(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  // splitmix64 adds its own increment first; subtracting it keeps the stream's earlier values.
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + i * 0xBF58476D1CE4E5B9ull + 1;
  return double(splitmix64(x - 0x9e3779b97f4a7c15ull) >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace occbench
