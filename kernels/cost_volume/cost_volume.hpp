#pragma once
// Cost-volume aggregation (seed 004): per pixel, the weighted average over N views of 32-channel
// features, the denominator clamped at 1e-6:
//   out[y][x][c] = sum_n w[n][y][x] * f[n][y][x][c] / max(sum_n w[n][y][x], 1e-6f)
// Layout (the seed shows its code only as screenshots; this is our reading of its text, channels
// innermost so that one thread per channel reads a warp-wide 128-byte line):
//   features  float32 [views][height][width][32]
//   weights   float32 [views][height][width]
//   out       float32 [height][width][32]
#include "harness/family/random_hash.hpp"
#include "harness/family/registry.hpp"

#include <cstddef>
#include <cstdint>

namespace occbench::cost_volume {

Family make_family();

inline constexpr int kChannels = 32;             // fixed in the seed
inline constexpr float kMinDenominator = 1e-6f;  // the seed's clamp
inline constexpr int kMaxViews = 128;
inline constexpr int kMaxBlockPixels = 32;  // 32 channels x 32 pixels = 1024 threads
// Every kTinyWeightStride-th pixel gets weights below 5e-9 in every view, so its denominator
// (< 128 * 5e-9 < 1e-6) is clamped: the clamp is exercised by every problem.
inline constexpr std::size_t kTinyWeightStride = 61;

// Reproducible inputs, element i depending only on (seed, i): features uniform in [-1, 1); weights
// uniform in [0, 1) except the clamp-exercising pixels above. The problem makes them on the GPU
// with these formulas; the host recomputes what its reference needs, so the features (1.3 GB at 32
// views of 640 x 480) are never made on the host nor uploaded.
inline std::uint64_t feature_key(std::uint64_t seed) { return stream_key(seed); }
inline std::uint64_t weight_key(std::uint64_t seed) { return stream_key(seed ^ 0x5eed); }
OCCBENCH_HOST_DEVICE inline float feature_at(std::uint64_t key, std::size_t index) {
  return uniform_float_at(key, index, -1.0f, 1.0f);
}
// index = view * pixels + pixel.
OCCBENCH_HOST_DEVICE inline float weight_at(std::uint64_t key, std::size_t pixels, std::size_t index) {
  float w = uniform_float_at(key, index, 0.0f, 1.0f);
  if ((index % pixels) % kTinyWeightStride != 0) return w;
#if defined(__CUDA_ARCH__)
  return __fmul_rn(w, 5e-9f);
#else
  return w * 5e-9f;
#endif
}
void fill_features(float* features, std::size_t count, std::uint64_t seed);
void fill_weights(float* weights, int views, std::size_t pixels, std::uint64_t seed);

// The CPU reference in double precision (the clamp compared against double(1e-6f), the kernels' value).
void reference(const float* features, const float* weights, double* out, int views, std::size_t pixels);
// The same reference over the inputs of `seed`, each recomputed from its formula where it is
// needed (no copy of the inputs), on all host cores: for pixels [first_pixel, first_pixel + count)
// of an image of `pixels`, into out[(p - first_pixel) * 32 + c]. The problem computes the whole
// reference on the GPU with the same operations in the same order (rounded one by one) and checks
// pixels of it against this, which must agree bit for bit.
void reference_from_seed(std::uint64_t seed, double* out, int views, std::size_t pixels, std::size_t first_pixel,
                         std::size_t count);

// Relative tolerance with an absolute floor of 1 (outputs are weighted averages of values in
// [-1, 1)): a float32 sum of `views` terms is within about 2 (views + 1) 2^-24 of the exact one,
// divided by the denominator's relative error; twice that bound, and never below 1e-6.
double tolerance(int views);

// Dynamic shared memory of the shared kernel: per pixel in flight, views weights + views x 32 features.
std::size_t shared_bytes(int views, int block_pixels);

// Work models. FLOPs per output element, as each thread computes it: views multiply-adds (2 each),
// views adds for the denominator, one division: 3 * views + 1. dram_bytes: features, weights read once,
// output written once: pixels * (views * (32 + 1) + 32) * 4.
// global: every thread (one per pixel and channel) loads views weights and views features, stores 1.
WorkModel global_work(std::int64_t width, std::int64_t height, int views);
// shared: per pixel, views weights (once, by views lanes) + views x 32 features staged, 32 stores.
WorkModel shared_work(std::int64_t width, std::int64_t height, int views);

}  // namespace occbench::cost_volume
