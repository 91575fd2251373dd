#include "harness/sweep/config.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

using namespace occbench;

TEST(Sweep, ExpandsSizesThenVariantsThenAxes) {
  auto spec = parse_sweep_text(R"({"family": "adjacent_difference", "variants": ["host", "global"],
      "sizes": {"n": [10, 20]}, "axes": {"block_size": [64, 128, 256]}})", "s.json", builtin_registry());
  auto points = expand_sweep(spec, builtin_registry());
  // Per size: host (takes no block_size) once, global three times.
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points[0].id, "adjacent_difference/host/n=10");
  EXPECT_EQ(points[1].id, "adjacent_difference/global/n=10/block_size=64");
  EXPECT_EQ(points[3].id, "adjacent_difference/global/n=10/block_size=256");
  EXPECT_EQ(points[4].id, "adjacent_difference/host/n=20");
  EXPECT_EQ(points[7].params.get("block_size"), 256);
  EXPECT_EQ(points[7].sizes.items().size(), 1u);
  for (std::size_t i = 0; i < points.size(); ++i) EXPECT_EQ(points[i].index, i);
}

TEST(Sweep, AxisDefaultsFillMissingValues) {
  auto spec = parse_sweep_text(R"({"family": "adjacent_difference", "variants": ["vectorized"], "sizes": {"n": [7]}})",
                               "s.json", builtin_registry());
  auto points = expand_sweep(spec, builtin_registry());
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].params.get("block_size"), 256);  // the axis default
  EXPECT_EQ(spec.baseline, "vectorized");              // first variant when none is named
}

TEST(Sweep, ParamsKeepOrderAndNameMissingAxes) {
  Params p;
  p.set("n", 5);
  p.set("block_size", 32);
  p.set("n", 6);
  EXPECT_EQ(p.to_string(), "n=6 block_size=32");
  EXPECT_THROW(p.get("chunk_size"), std::out_of_range);
}
