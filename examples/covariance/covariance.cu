// Seed 000's shared-memory covariance kernel as a user source: the code of the built-in family
// (kernels/covariance/seed_kernels.cu), compiled at run time by occbench through NVRTC, for the
// equivalence check (same registers, occupancy and times). Cov = Data^T Data / m for an m x n
// row-major Data.
using index_t = unsigned int;

// ---- shared (seed 000): chunk x chunk threads, two chunk x chunk tiles -------------------------
// The seed's loop, with the tiles passed in so the static and dynamic kernels share it.
template <index_t chunk_size>
__device__ __forceinline__ void shared_covariance_body(float (*cache_x)[chunk_size], float (*cache_y)[chunk_size],
                                                       const float* Data, float* Cov, index_t num_entries,
                                                       index_t num_features) {
  // first index in a window of width chunk_size
  const index_t base_x = blockIdx.x * chunk_size;
  const index_t base_y = blockIdx.y * chunk_size;
  // local thread identifiers
  const index_t thid_y = threadIdx.y;
  const index_t thid_x = threadIdx.x;
  // global thread identifiers
  const index_t x = base_x + thid_x;
  const index_t y = base_y + thid_y;

  // compute the number of chunks to be computed
  const index_t num_chunks = (num_entries + chunk_size - 1) / chunk_size;
  float accum = 0;  // accumulated value of scalar product

  for (index_t chunk = 0; chunk < num_chunks; chunk++) {
    // assign thread IDs to rows and columns
    const index_t row = thid_y + chunk * chunk_size;
    const index_t col_x = thid_x + base_x;
    const index_t col_y = thid_x + base_y;
    // check if valid row or column indices
    const bool valid_row = row < num_entries;
    const bool valid_col_x = col_x < num_features;
    const bool valid_col_y = col_y < num_features;

    cache_x[thid_y][thid_x] = valid_row && valid_col_x ? Data[row * num_features + col_x] : 0;
    cache_y[thid_y][thid_x] = valid_row && valid_col_y ? Data[row * num_features + col_y] : 0;
    __syncthreads();

    if (x <= y)  // optional early exit
      for (index_t k = 0; k < chunk_size; k++) accum += cache_y[k][thid_y] * cache_x[k][thid_x];
    __syncthreads();
  }

  if (y < num_features && x <= y) Cov[y * num_features + x] = Cov[x * num_features + y] = accum / num_entries;
}

template <index_t chunk_size>
__global__ void shared_static_kernel(const float* Data, float* Cov, index_t num_entries, index_t num_features) {
  // optional early exit for tiles above the diagonal
  if (blockIdx.x * chunk_size >= blockIdx.y * chunk_size + chunk_size) return;
  __shared__ float cache_x[chunk_size][chunk_size];
  __shared__ float cache_y[chunk_size][chunk_size];
  shared_covariance_body<chunk_size>(cache_x, cache_y, Data, Cov, num_entries, num_features);
}

// The same kernel with both tiles in one buffer of 2 * chunk_size^2 floats sized at launch.
template <index_t chunk_size>
__global__ void shared_dynamic_kernel(const float* Data, float* Cov, index_t num_entries, index_t num_features) {
  if (blockIdx.x * chunk_size >= blockIdx.y * chunk_size + chunk_size) return;
  extern __shared__ float dynamic_tiles[];
  auto cache_x = reinterpret_cast<float(*)[chunk_size]>(dynamic_tiles);
  auto cache_y = reinterpret_cast<float(*)[chunk_size]>(dynamic_tiles + chunk_size * chunk_size);
  shared_covariance_body<chunk_size>(cache_x, cache_y, Data, Cov, num_entries, num_features);
}
