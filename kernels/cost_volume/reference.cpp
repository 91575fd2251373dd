#include "kernels/cost_volume/cost_volume.hpp"

#include "harness/core/parallel.hpp"

#include <algorithm>

namespace occbench::cost_volume {

void fill_features(float* features, std::size_t count, std::uint64_t seed) {
  const std::uint64_t key = feature_key(seed);
  parallel_for(count, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) features[i] = feature_at(key, i);
  });
}

void fill_weights(float* weights, int views, std::size_t pixels, std::uint64_t seed) {
  const std::uint64_t key = weight_key(seed);
  parallel_for(std::size_t(views) * pixels, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) weights[i] = weight_at(key, pixels, i);
  });
}

namespace {

// One pixel's 32 outputs from its views' weights and features, as weight(n) and feature(n, c) give them.
template <typename Weight, typename Feature>
void reference_pixel(int views, double* out, Weight&& weight, Feature&& feature) {
  double num[kChannels] = {};
  double den = 0;
  for (int n = 0; n < views; ++n) {
    double w = weight(n);
    den += w;
    for (int c = 0; c < kChannels; ++c) num[c] += w * double(feature(n, c));
  }
  den = std::max(den, double(kMinDenominator));
  for (int c = 0; c < kChannels; ++c) out[c] = num[c] / den;
}

// Pixels split over the host cores; small problems on the calling thread.
std::size_t serial_below_pixels(int views) { return std::max<std::size_t>(1, (std::size_t(1) << 18) / std::size_t(views)); }

}  // namespace

void reference(const float* features, const float* weights, double* out, int views, std::size_t pixels) {
  parallel_for(pixels, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t p = begin; p < end; ++p)
      reference_pixel(
          views, out + p * kChannels, [&](int n) { return weights[std::size_t(n) * pixels + p]; },
          [&](int n, int c) { return features[(std::size_t(n) * pixels + p) * kChannels + c]; });
  }, serial_below_pixels(views));
}

void reference_from_seed(std::uint64_t seed, double* out, int views, std::size_t pixels, std::size_t first_pixel,
                         std::size_t count) {
  const std::uint64_t fkey = feature_key(seed), wkey = weight_key(seed);
  parallel_for(count, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t p = first_pixel + k;
      reference_pixel(
          views, out + k * kChannels, [&](int n) { return weight_at(wkey, pixels, std::size_t(n) * pixels + p); },
          [&](int n, int c) { return feature_at(fkey, (std::size_t(n) * pixels + p) * kChannels + c); });
    }
  }, serial_below_pixels(views));
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
  WorkModel w = model(width, height, views, kChannels * (8.0 * views + 4));
  // In flight per warp, as written: one view's 128-byte feature line and its broadcast weight
  // (one 32-byte sector) before the multiply-add uses them. A compiler that unrolls the views loop
  // keeps more in flight, so the knee this predicts is an upper bound.
  w.bytes_in_flight_per_warp = 128 + 32;
  return w;
}

WorkModel shared_work(std::int64_t width, std::int64_t height, int views) {
  // Per pixel: views weights once + views x 32 features + 32 stores, 4 bytes each.
  return model(width, height, views, 4.0 * (views + kChannels * double(views) + kChannels));
}

}  // namespace occbench::cost_volume
