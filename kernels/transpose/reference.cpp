#include "kernels/transpose/transpose.hpp"

#include "harness/core/parallel.hpp"

#include <algorithm>

namespace occbench::transpose {

WorkModel work(double rows, double cols) {
  WorkModel w;
  w.flops = 0;
  w.global_bytes = 8 * rows * cols;  // each element loaded once and stored once, by every variant
  w.dram_bytes = 8 * rows * cols;
  // The copy loop's trip count (32 / block_rows) is known only at run time: modelled as one 4-byte
  // load per thread in flight.
  w.bytes_in_flight_per_warp = 32 * 4;
  return w;
}

void reference(const float* in, float* out, std::size_t rows, std::size_t cols) {
  // Output rows (input columns) split over the host cores, in 32 x 32 tiles so both sides stay in
  // cache: the single-threaded loop took most of a second per size at 8192².
  constexpr std::size_t kTile = 32;
  parallel_for(cols, [&](unsigned, std::size_t c_begin, std::size_t c_end) {
    for (std::size_t r0 = 0; r0 < rows; r0 += kTile)
      for (std::size_t c0 = c_begin; c0 < c_end; c0 += kTile)
        for (std::size_t r = r0; r < std::min(rows, r0 + kTile); ++r)
          for (std::size_t c = c0; c < std::min(c_end, c0 + kTile); ++c) out[c * rows + r] = in[r * cols + c];
  }, rows * cols < kSerialBelow ? cols + 1 : 0);  // split by columns; serial when the matrix is small
}

}  // namespace occbench::transpose
