// Deliberately does not compile when BREAK is set (the "broken" variant defines it): NVRTC's log
// must name this file and line 7, the broken variant's points fail, and the copy variant, compiled
// without BREAK, still runs.
__global__ void broken_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
#if BREAK
  if (i < n) out[i] = in[i] * undeclared_scale;
#endif
}
__global__ void copy_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
