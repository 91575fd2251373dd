// A kernel that ignores its tuning parameters (they arrive as #defines): large_space.json exists
// to time what occbench does with a space of 10^8 combinations before anything runs (count, list,
// draw, plan), not to tune this kernel.
__global__ void probe(float* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
