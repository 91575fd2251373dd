#include "kernels/adjacent_difference/adjacent_difference.hpp"

namespace occbench::adjacent_difference {

void reference(const float* a, float* b, std::size_t n) {
  if (n == 0) return;
  b[0] = a[0];
  for (std::size_t i = 1; i < n; ++i) b[i] = a[i] - a[i - 1];
}

void host_loop(const float* a, float* b, std::size_t n) {
  // As written in seed 003: the branch stays inside the loop.
  for (std::size_t i = 0; i < n; ++i) {
    if (i == 0) {
      b[i] = a[i] - 0.0f;
    } else {
      b[i] = a[i] - a[i - 1];
    }
  }
}

}  // namespace occbench::adjacent_difference
