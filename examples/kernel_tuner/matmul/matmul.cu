// C = alpha A B for n x n matrices, written the way Kernel Tuner's users write a tiled matmul:
// block_size_x/_y and tile_size_x/_y are #defines the tuner sets, the grid is the matrix divided
// by each block's tile, and the scale factor is a __constant__ the tuner fills before launching
// (occbench: an argument with "global": true). naive_matmul, the reference, takes the factor as
// a parameter, so a constant left unfilled (zero) fails verification.

__constant__ float alpha_scale;

extern "C" __global__ void naive_matmul(float* C, const float* A, const float* B, int n, float alpha) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n || y >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; k++) sum += A[y * n + k] * B[k * n + x];
  C[y * n + x] = alpha * sum;
}

#if defined(block_size_x)

#define tile_rows (block_size_y * tile_size_y)   // rows of C per block
#define tile_cols (block_size_x * tile_size_x)   // columns of C per block
#define k_step block_size_x                      // columns of A (rows of B) staged per step

// Each thread computes tile_size_y x tile_size_x elements of C, block_size_y rows and
// block_size_x columns apart, so a warp's loads and stores are contiguous.
extern "C" __global__ void __launch_bounds__(block_size_x * block_size_y)
matmul_kernel(float* C, const float* A, const float* B, int n, float /* the reference's alpha */) {
  __shared__ float As[tile_rows][k_step];
  __shared__ float Bs[k_step][tile_cols];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row0 = blockIdx.y * tile_rows, col0 = blockIdx.x * tile_cols;
  float acc[tile_size_y][tile_size_x];
#pragma unroll
  for (int i = 0; i < tile_size_y; i++)
#pragma unroll
    for (int j = 0; j < tile_size_x; j++) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < n; k0 += k_step) {
#pragma unroll
    for (int i = 0; i < tile_size_y; i++) {
      const int r = row0 + ty + i * block_size_y, c = k0 + tx;
      As[ty + i * block_size_y][tx] = (r < n && c < n) ? A[r * n + c] : 0.0f;
    }
    for (int kr = ty; kr < k_step; kr += block_size_y)
#pragma unroll
      for (int j = 0; j < tile_size_x; j++) {
        const int r = k0 + kr, c = col0 + tx + j * block_size_x;
        Bs[kr][tx + j * block_size_x] = (r < n && c < n) ? B[r * n + c] : 0.0f;
      }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < k_step; k++)
#pragma unroll
      for (int i = 0; i < tile_size_y; i++) {
        const float a = As[ty + i * block_size_y][k];
#pragma unroll
        for (int j = 0; j < tile_size_x; j++) acc[i][j] += a * Bs[k][tx + j * block_size_x];
      }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < tile_size_y; i++)
#pragma unroll
    for (int j = 0; j < tile_size_x; j++) {
      const int r = row0 + ty + i * block_size_y, c = col0 + tx + j * block_size_x;
      if (r < n && c < n) C[r * n + c] = alpha_scale * acc[i][j];
    }
}

#endif
