// y = 2.5 x + 1, computed in FLOAT_TYPE: a string axis of the config chooses the template argument,
// a boolean one whether to fuse the multiply-add, and a float one the share of the blocks that a
// grid-stride loop needs to launch.
template <class T>
__global__ void axpy(float* y, const float* x, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
#if USE_FMA
    y[i] = float(fma(T(2.5), T(x[i]), T(1)));
#else
    y[i] = float(T(2.5) * T(x[i]) + T(1));
#endif
  }
}
