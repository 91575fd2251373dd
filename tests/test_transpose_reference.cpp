// transpose family on the CPU: the reference, the work model, the axes and launch shape.
#include "harness/family/registry.hpp"
#include "kernels/transpose/transpose.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace occbench;

TEST(TransposeReference, HandComputed) {
  // in (2 x 3) = [[1 2 3], [4 5 6]] -> out (3 x 2) = [[1 4], [2 5], [3 6]]
  std::vector<float> in = {1, 2, 3, 4, 5, 6}, out(6, -1);
  transpose::reference(in.data(), out.data(), 2, 3);
  EXPECT_EQ(out, (std::vector<float>{1, 4, 2, 5, 3, 6}));
  std::vector<float> one = {7}, one_out = {0};
  transpose::reference(one.data(), one_out.data(), 1, 1);
  EXPECT_EQ(one_out[0], 7);
  // A column vector becomes a row vector with the same memory layout.
  std::vector<float> col = {1, 2, 3}, row(3);
  transpose::reference(col.data(), row.data(), 3, 1);
  EXPECT_EQ(row, col);
}

TEST(TransposeReference, TwiceIsIdentity) {
  const std::size_t rows = 31, cols = 33;
  std::vector<float> in(rows * cols), once(rows * cols), twice(rows * cols);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(i) + 0.5f;
  transpose::reference(in.data(), once.data(), rows, cols);
  transpose::reference(once.data(), twice.data(), cols, rows);
  EXPECT_EQ(twice, in);
  EXPECT_EQ(once[5 * rows + 3], in[3 * cols + 5]);
}

TEST(TransposeWork, BytesAreEightPerElementNoFlops) {
  auto w = transpose::work(8192, 8192);
  EXPECT_EQ(w.flops, 0);
  EXPECT_DOUBLE_EQ(w.global_bytes, 8.0 * 8192 * 8192);
  EXPECT_DOUBLE_EQ(w.dram_bytes, w.global_bytes);
}

TEST(TransposeFamily, VariantsAxesAndLaunch) {
  const Family& f = *builtin_registry().find("transpose");
  EXPECT_EQ(f.variant_names(), (std::vector<std::string>{"naive", "shared_tile", "shared_tile_padded"}));
  Params p;
  p.set("rows", 5000);
  p.set("cols", 3001);
  p.set("block_rows", 8);
  for (const auto& v : f.variants) {
    EXPECT_EQ(v.find_axis("block_rows")->check(8), "");
    EXPECT_NE(v.find_axis("block_rows")->check(3), "");
    EXPECT_NE(v.find_axis("block_rows")->check(64), "");
    LaunchSpec l = v.launch(p);
    EXPECT_EQ(l.block.x, 32u);
    EXPECT_EQ(l.block.y, 8u);
    EXPECT_EQ(l.grid.x, 94u);   // ceil(3001 / 32): tiles along the input's columns
    EXPECT_EQ(l.grid.y, 157u);  // ceil(5000 / 32): tiles along the input's rows
    EXPECT_EQ(l.dynamic_smem_bytes, 0u);
    EXPECT_NE(l.kernel, nullptr);
  }
  EXPECT_NE(f.find_variant("shared_tile")->launch(p).kernel, f.find_variant("shared_tile_padded")->launch(p).kernel);
  EXPECT_EQ(f.find_variant("shared_tile_padded")->launch(p).kernel_name, "occbench::transpose::shared_tile_kernel<1>");
  Params huge;
  huge.set("rows", 2000000);
  huge.set("cols", 2000);
  EXPECT_NE(f.check_sizes(huge), "");
  EXPECT_NE(f.find_size_axis("rows")->check(65536 * 32), "");  // grid.y would exceed 65535
}
