// A 2D convolution written the way Kernel Tuner's users write kernels: every tunable parameter is
// a #define the tuner sets (-D block_size_x=...), the filter lives in __constant__ memory that the
// tuner fills before launching (occbench: an argument with "global": true), and the grid is the
// image divided by the tile each block computes. convolution.json tunes it over block and tile
// shape, shared-memory padding and read-only loads; naive_convolution is the reference.
#ifndef filter_width
#define filter_width 17
#endif
#ifndef filter_height
#define filter_height 17
#endif
#define border_width (filter_width / 2 * 2)
#define border_height (filter_height / 2 * 2)

__constant__ float d_filter[filter_width * filter_height];

// One output per thread straight from global memory: obviously right, the reference.
extern "C" __global__ void naive_convolution(float* output, const float* input, int image_width, int image_height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= image_width || y >= image_height) return;
  const int input_width = image_width + border_width;
  float sum = 0.0f;
  for (int i = 0; i < filter_height; i++)
    for (int j = 0; j < filter_width; j++) sum += input[(y + i) * input_width + x + j] * d_filter[i * filter_width + j];
  output[y * image_width + x] = sum;
}

#if defined(block_size_x)  // the tuned kernel, compiled where its parameters are defined

#if read_only
#define LOAD(p) __ldg(p)
#else
#define LOAD(p) (*(p))
#endif

#define tile_width (block_size_x * tile_size_x)
#define tile_height (block_size_y * tile_size_y)
// Padding the rows by one float moves each row to another bank.
#define shared_width (tile_width + border_width + (use_padding ? 1 : 0))

// Each block stages its tile and the filter's border in shared memory, then each thread computes
// tile_size_x x tile_size_y outputs, block_size_x (and _y) apart so that a warp's loads are contiguous.
extern "C" __global__ void __launch_bounds__(block_size_x * block_size_y)
convolution_kernel(float* output, const float* input, int image_width, int image_height) {
  __shared__ float tile[tile_height + border_height][shared_width];
  const int input_width = image_width + border_width, input_height = image_height + border_height;
  const int x0 = blockIdx.x * tile_width, y0 = blockIdx.y * tile_height;
  for (int i = threadIdx.y; i < tile_height + border_height; i += block_size_y)
    for (int j = threadIdx.x; j < tile_width + border_width; j += block_size_x) {
      int y = y0 + i, x = x0 + j;
      tile[i][j] = (y < input_height && x < input_width) ? LOAD(&input[y * input_width + x]) : 0.0f;
    }
  __syncthreads();
#pragma unroll
  for (int ty = 0; ty < tile_size_y; ty++)
#pragma unroll
    for (int tx = 0; tx < tile_size_x; tx++) {
      const int i0 = threadIdx.y + ty * block_size_y, j0 = threadIdx.x + tx * block_size_x;
      float sum = 0.0f;
#pragma unroll
      for (int i = 0; i < filter_height; i++)
#pragma unroll
        for (int j = 0; j < filter_width; j++) sum += tile[i0 + i][j0 + j] * d_filter[i * filter_width + j];
      const int y = y0 + i0, x = x0 + j0;
      if (y < image_height && x < image_width) output[y * image_width + x] = sum;
    }
}

#endif
