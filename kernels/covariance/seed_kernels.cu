// The seeds' kernels: naive and symmetric (seed 002), and the shared-memory tiled kernel of seed
// 000 with its two chunk x chunk tiles either static (__shared__ arrays) or dynamic (one extern
// __shared__ buffer sized at launch). Each kernel's work model follows it.
//
// Indices are 32-bit unsigned as in the seeds (index_t); the family refuses sizes where m*n or
// n*n do not fit (check_sizes).
#include "kernels/covariance/covariance.hpp"
#include "kernels/covariance/launch.hpp"
#include "kernels/covariance/problem.hpp"

#include "harness/family/family_builder.hpp"

#include <cmath>
#include <cstdint>

namespace occbench::covariance {

using index_t = std::uint32_t;

namespace {

double dram_bytes(double m, double n) { return 4.0 * m * n + 4.0 * n * n; }

}  // namespace

// ---- naive (seed 002): one thread per C[j][J], the whole matrix ------------------------------
__global__ void naive_kernel(const float* Data, float* Cov, index_t num_entries, index_t num_features) {
  const index_t J = blockDim.x * blockIdx.x + threadIdx.x;
  const index_t j = blockDim.y * blockIdx.y + threadIdx.y;
  if (j < num_features && J < num_features) {
    float accum = 0;
    for (index_t entry = 0; entry < num_entries; entry++)
      accum += Data[entry * num_features + j] * Data[entry * num_features + J];
    Cov[j * num_features + J] = accum / num_entries;
  }
}

// Every thread of the n x n entries: m multiply-adds, 2 loads each, one store.
WorkModel naive_work(std::int64_t m_, std::int64_t n_) {
  double m = double(m_), n = double(n_);
  WorkModel w;
  w.flops = 2.0 * m * n * n;
  w.global_bytes = n * n * (8.0 * m + 4.0);
  w.dram_bytes = dram_bytes(m, n);
  w.equivalent_flops = 2.0 * m * n * n;
  return w;
}

// ---- symmetric (seed 002): only J <= j computed, both triangles written -----------------------
__global__ void symmetric_kernel(const float* Data, float* Cov, index_t num_entries, index_t num_features) {
  const index_t J = blockDim.x * blockIdx.x + threadIdx.x;
  const index_t j = blockDim.y * blockIdx.y + threadIdx.y;
  if (j < num_features && J <= j) {
    float accum = 0;
    for (index_t entry = 0; entry < num_entries; entry++)
      accum += Data[entry * num_features + j] * Data[entry * num_features + J];
    Cov[j * num_features + J] = Cov[J * num_features + j] = accum / num_entries;
  }
}

// n(n+1)/2 threads do m multiply-adds with 2 loads each and store 2 floats (the diagonal's two
// stores hit the same address but are both issued).
WorkModel symmetric_work(std::int64_t m_, std::int64_t n_) {
  double m = double(m_), n = double(n_), pairs = n * (n + 1) / 2;
  WorkModel w;
  w.flops = 2.0 * m * pairs;
  w.global_bytes = pairs * (8.0 * m + 8.0);
  w.dram_bytes = dram_bytes(m, n);
  w.equivalent_flops = 2.0 * m * n * n;
  return w;
}

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

// Per chunk step, one c x c block loads 2c^2 floats (8c^2 bytes) and its tile product is c^3
// multiply-adds (2c^3 FLOPs): CGMA = 2c^3 / 8c^2 = c/4 FLOP/B. (Seed 000 counts a multiply-add
// as one operation and so reads c/8: 0.25 at c = 2, 1.0 at c = 8.)
WorkModel shared_chunk_step_work(std::int64_t chunk) {
  double c = double(chunk);
  WorkModel w;
  w.flops = 2.0 * c * c * c;
  w.global_bytes = 8.0 * c * c;
  return w;
}

// The launch: T(T+1)/2 blocks on or below the diagonal (T = ceil(n/c); the others exit at once),
// each doing ceil(m/c) chunk steps as above, counted whole (the diagonal blocks' threads above
// the diagonal load but skip the products; padding lanes past n or m are counted too: the model
// counts the block's tile as the seed does). Plus the stores: 2 floats for each of the n(n+1)/2
// entries computed. So CGMA = c/4 up to the stores, which move it by about c/m.
WorkModel shared_work(std::int64_t m_, std::int64_t n_, std::int64_t chunk) {
  double m = double(m_), n = double(n_);
  double tiles = std::ceil(n / double(chunk));
  double blocks = tiles * (tiles + 1) / 2;
  double steps = std::ceil(m / double(chunk));
  WorkModel step = shared_chunk_step_work(chunk);
  WorkModel w;
  w.flops = blocks * steps * step.flops;
  w.global_bytes = blocks * steps * step.global_bytes + 8.0 * n * (n + 1) / 2;
  w.dram_bytes = dram_bytes(m, n);
  w.equivalent_flops = 2.0 * m * n * n;
  return w;
}

// ---- registration -----------------------------------------------------------------------------
namespace {

struct ChunkKernels {
  std::int64_t chunk;
  KernelRef (*static_kernel)();  // functions, so the table stays constant-initialized
  KernelRef (*dynamic_kernel)();
};

template <index_t kChunk>
constexpr ChunkKernels chunk_kernels_of() {
  return {kChunk, &kernel_ref<&shared_static_kernel<kChunk>>, &kernel_ref<&shared_dynamic_kernel<kChunk>>};
}

constexpr ChunkKernels kChunkKernels[] = {chunk_kernels_of<2>(), chunk_kernels_of<4>(), chunk_kernels_of<8>(),
                                      chunk_kernels_of<16>(), chunk_kernels_of<32>()};

const ChunkKernels& chunk_kernels(std::int64_t chunk) {
  for (const auto& k : kChunkKernels)
    if (k.chunk == chunk) return k;
  throw std::out_of_range("covariance: no shared kernel instantiated for chunk_size " + std::to_string(chunk));
}

Axis block_size_axis() {
  return axis("block_size", "edge of the square thread block: block_size x block_size threads, one per entry of C")
      .one_of({4, 8, 16, 32}).by_default(8);  // the seed's 8 x 8
}

Axis chunk_size_axis() {
  std::vector<std::int64_t> chunks;
  for (const auto& k : kChunkKernels) chunks.push_back(k.chunk);
  return axis("chunk_size", "edge of the tile: chunk_size x chunk_size threads and two chunk_size^2-float shared tiles")
      .one_of(chunks).by_default(8);  // the seed's default
}

void run_seed_kernel(CovarianceProblem& p, const Params&, const LaunchSpec& l, cudaStream_t stream) {
  launch_kernel(l.kernel, l, stream, p.data(), p.cov(), index_t(p.m()), index_t(p.n()));
}

// One thread per entry of C in block_size x block_size blocks.
template <auto Kernel>
Variant per_entry_variant(std::string name, std::string description, WorkModel (*work)(std::int64_t, std::int64_t)) {
  return VariantBuilder(std::move(name), std::move(description))
      .axis(block_size_axis())
      .launch([](const Params& p) {
        unsigned edge = unsigned(p.get("block_size"));
        return launch_of(kernel_ref<Kernel>(), {blocks_for(p.get("n"), edge), blocks_for(p.get("n"), edge)}, {edge, edge});
      })
      .work([work](const Params& p) { return work(p.get("m"), p.get("n")); })
      .run_on<CovarianceProblem>(run_seed_kernel);
}

Variant shared_variant(bool dynamic) {
  return VariantBuilder(dynamic ? "shared_dynamic" : "shared_static",
                        dynamic ? "seed 000's tiled kernel with both tiles in one extern __shared__ buffer of 2 chunk^2 "
                                  "floats sized at launch"
                                : "seed 000's tiled kernel: two static __shared__ chunk x chunk tiles, blocks above the "
                                  "diagonal exit, result mirrored")
      .axis(chunk_size_axis())
      .launch([dynamic](const Params& p) {
        const ChunkKernels& k = chunk_kernels(p.get("chunk_size"));
        unsigned c = unsigned(k.chunk);
        return launch_of(dynamic ? k.dynamic_kernel() : k.static_kernel(), {blocks_for(p.get("n"), c), blocks_for(p.get("n"), c)},
                         {c, c}, dynamic ? 2 * std::size_t(c) * c * sizeof(float) : 0);
      })
      .work([](const Params& p) { return shared_work(p.get("m"), p.get("n"), p.get("chunk_size")); })
      .run_on<CovarianceProblem>(run_seed_kernel);
}

}  // namespace

Variant naive_variant() {
  return per_entry_variant<&naive_kernel>("naive", "seed 002: one thread per entry of C, the whole n x n matrix", &naive_work);
}

Variant symmetric_variant() {
  return per_entry_variant<&symmetric_kernel>(
      "symmetric", "seed 002: only entries with J <= j computed, written to both triangles", &symmetric_work);
}

Variant shared_static_variant() { return shared_variant(false); }
Variant shared_dynamic_variant() { return shared_variant(true); }

}  // namespace occbench::covariance
