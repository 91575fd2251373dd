#include "kernels/transpose/transpose.hpp"

namespace occbench::transpose {

WorkModel work(double rows, double cols) {
  WorkModel w;
  w.flops = 0;
  w.global_bytes = 8 * rows * cols;  // each element loaded once and stored once, by every variant
  w.dram_bytes = 8 * rows * cols;
  return w;
}

void reference(const float* in, float* out, std::size_t rows, std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
}

}  // namespace occbench::transpose
