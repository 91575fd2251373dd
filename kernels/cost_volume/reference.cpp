#include "kernels/cost_volume/cost_volume.hpp"

#include "harness/random.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace occbench::cost_volume {

void fill_features(float* features, std::size_t count, std::uint64_t seed) { fill_uniform(features, count, seed, -1.0f, 1.0f); }

void fill_weights(float* weights, int views, std::size_t pixels, std::uint64_t seed) {
  fill_uniform(weights, std::size_t(views) * pixels, seed ^ 0x5eed, 0.0f, 1.0f);
  for (int n = 0; n < views; ++n)
    for (std::size_t p = 0; p < pixels; p += kTinyWeightStride) weights[std::size_t(n) * pixels + p] *= 5e-9f;
}

void reference(const float* features, const float* weights, double* out, int views, std::size_t pixels) {
  auto rows = [&](std::size_t begin, std::size_t end) {
    for (std::size_t p = begin; p < end; ++p) {
      double num[kChannels] = {};
      double den = 0;
      for (int n = 0; n < views; ++n) {
        double w = weights[std::size_t(n) * pixels + p];
        const float* f = features + (std::size_t(n) * pixels + p) * kChannels;
        den += w;
        for (int c = 0; c < kChannels; ++c) num[c] += w * double(f[c]);
      }
      den = std::max(den, double(kMinDenominator));
      for (int c = 0; c < kChannels; ++c) out[p * kChannels + c] = num[c] / den;
    }
  };
  unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 16u));
  if (pixels * std::size_t(views) < (std::size_t(1) << 18)) threads = 1;
  std::vector<std::thread> pool;
  std::size_t chunk = (pixels + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    std::size_t begin = t * chunk, end = std::min(pixels, begin + chunk);
    if (begin >= end) break;
    pool.emplace_back(rows, begin, end);
  }
  for (auto& thread : pool) thread.join();
}

double tolerance(int views) { return std::max(1e-6, 4.0 * (views + 2) / 16777216.0); }

std::size_t shared_bytes(int views, int block_pixels) {
  return std::size_t(block_pixels) * std::size_t(views) * (kChannels + 1) * sizeof(float);
}

namespace {

WorkModel model(std::int64_t width, std::int64_t height, int views, double global_bytes_per_pixel) {
  const double pixels = double(width) * double(height), n = double(views);
  WorkModel w;
  w.flops = pixels * kChannels * (3 * n + 1);
  w.global_bytes = pixels * global_bytes_per_pixel;
  w.dram_bytes = pixels * (n * (kChannels + 1) + kChannels) * 4;
  return w;
}

}  // namespace

WorkModel global_work(std::int64_t width, std::int64_t height, int views) {
  // 32 threads per pixel, each: views weights + views features + 1 store, 4 bytes each.
  return model(width, height, views, kChannels * (8.0 * views + 4));
}

WorkModel shared_work(std::int64_t width, std::int64_t height, int views) {
  // Per pixel: views weights once + views x 32 features + 32 stores, 4 bytes each.
  return model(width, height, views, 4.0 * (views + kChannels * double(views) + kChannels));
}

}  // namespace occbench::cost_volume
