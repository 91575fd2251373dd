// The NVRTC compile-time benchmark: ten instantiations of one template (kItems = 1..10), each a
// separate compilation, plus cub's block reduction headers so the front end has real work.
#include <cub/block/block_reduce.cuh>

template <int kItems>
__global__ void unrolled_copy_kernel(float* out, const float* in, unsigned n) {
  unsigned first = blockIdx.x * blockDim.x * kItems + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    unsigned i = first + k * blockDim.x;
    if (i < n) out[i] = in[i];
  }
}
