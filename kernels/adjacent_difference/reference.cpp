#include "kernels/adjacent_difference/adjacent_difference.hpp"

#include "harness/core/parallel.hpp"

namespace occbench::adjacent_difference {

void reference(const float* a, float* b, std::size_t n) {
  // On all host cores: at 256 M elements it is on the critical path of a sweep on several GPUs
  // (the host point's verification, before its samples).
  parallel_for(n, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) b[i] = i == 0 ? a[0] : a[i] - a[i - 1];
  });
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
