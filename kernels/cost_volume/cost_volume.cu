// Cost-volume aggregation (seed 004): a per-pixel weighted average over views. Nothing a thread
// stages in shared memory is read by another thread except the weights (each used by the 32 channel
// threads of its pixel), and the global kernel gets that reuse for free: the 32 lanes of a warp read
// the same weight address, one broadcast transaction. So the shared tile adds a copy and two barriers
// per pixel, and the seed's one block of 32 threads per image row leaves most of the GPU idle.
#include "kernels/cost_volume/cost_volume.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/family/device_buffer.hpp"
#include "harness/family/family_builder.hpp"
#include "harness/family/random_device.hpp"
#include "harness/family/verify_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace occbench::cost_volume {

// One thread per (pixel, channel): a warp is one pixel's 32 channels, so each feature load is one
// 128-byte line and each weight load is one broadcast address.
__global__ void global_kernel(const float* __restrict__ features, const float* __restrict__ weights,
                              float* __restrict__ out, int views, unsigned pixels) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= std::size_t(pixels) * kChannels) return;
  const std::size_t p = i / kChannels;
  float num = 0.0f, den = 0.0f;
  for (int n = 0; n < views; ++n) {
    const float w = weights[std::size_t(n) * pixels + p];
    num += w * features[std::size_t(n) * pixels * kChannels + i];
    den += w;
  }
  out[i] = num / fmaxf(den, kMinDenominator);
}

// The seed's layout: one block per image row, one thread per channel (threadIdx.x), walking along
// the row. blockDim.y = block_pixels pixels are in flight per step (the seed: 1). Each step stages
// the pixels' weights and features in shared memory, synchronises, computes, synchronises again
// before the next step overwrites the stage.
__global__ void shared_kernel(const float* __restrict__ features, const float* __restrict__ weights,
                              float* __restrict__ out, int views, int width, int height) {
  extern __shared__ float stage[];
  const int c = threadIdx.x;
  const int slot = threadIdx.y;
  float* s_weights = stage + std::size_t(slot) * views * (kChannels + 1);  // views weights
  float* s_features = s_weights + views;                                     // views x 32 features
  const std::size_t plane = std::size_t(width) * height;
  const std::size_t row = std::size_t(blockIdx.x) * width;

  for (int x0 = 0; x0 < width; x0 += blockDim.y) {
    const int x = x0 + slot;
    const bool valid = x < width;
    const std::size_t p = row + x;
    if (valid) {
      for (int n = c; n < views; n += kChannels) s_weights[n] = weights[std::size_t(n) * plane + p];
      for (int n = 0; n < views; ++n) s_features[n * kChannels + c] = features[(std::size_t(n) * plane + p) * kChannels + c];
    }
    __syncthreads();
    if (valid) {
      float num = 0.0f, den = 0.0f;
      for (int n = 0; n < views; ++n) {
        const float w = s_weights[n];
        num += w * s_features[n * kChannels + c];
        den += w;
      }
      out[p * kChannels + c] = num / fmaxf(den, kMinDenominator);
    }
    __syncthreads();
  }
}

namespace {

// The inputs of harness/cost_volume.hpp's formulas, made on the GPU.
__global__ void fill_inputs_kernel(float* __restrict__ features, float* __restrict__ weights, std::size_t weight_count,
                                   std::size_t pixels, std::uint64_t fkey, std::uint64_t wkey) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < weight_count * kChannels; i += stride) {
    features[i] = feature_at(fkey, i);
    if (i < weight_count) weights[i] = weight_at(wkey, pixels, i);
  }
}

// The double-precision reference on the GPU, from the input formulas (never reading the input
// buffers): reference_from_seed's operations in its order, each rounded on its own (no fused
// multiply-add), so every element equals the host's bit for bit. On the H100's host the reference
// and its upload cost a sweep of five sizes 0.5 s, as much as its timed samples.
__global__ void reference_kernel(double* __restrict__ reference, int views, std::size_t pixels, std::uint64_t fkey,
                                 std::uint64_t wkey) {
  const std::size_t count = pixels * kChannels;
  for (std::size_t o = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; o < count; o += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t p = o / kChannels, c = o % kChannels;
    double num = 0, den = 0;
    for (int n = 0; n < views; ++n) {
      const double w = weight_at(wkey, pixels, std::size_t(n) * pixels + p);
      den = __dadd_rn(den, w);
      num = __dadd_rn(num, __dmul_rn(w, double(feature_at(fkey, (std::size_t(n) * pixels + p) * kChannels + c))));
    }
    reference[o] = __ddiv_rn(num, fmax(den, double(kMinDenominator)));
  }
}

class CostVolumeProblem : public Problem {
 public:
  CostVolumeProblem(int views, int width, int height, std::uint64_t seed)
      : views_(views), width_(width), height_(height), pixels_(std::size_t(width) * height),
        features_(pixels_ * views * kChannels), weights_(pixels_ * views), out_(pixels_ * kChannels),
        reference_(pixels_ * kChannels) {
    const std::size_t weight_count = pixels_ * views;
    fill_inputs_kernel<<<grid_stride_blocks(weight_count * kChannels), kGridStrideThreads>>>(
        features_.get(), weights_.get(), weight_count, pixels_, feature_key(seed), weight_key(seed));
    OCCBENCH_CHECK_LAUNCH();
    guard_fill(seed);
    reference_kernel<<<grid_stride_blocks(reference_.size()), kGridStrideThreads>>>(reference_.get(), views, pixels_,
                                                                                   feature_key(seed), weight_key(seed));
    OCCBENCH_CHECK_LAUNCH();
    audit_reference(seed);
  }

  void poison_outputs() override { out_.poison(); }

  Verification verify() override {
    return compare_on_device(out_.get(), reference_.get(), reference_.size(), tolerance(views_), 1.0);
  }

  int views() const { return views_; }
  int width() const { return width_; }
  int height() const { return height_; }
  unsigned pixels() const { return unsigned(pixels_); }
  const float* features() const { return features_.get(); }
  const float* weights() const { return weights_.get(); }
  float* out() { return out_.get(); }

 private:
  // The first elements of each input against the host's formulas (harness/family/random_device).
  void guard_fill(std::uint64_t seed) {
    const std::uint64_t fkey = feature_key(seed), wkey = weight_key(seed);
    std::string difference = first_fill_difference(features_.get(), features_.size(), [&](std::size_t i) { return feature_at(fkey, i); });
    if (difference.empty())
      difference = first_fill_difference(weights_.get(), weights_.size(), [&](std::size_t i) { return weight_at(wkey, pixels_, i); });
    if (!difference.empty()) throw std::runtime_error("cost_volume inputs: " + difference);
  }

  // The GPU reference against the host's (reference_from_seed) at kAuditStrips runs of
  // kAuditPixels pixels spread over the image (the first holds pixel 0, a clamped one): bit for bit.
  static constexpr std::size_t kAuditStrips = 16, kAuditPixels = 16;
  void audit_reference(std::uint64_t seed) {
    const std::size_t run = std::min(kAuditPixels, pixels_);
    std::vector<double> host(run * kChannels), device(run * kChannels);
    for (std::size_t strip = 0; strip < kAuditStrips; ++strip) {
      const std::size_t first = (pixels_ - run) * strip / (kAuditStrips - 1);
      reference_from_seed(seed, host.data(), views_, pixels_, first, run);
      OCCBENCH_CUDA_CHECK(cudaMemcpy(device.data(), reference_.get() + first * kChannels, device.size() * sizeof(double),
                                     cudaMemcpyDeviceToHost));
      for (std::size_t k = 0; k < host.size(); ++k)
        if (std::memcmp(&host[k], &device[k], sizeof(double)) != 0)
          throw std::runtime_error(fmt::format("cost_volume reference: the GPU's differs from the host's at pixel {} channel "
                                               "{} ({:.17g} against {:.17g})",
                                               first + k / kChannels, k % kChannels, device[k], host[k]));
    }
  }

  int views_, width_, height_;
  std::size_t pixels_;
  DeviceBuffer<float> features_, weights_, out_;
  DeviceBuffer<double> reference_;
};


}  // namespace

Family make_family() {
  return FamilyBuilder("cost_volume",
                       "cost-volume aggregation (seed 004): per pixel, the weighted average over N views of 32-channel "
                       "features, denominator clamped at 1e-6")
      .size(axis("views", "N, the views averaged per pixel").in(1, kMaxViews).by_default(8))
      .size(axis("width", "image width in pixels").in(1, 1 << 20).by_default(640))
      .size(axis("height", "image height in pixels (one block per row in the shared variant)").in(1, 1 << 20).by_default(480))
      .check_sizes([](const Params& s) -> std::string {
        std::int64_t pixels = s.get("width") * s.get("height");
        if (pixels * kChannels > std::numeric_limits<std::int32_t>::max())
          return fmt::format("width * height * 32 = {} output elements; at most 2^31 - 1", pixels * kChannels);
        return "";
      })
      .device_bytes([](const Params& s) {
        std::uint64_t pixels = std::uint64_t(s.get("width") * s.get("height"));
        // Features, weights, the output, and the double reference kept on the device for verification.
        return pixels * (std::uint64_t(s.get("views")) * (kChannels + 1) + kChannels) * sizeof(float) +
               pixels * kChannels * sizeof(double);
      })
      .problem([](const Params& s, std::uint64_t seed) -> std::unique_ptr<Problem> {
        return std::make_unique<CostVolumeProblem>(int(s.get("views")), int(s.get("width")), int(s.get("height")), seed);
      })
      .variant(VariantBuilder("global", "one thread per pixel and channel, weights and features read from global memory")
                   .axis(axis("block_size", "threads per block (32 per pixel)").in(32, 1024).multiple_of(32).by_default(256))
                   .launch([](const Params& p) {
                     std::int64_t threads = p.get("width") * p.get("height") * kChannels, block = p.get("block_size");
                     return launch_of(kernel_ref<&global_kernel>(), {unsigned((threads + block - 1) / block)}, {unsigned(block)});
                   })
                   .work([](const Params& p) { return global_work(p.get("width"), p.get("height"), int(p.get("views"))); })
                   .run_on<CostVolumeProblem>([](auto& p, const Params&, const LaunchSpec& l, cudaStream_t stream) {
                     global_kernel<<<to_dim3(l.grid), to_dim3(l.block), l.dynamic_smem_bytes, stream>>>(p.features(), p.weights(), p.out(),
                                                                                   p.views(), p.pixels());
                   }))
      .variant(VariantBuilder("shared",
                              "the seed's layout: one block per image row, one thread per channel, block_pixels pixels' "
                              "weights and features staged in dynamic shared memory per step, two __syncthreads per step")
                   .axis(axis("block_pixels", "pixels in flight per block step (blockDim = 32 x block_pixels; the seed: 1)")
                             .in(1, kMaxBlockPixels).by_default(1))
                   .launch([](const Params& p) {
                     return launch_of(kernel_ref<&shared_kernel>(), {unsigned(p.get("height"))},
                                      {unsigned(kChannels), unsigned(p.get("block_pixels"))},
                                      shared_bytes(int(p.get("views")), int(p.get("block_pixels"))));
                   })
                   .work([](const Params& p) { return shared_work(p.get("width"), p.get("height"), int(p.get("views"))); })
                   .run_on<CostVolumeProblem>([](auto& p, const Params&, const LaunchSpec& l, cudaStream_t stream) {
                     shared_kernel<<<to_dim3(l.grid), to_dim3(l.block), l.dynamic_smem_bytes, stream>>>(
                         p.features(), p.weights(), p.out(), p.views(), p.width(), p.height());
                   }));
}

}  // namespace occbench::cost_volume
