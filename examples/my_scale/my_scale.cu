// The README's "Your own kernel" example: out[i] = factor * in[i], kItems elements per thread.
template <int kItems>
__global__ void scale_kernel(float* out, const float* in, float factor, unsigned n) {
  unsigned first = blockIdx.x * blockDim.x * kItems + threadIdx.x;
  for (int k = 0; k < kItems; ++k) {
    unsigned i = first + k * blockDim.x;
    if (i < n) out[i] = factor * in[i];
  }
}
