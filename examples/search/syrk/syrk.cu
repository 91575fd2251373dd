// Covariance as a symmetric rank-k update, C = D^T D / m for an m x n row-major D (seed 000's
// problem), register-tiled with every choice a #define, for search (docs/search.md):
//   BM             the block's square tile of C (BM x BM), on or below the diagonal only
//   TY, TX         each thread's tile of C in registers (TY rows x TX columns)
//   BK             rows of D staged in shared memory per step
//   VEC            width of the shared-memory reads (1, 2 or 4 floats)
//   PAD            floats of padding per shared-memory row (0 or 4)
//   DOUBLE_BUFFER  the next step's global loads in flight while this one computes (0 or 1)
//   SPLIT_K        ranges of the m rows, one block each, added into C with atomics (C is zeroed first)
// naive_covariance (one thread per element of C, straight from global memory) is the reference.

extern "C" __global__ void naive_covariance(const float* D, float* C, unsigned m, unsigned n) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float sum = 0.0f;
  for (unsigned k = 0; k < m; k++) sum += D[k * n + i] * D[k * n + j];
  C[i * n + j] = sum / float(m);
}

#if defined(BM)

#define THREADS_X (BM / TX)
#define THREADS_Y (BM / TY)
#define THREADS (THREADS_X * THREADS_Y)
#define STRIDE (BM + PAD)
#define BUFFERS (DOUBLE_BUFFER ? 2 : 1)
#define PANEL (BK * BM)                           // floats of one PANEL per step
#define LOADS_PER_THREAD ((PANEL + THREADS - 1) / THREADS)

template <int V> struct Vec;
template <> struct Vec<1> { using type = float; };
template <> struct Vec<2> { using type = float2; };
template <> struct Vec<4> { using type = float4; };

__device__ __forceinline__ void unpack(float v, float* out) { out[0] = v; }
__device__ __forceinline__ void unpack(float2 v, float* out) { out[0] = v.x, out[1] = v.y; }
__device__ __forceinline__ void unpack(float4 v, float* out) { out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w; }

extern "C" __global__ void __launch_bounds__(THREADS) syrk_kernel(const float* __restrict__ D, float* __restrict__ C, unsigned m,
                                                                  unsigned n) {
  __shared__ __align__(16) float rows_panel[BUFFERS][BK][STRIDE];  // D[k][row_base + r]
  __shared__ __align__(16) float cols_panel[BUFFERS][BK][STRIDE];  // D[k][col_base + c]

  // The lower tile (ti >= tj) of the linear block index b = ti (ti + 1) / 2 + tj.
  const unsigned b = blockIdx.x;
  unsigned ti = unsigned((sqrtf(8.0f * float(b) + 1.0f) - 1.0f) * 0.5f);
  while ((ti + 1) * (ti + 2) / 2 <= b) ++ti;
  while (ti * (ti + 1) / 2 > b) --ti;
  const unsigned tj = b - ti * (ti + 1) / 2;
  const unsigned row_base = ti * BM, col_base = tj * BM;

  const unsigned rows_per_split = (m + SPLIT_K - 1) / SPLIT_K;
  const unsigned k_begin = blockIdx.y * rows_per_split;
  const unsigned k_end = min(m, k_begin + rows_per_split);
  const unsigned steps = k_end > k_begin ? (k_end - k_begin + BK - 1) / BK : 0;

  const int tid = threadIdx.x, lane_x = tid % THREADS_X, lane_y = tid / THREADS_X;
  float staged_r[LOADS_PER_THREAD], staged_c[LOADS_PER_THREAD];

  auto load = [&](unsigned k0) {
#pragma unroll
    for (int l = 0; l < LOADS_PER_THREAD; ++l) {
      const int idx = tid + l * THREADS;
      staged_r[l] = staged_c[l] = 0.0f;
      const unsigned k = k0 + idx / BM, c = idx % BM;
      if (idx < PANEL && k < k_end) {
        if (row_base + c < n) staged_r[l] = __ldg(D + k * n + row_base + c);
        if (col_base + c < n) staged_c[l] = __ldg(D + k * n + col_base + c);
      }
    }
  };
  auto store = [&](int buffer) {
#pragma unroll
    for (int l = 0; l < LOADS_PER_THREAD; ++l) {
      const int idx = tid + l * THREADS;
      if (idx < PANEL) rows_panel[buffer][idx / BM][idx % BM] = staged_r[l], cols_panel[buffer][idx / BM][idx % BM] = staged_c[l];
    }
  };

  float acc[TY][TX];
#pragma unroll
  for (int i = 0; i < TY; ++i)
#pragma unroll
    for (int j = 0; j < TX; ++j) acc[i][j] = 0.0f;

  using V = typename Vec<VEC>::type;
  if (steps > 0) {
    load(k_begin);
    store(0);
  }
  __syncthreads();
  for (unsigned s = 0; s < steps; ++s) {
    const int cur = DOUBLE_BUFFER ? int(s & 1) : 0;
    if (DOUBLE_BUFFER && s + 1 < steps) load(k_begin + (s + 1) * BK);  // in flight while this step computes
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      // A thread's rows (and columns) are VEC wide groups THREADS_Y * VEC apart: conflict-free reads.
      float a[TY], c[TX];
#pragma unroll
      for (int g = 0; g < TY / VEC; ++g)
        unpack(*reinterpret_cast<const V*>(&rows_panel[cur][k][g * THREADS_Y * VEC + lane_y * VEC]), &a[g * VEC]);
#pragma unroll
      for (int g = 0; g < TX / VEC; ++g)
        unpack(*reinterpret_cast<const V*>(&cols_panel[cur][k][g * THREADS_X * VEC + lane_x * VEC]), &c[g * VEC]);
#pragma unroll
      for (int i = 0; i < TY; ++i)
#pragma unroll
        for (int j = 0; j < TX; ++j) acc[i][j] += a[i] * c[j];
    }
    if (s + 1 < steps) {
      if (!DOUBLE_BUFFER) {
        __syncthreads();  // everyone is done with the only buffer
        load(k_begin + (s + 1) * BK);
        store(0);
      } else {
        store(cur ^ 1);  // the other buffer, read by no one during this step
      }
    }
    __syncthreads();
  }

  const float inv_m = 1.0f / float(m);
#pragma unroll
  for (int i = 0; i < TY; ++i)
#pragma unroll
    for (int j = 0; j < TX; ++j) {
      const unsigned r = row_base + (i / VEC) * THREADS_Y * VEC + lane_y * VEC + i % VEC;
      const unsigned c = col_base + (j / VEC) * THREADS_X * VEC + lane_x * VEC + j % VEC;
      if (r >= n || c >= n) continue;
      const float v = acc[i][j] * inv_m;
      if (SPLIT_K == 1) {
        C[r * n + c] = v;
        if (ti != tj) C[c * n + r] = v;
      } else {
        atomicAdd(&C[r * n + c], v);
        if (ti != tj) atomicAdd(&C[c * n + r], v);
      }
    }
}

#endif
