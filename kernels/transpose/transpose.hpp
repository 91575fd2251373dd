#pragma once
// Out-of-place transpose of a float32 matrix (seeds 003 and 004): in is rows x cols, row-major;
// out is cols x rows, row-major: out[c][r] = in[r][c].
#include "harness/family/registry.hpp"

#include <cstddef>
#include <cstdint>

namespace occbench::transpose {

Family make_family();

// Every variant covers a 32 x 32 tile per block with 32 x block_rows threads: each thread moves
// 32 / block_rows elements (the classic 32 x 8 block moves 4).
inline constexpr int kTile = 32;
inline constexpr std::int64_t kBlockRows[] = {4, 8, 16, 32};

// Reads rows*cols floats and writes as many: global bytes = DRAM bytes = 8 rows cols, no FLOPs.
WorkModel work(double rows, double cols);

// The CPU reference.
void reference(const float* in, float* out, std::size_t rows, std::size_t cols);

}  // namespace occbench::transpose
