// C = A B for n x n row-major matrices, tiled in shared memory. The shape is four #defines that
// occbench::launch sets (the application's defaults, or a tuning's best for this GPU and size):
// a block of BLOCK_X x BLOCK_Y threads, each computing TILE_Y x TILE_X elements of C. Every
// element sums its products in the same order (k = 0, 1, ..., n - 1) whatever the shape, so a
// tuned shape gives the same bits as the defaults.
#define TILE_ROWS (BLOCK_Y * TILE_Y)  // rows of C per block
#define TILE_COLS (BLOCK_X * TILE_X)  // columns of C per block
#define K_STEP BLOCK_X                // columns of A (rows of B) staged per step

__device__ __forceinline__ void accumulate(float (&acc)[TILE_Y][TILE_X], const float (&As)[TILE_ROWS][K_STEP],
                                           const float (&Bs)[K_STEP][TILE_COLS], int tx, int ty, int k) {
#pragma unroll
  for (int i = 0; i < TILE_Y; i++) {
    const float a = As[ty + i * BLOCK_Y][k];
#pragma unroll
    for (int j = 0; j < TILE_X; j++) acc[i][j] = fmaf(a, Bs[k][tx + j * BLOCK_X], acc[i][j]);
  }
}

extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y) matmul(float* C, const float* A, const float* B, int n) {
  __shared__ float As[TILE_ROWS][K_STEP];
  __shared__ float Bs[K_STEP][TILE_COLS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * TILE_ROWS, col0 = blockIdx.x * TILE_COLS;
  float acc[TILE_Y][TILE_X];
#pragma unroll
  for (int i = 0; i < TILE_Y; i++)
#pragma unroll
    for (int j = 0; j < TILE_X; j++) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < n; k0 += K_STEP) {
#pragma unroll
    for (int i = 0; i < TILE_Y; i++) {
      const int r = row0 + ty + i * BLOCK_Y, c = k0 + tx;
      As[ty + i * BLOCK_Y][tx] = (r < n && c < n) ? A[r * n + c] : 0.0f;
    }
    for (int kr = ty; kr < K_STEP; kr += BLOCK_Y)
#pragma unroll
      for (int j = 0; j < TILE_X; j++) {
        const int r = k0 + kr, c = col0 + tx + j * BLOCK_X;
        Bs[kr][tx + j * BLOCK_X] = (r < n && c < n) ? B[r * n + c] : 0.0f;
      }
    __syncthreads();
    if (k0 + K_STEP <= n) {
#pragma unroll
      for (int k = 0; k < K_STEP; k++) accumulate(acc, As, Bs, tx, ty, k);
    } else {  // the last partial step: past n nothing is added, not even zeros
      for (int k = 0; k < n - k0; k++) accumulate(acc, As, Bs, tx, ty, k);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TILE_Y; i++)
#pragma unroll
    for (int j = 0; j < TILE_X; j++) {
      const int r = row0 + ty + i * BLOCK_Y, c = col0 + tx + j * BLOCK_X;
      if (r < n && c < n) C[r * n + c] = acc[i][j];
    }
}
