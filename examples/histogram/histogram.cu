// 256-bin histogram of n bytes into bins[256] (zeroed before every launch by the config's
// zero_before_launch). Each thread takes kItems bytes, element first + k * blockDim.x.

// Every byte is one atomic increment on global memory: contention wherever bytes repeat.
template <int kItems>
__global__ void global_atomics_kernel(unsigned* bins, const unsigned char* in, unsigned n) {
  unsigned first = blockIdx.x * blockDim.x * kItems + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    unsigned i = first + k * blockDim.x;
    if (i < n) atomicAdd(&bins[in[i]], 1u);
  }
}

// A private histogram per block in shared memory (shared atomics), merged once per block with
// 256 global atomics.
template <int kItems>
__global__ void shared_private_kernel(unsigned* bins, const unsigned char* in, unsigned n) {
  __shared__ unsigned local[256];
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  unsigned first = blockIdx.x * blockDim.x * kItems + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    unsigned i = first + k * blockDim.x;
    if (i < n) atomicAdd(&local[in[i]], 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}
