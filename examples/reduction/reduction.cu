// Parallel sum of n floats into out[0], four ways; every thread first adds kItems elements
// (coalesced: element first + k * blockDim.x), then the block combines its threads' sums.
// out[0] is zeroed before every launch (zero_before_launch in the config).
#include <cub/block/block_reduce.cuh>

// Each thread's partial sum of kItems strided elements.
template <int kItems>
__device__ float thread_sum(const float* in, unsigned n) {
  unsigned first = blockIdx.x * blockDim.x * kItems + threadIdx.x;
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    unsigned i = first + k * blockDim.x;
    if (i < n) sum += in[i];
  }
  return sum;
}

// Every thread adds its sum to the one global result: n / kItems atomics on one address.
template <int kItems>
__global__ void atomic_global_kernel(float* out, const float* in, unsigned n) {
  atomicAdd(out, thread_sum<kItems>(in, n));
}

// Classic shared-memory tree: log2(block) halving steps with a barrier each, one atomic per block.
template <int kBlock, int kItems>
__global__ void shared_tree_kernel(float* out, const float* in, unsigned n) {
  __shared__ float partial[kBlock];
  partial[threadIdx.x] = thread_sum<kItems>(in, n);
  __syncthreads();
#pragma unroll
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

__device__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// Warp shuffles: each warp reduces in registers, warp 0 reduces the warps' sums, one atomic per block.
template <int kBlock, int kItems>
__global__ void warp_shuffle_kernel(float* out, const float* in, unsigned n) {
  __shared__ float warp_sums[kBlock / 32];
  float v = warp_sum(thread_sum<kItems>(in, n));
  unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kBlock / 32 ? warp_sums[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
}

// CUB's block reduction (CCCL, found by NVRTC in the toolkit's headers), one atomic per block.
template <int kBlock, int kItems>
__global__ void cub_block_kernel(float* out, const float* in, unsigned n) {
  using BlockReduce = cub::BlockReduce<float, kBlock>;
  __shared__ typename BlockReduce::TempStorage storage;
  float sum = BlockReduce(storage).Sum(thread_sum<kItems>(in, n));
  if (threadIdx.x == 0) atomicAdd(out, sum);
}
