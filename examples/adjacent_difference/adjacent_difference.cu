// Seed 003's adjacent difference as a user source: the same kernels as the built-in family
// (kernels/adjacent_difference), compiled at run time by occbench through NVRTC.
// b[i] = a[i] - a[i-1], b[0] = a[0].
constexpr unsigned kMaxBlock = 1024;

__global__ void global_kernel(float* b, const float* a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    b[i] = a[i] - 0.0f;
  } else if (i < n) {
    b[i] = a[i] - a[i - 1];
  }
}

__global__ void shared_static_kernel(float* b, const float* a, unsigned n) {
  __shared__ float tile[kMaxBlock];
  unsigned tx = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tx;
  if (i < n) tile[tx] = a[i];
  __syncthreads();
  if (i >= n) return;
  if (tx > 0) {
    b[i] = tile[tx] - tile[tx - 1];
  } else if (i > 0) {
    b[i] = tile[tx] - a[i - 1];  // the tile's first element has its neighbour in the previous tile
  } else {
    b[i] = tile[tx] - 0.0f;
  }
}

__global__ void shared_dynamic_kernel(float* b, const float* a, unsigned n) {
  extern __shared__ float dynamic_tile[];
  unsigned tx = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tx;
  if (i < n) dynamic_tile[tx] = a[i];
  __syncthreads();
  if (i >= n) return;
  if (tx > 0) {
    b[i] = dynamic_tile[tx] - dynamic_tile[tx - 1];
  } else if (i > 0) {
    b[i] = dynamic_tile[tx] - a[i - 1];
  } else {
    b[i] = dynamic_tile[tx] - 0.0f;
  }
}

// 16-byte loads and stores, kItems of them in flight per thread; the neighbour of each float4's
// first element comes from the previous lane by a shuffle.
template <int kItems>
__global__ void vectorized_kernel(float* __restrict__ b, const float* __restrict__ a, unsigned n) {
  const unsigned n4 = n / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  float4* b4 = reinterpret_cast<float4*>(b);
  const unsigned lane = threadIdx.x % 32;
  const unsigned first = blockIdx.x * blockDim.x * kItems + threadIdx.x;

  float4 v[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    unsigned idx = first + k * blockDim.x;
    v[k] = idx < n4 ? a4[idx] : make_float4(0.f, 0.f, 0.f, 0.f);
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    unsigned idx = first + k * blockDim.x;
    float previous = __shfl_up_sync(0xffffffffu, v[k].w, 1);
    if (lane == 0) previous = (idx > 0 && idx < n4) ? a[4 * idx - 1] : 0.0f;
    if (idx < n4) b4[idx] = make_float4(v[k].x - previous, v[k].y - v[k].x, v[k].z - v[k].y, v[k].w - v[k].z);
  }
  unsigned tail = n - 4 * n4;
  if (blockIdx.x == 0 && threadIdx.x < tail) {
    unsigned i = 4 * n4 + threadIdx.x;
    b[i] = a[i] - (i > 0 ? a[i - 1] : 0.0f);
  }
}
