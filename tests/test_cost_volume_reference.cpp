// Cost volume: the CPU reference on hand-computed cases (the clamp included), the inputs, the
// tolerance, the work model and the registration.
#include "harness/family/registry.hpp"
#include "kernels/cost_volume/cost_volume.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

using namespace occbench;
using cost_volume::kChannels;

namespace {

const Family& family() { return *builtin_registry().find("cost_volume"); }

Params point(int views, int width, int height) {
  Params p;
  p.set("views", views);
  p.set("width", width);
  p.set("height", height);
  return p;
}

}  // namespace

TEST(CostVolumeReference, HandComputedWeightedAverage) {
  // Two views, two pixels. Pixel 0: weights 1 and 3, features c and -2c: (c - 6c) / 4 = -1.25c.
  // Pixel 1: weights 0.5 and 0.5, features 1 and 3 in every channel: 2.
  const int views = 2;
  const std::size_t pixels = 2;
  std::vector<float> features(views * pixels * kChannels), weights = {1.0f, 0.5f, 3.0f, 0.5f};
  for (int c = 0; c < kChannels; ++c) {
    features[(0 * pixels + 0) * kChannels + c] = float(c);
    features[(1 * pixels + 0) * kChannels + c] = -2.0f * c;
    features[(0 * pixels + 1) * kChannels + c] = 1.0f;
    features[(1 * pixels + 1) * kChannels + c] = 3.0f;
  }
  std::vector<double> out(pixels * kChannels, -99);
  cost_volume::reference(features.data(), weights.data(), out.data(), views, pixels);
  for (int c = 0; c < kChannels; ++c) {
    EXPECT_DOUBLE_EQ(out[c], -1.25 * c);
    EXPECT_DOUBLE_EQ(out[kChannels + c], 2.0);
  }
}

// The problem's reference comes from the input formulas, never from a host copy of the inputs: it
// must equal the reference over the filled inputs exactly (same values, same order of operations),
// on one thread and on several, with the clamped pixels included.
TEST(CostVolumeReference, FromSeedEqualsReferenceOverFilledInputs) {
  for (auto [views, pixels] : {std::pair<int, std::size_t>{1, 1}, {3, 61 * 5 + 2}, {32, 640 * 3}, {8, 640 * 480 / 4}}) {
    std::vector<float> features(std::size_t(views) * pixels * kChannels), weights(std::size_t(views) * pixels);
    cost_volume::fill_features(features.data(), features.size(), 2025);
    cost_volume::fill_weights(weights.data(), views, pixels, 2025);
    std::vector<double> from_inputs(pixels * kChannels), from_seed(pixels * kChannels, -99);
    cost_volume::reference(features.data(), weights.data(), from_inputs.data(), views, pixels);
    cost_volume::reference_from_seed(2025, from_seed.data(), views, pixels, 0, pixels);
    EXPECT_EQ(from_seed, from_inputs) << views << " views, " << pixels << " pixels";
    // A range of pixels is that range of the whole.
    std::size_t first = pixels / 3, count = std::min<std::size_t>(pixels - first, 70);
    std::vector<double> part(count * kChannels);
    cost_volume::reference_from_seed(2025, part.data(), views, pixels, first, count);
    EXPECT_TRUE(std::equal(part.begin(), part.end(), from_inputs.begin() + first * kChannels));
    // The formulas are the fills' element by element.
    EXPECT_EQ(cost_volume::feature_at(cost_volume::feature_key(2025), features.size() - 1), features.back());
    EXPECT_EQ(cost_volume::weight_at(cost_volume::weight_key(2025), pixels, weights.size() - 1), weights.back());
  }
}

TEST(CostVolumeReference, DenominatorClampedAt1e6) {
  // Weights 1e-7 and 2e-7 sum to 3e-7 < 1e-6: the result is the numerator / 1e-6, not the average.
  std::vector<float> weights = {1e-7f, 2e-7f}, features(2 * kChannels, 0.5f);
  std::vector<double> out(kChannels);
  cost_volume::reference(features.data(), weights.data(), out.data(), 2, 1);
  double expected = (double(1e-7f) + double(2e-7f)) * 0.5 / double(1e-6f);
  EXPECT_NEAR(out[0], expected, 1e-12);
  EXPECT_LT(out[0], 0.2);  // the unclamped average would be 0.5
  // All-zero weights: 0 / 1e-6 = 0, not NaN.
  std::vector<float> zero = {0.0f, 0.0f};
  cost_volume::reference(features.data(), zero.data(), out.data(), 2, 1);
  EXPECT_EQ(out[0], 0.0);
}

TEST(CostVolumeReference, InputsExerciseTheClamp) {
  const int views = cost_volume::kMaxViews;
  const std::size_t pixels = 1000;
  std::vector<float> weights(views * pixels), features(views * pixels * kChannels);
  cost_volume::fill_weights(weights.data(), views, pixels, 3);
  cost_volume::fill_features(features.data(), features.size(), 3);
  std::size_t clamped = 0, nonzero = 0;
  for (std::size_t p = 0; p < pixels; ++p) {
    double den = 0;
    for (int n = 0; n < views; ++n) {
      float w = weights[n * pixels + p];
      ASSERT_GE(w, 0.0f);
      ASSERT_LT(w, 1.0f);
      nonzero += w != 0.0f;
      den += w;
    }
    if (den < 1e-6) ++clamped;
    EXPECT_EQ(den < 1e-6, p % cost_volume::kTinyWeightStride == 0) << p;
  }
  EXPECT_EQ(clamped, (pixels + cost_volume::kTinyWeightStride - 1) / cost_volume::kTinyWeightStride);
  EXPECT_GT(nonzero, views * pixels - 10);
  for (float f : features) {
    ASSERT_GE(f, -1.0f);
    ASSERT_LT(f, 1.0f);
  }
}

TEST(CostVolumeReference, ToleranceGrowsWithViews) {
  EXPECT_GE(cost_volume::tolerance(1), 1e-6);
  EXPECT_LT(cost_volume::tolerance(1), 1e-5);
  EXPECT_GT(cost_volume::tolerance(128), cost_volume::tolerance(8));
  EXPECT_LT(cost_volume::tolerance(128), 1e-4);
}

TEST(CostVolumeWorkModel, BytesPerVariant) {
  const int n = 8;
  auto g = cost_volume::global_work(10, 3, n), s = cost_volume::shared_work(10, 3, n);
  const double pixels = 30;
  EXPECT_DOUBLE_EQ(g.flops, pixels * 32 * (3 * n + 1));
  EXPECT_DOUBLE_EQ(s.flops, g.flops);
  EXPECT_DOUBLE_EQ(g.global_bytes, pixels * 32 * (8 * n + 4));  // every lane loads its own copy of the weight
  EXPECT_DOUBLE_EQ(s.global_bytes, pixels * (4 * n + 128 * n + 128));
  EXPECT_DOUBLE_EQ(g.dram_bytes, pixels * (n * 33 + 32) * 4);
  EXPECT_DOUBLE_EQ(s.dram_bytes, g.dram_bytes);
  // Issued-byte CGMA: global ~ 3/8 op/B, shared ~ 3/4 op/B at many views.
  EXPECT_EQ(g.bytes_in_flight_per_warp, 160);  // a feature line and a weight sector per warp
  EXPECT_EQ(s.bytes_in_flight_per_warp, 0);    // not modelled
  auto g32 = cost_volume::global_work(640, 480, 128), s32 = cost_volume::shared_work(640, 480, 128);
  EXPECT_NEAR(g32.flops / g32.global_bytes, 3.0 / 8, 0.01);
  EXPECT_NEAR(s32.flops / s32.global_bytes, 32 * 3.0 / 132, 0.01);
}

TEST(CostVolumeRegistration, AxesAndLaunch) {
  const Family& f = family();
  ASSERT_EQ(f.variant_names(), (std::vector<std::string>{"global", "shared"}));
  const Variant& global = *f.find_variant("global");
  const Variant& shared = *f.find_variant("shared");
  EXPECT_NE(global.find_axis("block_size")->check(48), "");
  EXPECT_EQ(global.find_axis("block_size")->check(96), "");
  EXPECT_EQ(shared.find_axis("block_pixels")->check(32), "");
  EXPECT_NE(shared.find_axis("block_pixels")->check(33), "");
  EXPECT_NE(f.find_size_axis("views")->check(cost_volume::kMaxViews + 1), "");

  Params p = point(32, 641, 481);
  p.set("block_pixels", 4);
  auto l = shared.launch(p);
  EXPECT_EQ(l.grid.x, 481u);  // one block per row
  EXPECT_EQ(l.block.x, 32u);
  EXPECT_EQ(l.block.y, 4u);
  EXPECT_EQ(l.dynamic_smem_bytes, std::size_t(4 * 32 * 33 * 4));
  Params q = point(32, 641, 481);
  q.set("block_size", 96);
  auto lg = global.launch(q);
  EXPECT_EQ(lg.grid.x, unsigned((641 * 481 * 32 + 95) / 96));
  EXPECT_EQ(lg.dynamic_smem_bytes, 0u);
  EXPECT_EQ(f.check_sizes(point(32, 640, 480)), "");
  EXPECT_NE(f.check_sizes(point(1, 1 << 20, 1 << 20)), "");
}
