// Stencil (adaptive threshold): the CPU reference on hand-computed cases, the summed-area-table
// reference against the seed's direct loop, the exact comparison, the work model and the axes.
#include "stencil_test_support.hpp"
#include "harness/family/random.hpp"
#include "harness/family/registry.hpp"
#include "kernels/stencil/stencil.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

using namespace occbench;
using stencil::kOffsetC;

namespace {

std::vector<std::uint8_t> random_image(int width, int height, std::uint64_t seed) {
  std::vector<std::uint8_t> image(std::size_t(width) * height);
  fill_uniform_bytes(image.data(), image.size(), seed);
  return image;
}

const Family& family() { return *builtin_registry().find("stencil"); }

}  // namespace

TEST(StencilReference, ThresholdRuleAndTies) {
  // Window sum 90 over 3x3: mean 10; mean - 3 = 7 < centre?
  EXPECT_EQ(stencil::threshold(90, 3, 8, 3.0f), 255);
  EXPECT_EQ(stencil::threshold(90, 3, 7, 3.0f), 0);  // 7 < 7 is false: a tie gives 0
  EXPECT_EQ(stencil::threshold(90, 3, 6, 3.0f), 0);
  // A mean that is not an integer: 91 / 9 = 10.111.., minus 3 = 7.111.. < 8 but not < 7.
  EXPECT_EQ(stencil::threshold(91, 3, 8, 3.0f), 255);
  EXPECT_EQ(stencil::threshold(91, 3, 7, 3.0f), 0);
  // The largest window: 31^2 pixels of 255.
  EXPECT_EQ(stencil::threshold(961 * 255, 31, 255, 3.0f), 255);
  EXPECT_EQ(stencil::threshold(961 * 255, 31, 255, 0.0f), 0);
}

TEST(StencilReference, HandComputedTwoByTwoWithClampedBorders) {
  // [[0, 9], [18, 27]], filter 3: every window is the 2x2 image with its first row/column or its
  // last repeated. (0,0): 0+0+9 + 0+0+9 + 18+18+27 = 81, mean 9, 6 < 0 no.  (1,0): 36 + 72 = 108,
  // mean 12, 9 < 9 no.  (0,1): 9 + 126 = 135, mean 15, 12 < 18 yes.  (1,1): 18 + 144 = 162, mean 18,
  // 15 < 27 yes.
  std::vector<std::uint8_t> src = {0, 9, 18, 27};
  std::vector<std::uint8_t> sat(4, 1), direct(4, 1);
  stencil::reference(src.data(), sat.data(), 2, 2, 3, kOffsetC);
  stencil::reference_direct(src.data(), direct.data(), 2, 2, 3, kOffsetC);
  std::vector<std::uint8_t> expected = {0, 0, 255, 255};
  EXPECT_EQ(sat, expected);
  EXPECT_EQ(direct, expected);
}

TEST(StencilReference, ConstantImage) {
  // mean = v everywhere whatever the filter: v - 3 < v always, v - 0 < v never.
  std::vector<std::uint8_t> src(7 * 5, 200), out(src.size());
  for (int f : {3, 9, 31}) {
    stencil::reference(src.data(), out.data(), 7, 5, f, 3.0f);
    EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](auto v) { return v == 255; })) << f;
    stencil::reference(src.data(), out.data(), 7, 5, f, 0.0f);
    EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](auto v) { return v == 0; })) << f;
  }
}

TEST(StencilReference, SummedAreaTableMatchesDirectLoopAtAwkwardSizes) {
  // Includes 1x1, single rows and columns, and filters larger than the image.
  const int sizes[][2] = {{1, 1}, {7, 5}, {1, 13}, {13, 1}, {33, 17}, {64, 3}, {129, 67}};
  for (auto [w, h] : sizes) {
    auto src = random_image(w, h, 100 + w * 7 + h);
    for (int f = stencil::kMinFilter; f <= stencil::kMaxFilter; f += 2) {
      std::vector<std::uint8_t> sat(src.size(), 1), direct(src.size(), 2);
      stencil::reference(src.data(), sat.data(), w, h, f, kOffsetC);
      stencil::reference_direct(src.data(), direct.data(), w, h, f, kOffsetC);
      ASSERT_EQ(sat, direct) << w << "x" << h << " filter " << f;
      // Both outcomes occur on random data (the test would be weak otherwise).
      if (src.size() > 100) {
        auto bright = std::count(sat.begin(), sat.end(), 255);
        EXPECT_GT(bright, 0);
        EXPECT_LT(std::size_t(bright), sat.size());
      }
    }
  }
}

TEST(StencilReference, OneTableServesEveryFilterInAnyOrder) {
  // The problem builds one table per image and asks it for each filter as the sweep reaches it.
  const int w = 45, h = 38;
  auto src = random_image(w, h, 5);
  stencil::ReferenceTable table(src.data(), w, h);
  for (int f : {31, 3, 17, 5, 29, 3, 9}) {
    std::vector<std::uint8_t> got(src.size(), 1), direct(src.size(), 2);
    table.image(f, kOffsetC, got.data());
    stencil::reference_direct(src.data(), direct.data(), w, h, f, kOffsetC);
    ASSERT_EQ(got, direct) << "filter " << f;
  }
  std::vector<std::uint8_t> out(src.size());
  EXPECT_THROW(table.image(stencil::kMaxFilter + 2, kOffsetC, out.data()), std::invalid_argument);
  EXPECT_THROW(table.image(4, kOffsetC, out.data()), std::invalid_argument);
}

TEST(StencilReference, SummedAreaTableExactWhenItsTotalsWrap) {
  // 5000 x 5000 pixels of 128..255: the table's totals pass 2^32 (about 4.8e9), yet every window sum
  // must stay exact. Checked against direct sums at pixels near the far corner and edges.
  const int w = 5000, h = 5000, f = 31;
  auto src = random_image(w, h, 77);
  for (auto& v : src) v |= 0x80;
  std::vector<std::uint8_t> out(src.size());
  stencil::reference(src.data(), out.data(), w, h, f, kOffsetC);
  const int xs[] = {0, 1, 15, 2500, w - 16, w - 2, w - 1};
  const int ys[] = {0, 14, 2501, h - 15, h - 1};
  std::vector<std::uint8_t> small(1);
  for (int y : ys)
    for (int x : xs) {
      std::uint32_t sum = 0;
      for (int dy = -f / 2; dy <= f / 2; ++dy)
        for (int dx = -f / 2; dx <= f / 2; ++dx)
          sum += src[std::size_t(std::clamp(y + dy, 0, h - 1)) * w + std::clamp(x + dx, 0, w - 1)];
      std::size_t i = std::size_t(y) * w + x;
      EXPECT_EQ(out[i], stencil::threshold(sum, f, src[i], kOffsetC)) << x << "," << y;
    }
}

TEST(StencilReference, CompareImagesIsExactAndNamesThePixel) {
  std::vector<std::uint8_t> expected = {0, 255, 255, 0, 0, 255}, got = expected;
  auto ok = stencil::compare_images(got.data(), expected.data(), 3, 2, 5);
  EXPECT_EQ(ok.status, "passed");
  EXPECT_EQ(ok.checked, 6u);
  got[4] = 255;
  got[5] = stencil::kPoison;
  auto bad = stencil::compare_images(got.data(), expected.data(), 3, 2, 5);
  EXPECT_EQ(bad.status, "failed");
  EXPECT_EQ(bad.mismatches, 2u);
  EXPECT_NE(bad.detail.find("(x=1, y=1)"), std::string::npos) << bad.detail;
  EXPECT_DOUBLE_EQ(bad.max_rel_error, 1.0);
  got = expected;
  got[5] = stencil::kPoison;
  EXPECT_NE(stencil::compare_images(got.data(), expected.data(), 3, 2, 5).detail.find("never written"), std::string::npos);
}

TEST(StencilWorkModel, GlobalAndSharedBytes) {
  // 64 x 8 image, filter 5, 32 x 4 blocks: 4 blocks, each loading a 36 x 8 tile.
  EXPECT_EQ(stencil::tile_bytes(5, 32, 4), 36u * 8u);
  auto g = stencil::global_work(64, 8, 5);
  EXPECT_DOUBLE_EQ(g.flops, 512.0 * 26);
  EXPECT_DOUBLE_EQ(g.global_bytes, 512.0 * 27);  // 25 window loads + centre + store
  EXPECT_DOUBLE_EQ(g.dram_bytes, 1024.0);
  auto s = stencil::shared_work(64, 8, 5, 32, 4);
  EXPECT_DOUBLE_EQ(s.flops, g.flops);
  EXPECT_DOUBLE_EQ(s.global_bytes, 4.0 * 288 + 512);
  EXPECT_DOUBLE_EQ(s.dram_bytes, 1024.0);
  // Partial blocks load whole tiles: 65 x 9 needs 3 x 3 blocks.
  EXPECT_DOUBLE_EQ(stencil::shared_work(65, 9, 5, 32, 4).global_bytes, 9.0 * 288 + 65 * 9);
  // CGMA of the global kernel is (f^2 + 1) / (f^2 + 2), just under 1 op/byte at every filter; the
  // shared kernel's grows with the filter (reuse): 4096^2 with 32 x 8 blocks.
  for (int f : {3, 15, 31}) {
    auto gw = stencil::global_work(4096, 4096, f);
    EXPECT_NEAR(gw.flops / gw.global_bytes, double(f * f + 1) / (f * f + 2), 1e-12);
  }
  auto s3 = stencil::shared_work(4096, 4096, 3, 32, 8), s31 = stencil::shared_work(4096, 4096, 31, 32, 8);
  EXPECT_GT(s31.flops / s31.global_bytes, 10 * (s3.flops / s3.global_bytes));
}

TEST(StencilRegistration, AxesLaunchAndChecks) {
  const Family& f = family();
  ASSERT_EQ(f.variant_names(), (std::vector<std::string>{"global", "shared_dynamic"}));
  const Variant& shared = *f.find_variant("shared_dynamic");
  const Axis& filter = *shared.find_axis("filter_size");
  EXPECT_EQ(filter.check(3), "");
  EXPECT_EQ(filter.check(31), "");
  EXPECT_NE(filter.check(1), "");
  EXPECT_NE(filter.check(4), "");
  EXPECT_NE(filter.check(33), "");
  EXPECT_EQ(shared.check(stencil_point(10, 10, 3, 32, 32)), "");
  EXPECT_NE(shared.check(stencil_point(10, 10, 3, 64, 32)), "");

  auto l = shared.launch(stencil_point(1921, 1081, 7, 32, 8));
  EXPECT_EQ(l.grid.x, 61u);  // ceil(1921 / 32): the seed's integer division would give 60
  EXPECT_EQ(l.grid.y, 136u);
  EXPECT_EQ(l.block.x, 32u);
  EXPECT_EQ(l.block.y, 8u);
  EXPECT_EQ(l.dynamic_smem_bytes, std::size_t(38 * 14));
  EXPECT_NE(l.kernel, nullptr);
  auto lg = f.find_variant("global")->launch(stencil_point(1921, 1081, 7, 32, 8));
  EXPECT_EQ(lg.dynamic_smem_bytes, 0u);
  EXPECT_NE(lg.kernel, l.kernel);
  // The largest tile any legal point needs stays under the 48 KiB default: no opt-in.
  EXPECT_LT(stencil::tile_bytes(31, 1024, 1), std::size_t(48 * 1024));
  EXPECT_LT(stencil::tile_bytes(31, 32, 32), std::size_t(48 * 1024));
  Params too_big;
  too_big.set("width", 1 << 20);
  too_big.set("height", 65535);
  EXPECT_NE(f.check_sizes(too_big), "");
}
