// Matrix multiply (seed 004): where shared memory pays through reuse. The naive kernel loads 2k
// floats per output; a tile of T x T outputs shares each loaded element T times, cutting the
// global traffic by T. cuBLAS (FP32, no tensor cores) is the ceiling.
#include "kernels/matmul/matmul.hpp"
#include "kernels/matmul/problem.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/family/family_builder.hpp"
#include "harness/family/random.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace occbench::matmul {

// One thread per element of C; the block is edge x edge threads (blockDim set at launch).
__global__ void naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                             int n, int k) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) sum += a[row * k + p] * b[p * n + col];
  c[row * n + col] = sum;
}

// The seed's tiled kernel: Tile x Tile threads, each step loads one tile of A and one of B into
// shared memory (zero outside the matrices), __syncthreads, Tile multiply-adds, __syncthreads.
template <int Tile>
__device__ __forceinline__ void tiled_body(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                           int m, int n, int k) {
  __shared__ float tile_a[Tile][Tile];
  __shared__ float tile_b[Tile][Tile];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * Tile + ty;
  int col = blockIdx.x * Tile + tx;
  float sum = 0.0f;
  for (int t = 0; t < k; t += Tile) {
    tile_a[ty][tx] = (row < m && t + tx < k) ? a[row * k + t + tx] : 0.0f;
    tile_b[ty][tx] = (t + ty < k && col < n) ? b[(t + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < Tile; ++p) sum += tile_a[ty][p] * tile_b[p][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}

template <int Tile>
__global__ void tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                             int n, int k) {
  tiled_body<Tile>(a, b, c, m, n, k);
}

// The same kernel with a register budget: __launch_bounds__(Tile^2, MinBlocks) makes the compiler
// fit MinBlocks resident blocks per SM in the register file (spilling to local memory if it must).
template <int Tile, int MinBlocks>
__global__ void __launch_bounds__(Tile * Tile, MinBlocks)
    tiled_bounded_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n,
                         int k) {
  tiled_body<Tile>(a, b, c, m, n, k);
}

MatmulProblem::MatmulProblem(std::size_t m, std::size_t n, std::size_t k, std::uint64_t seed)
    : m_(m),
      n_(n),
      k_(k),
      a_host_(random_floats(m * k, seed)),
      b_host_(random_floats(k * n, seed ^ 0x9e3779b97f4a7c15ull)),
      a_(m * k),
      b_(k * n),
      c_(m * n),
      rows_(reference_rows(m, n, k)) {
  a_.upload(a_host_);
  b_.upload(b_host_);
  OCCBENCH_CUBLAS_CHECK(cublasCreate(&handle_));
  OCCBENCH_CUBLAS_CHECK(cublasSetMathMode(handle_, kCublasMathMode));
}

MatmulProblem::~MatmulProblem() {
  if (handle_) cublasDestroy(handle_);
}

void MatmulProblem::poison_outputs() { c_.poison(); }

Verification MatmulProblem::verify() {
  if (ref_.empty() && !rows_.empty()) {
    ref_.resize(rows_.size() * n_);
    scale_.resize(rows_.size() * n_);
    reference(a_host_.data(), b_host_.data(), m_, n_, k_, rows_, ref_.data(), scale_.data());
  }
  std::vector<float> got = c_.download();
  return compare(got.data(), m_, n_, rows_, ref_.data(), scale_.data(), kTolerance);
}

namespace {


constexpr std::int64_t kMaxGridY = 65535;

// grid.y counts blocks of rows: at most 65535 of them.
std::string grid_y_check(const Params& p, std::int64_t edge) {
  std::int64_t blocks = (p.get("m") + edge - 1) / edge;
  if (blocks > kMaxGridY)
    return fmt::format("m = {} needs {} blocks of {} rows, more than the grid's 65535 in y", p.get("m"), blocks, edge);
  return "";
}

using KernelFn = void (*)(const float*, const float*, float*, int, int, int);

struct TiledInstance {
  std::int64_t tile;
  KernelFn kernel;
  KernelRef (*ref)();  // a function, so the table stays constant-initialized
};

template <int kTile>
constexpr TiledInstance tiled_instance_of() {
  return {kTile, &tiled_kernel<kTile>, &kernel_ref<&tiled_kernel<kTile>>};
}

// The tiled kernel's instantiations, one per legal tile.
constexpr TiledInstance kTiledInstances[] = {tiled_instance_of<8>(), tiled_instance_of<16>(), tiled_instance_of<32>()};
static_assert(std::size(kTiledInstances) == std::size(kTiles));

const TiledInstance& tiled_instance(std::int64_t tile) {
  for (const auto& t : kTiledInstances)
    if (t.tile == tile) return t;
  throw std::invalid_argument(fmt::format("no tiled matmul kernel for tile {}", tile));
}

struct BoundedInstance {
  std::int64_t tile, min_blocks;
  KernelFn kernel;
  KernelRef (*ref)();
};

template <int kTile, int kMinBlocks>
constexpr BoundedInstance bounded_instance_of() {
  return {kTile, kMinBlocks, &tiled_bounded_kernel<kTile, kMinBlocks>, &kernel_ref<&tiled_bounded_kernel<kTile, kMinBlocks>>};
}

// tile^2 * min_blocks threads must fit an SM (2048 threads on every GPU of the table).
constexpr BoundedInstance kBoundedInstances[] = {bounded_instance_of<16, 1>(), bounded_instance_of<16, 2>(),
                                                 bounded_instance_of<16, 4>(), bounded_instance_of<16, 8>(),
                                                 bounded_instance_of<32, 1>(), bounded_instance_of<32, 2>()};

const BoundedInstance* bounded_instance(std::int64_t tile, std::int64_t min_blocks) {
  for (const auto& t : kBoundedInstances)
    if (t.tile == tile && t.min_blocks == min_blocks) return &t;
  return nullptr;
}

const BoundedInstance& bounded_instance_or_throw(const Params& p) {
  if (const BoundedInstance* t = bounded_instance(p.get("tile"), p.get("min_blocks"))) return *t;
  throw std::invalid_argument(fmt::format("no tiled_bounded matmul kernel for tile {}, min_blocks {}", p.get("tile"),
                                          p.get("min_blocks")));
}

double dim(const Params& p, const char* name) { return double(p.get(name)); }

}  // namespace

Family make_family() {
  auto size_axis = [](const char* name, const char* description) {
    return axis(name, description).in(1, std::numeric_limits<std::int32_t>::max());
  };
  return FamilyBuilder("matmul",
                       "C = A·B in float32, row-major, alpha = 1, beta = 0 (seed 004): naive vs shared-memory tiles vs "
                       "cuBLAS SGEMM")
      .size(size_axis("m", "rows of A and C"))
      .size(size_axis("n", "columns of B and C"))
      .size(size_axis("k", "columns of A, rows of B (the dot-product length)"))
      .check_sizes([](const Params& s) -> std::string {
        double m = dim(s, "m"), n = dim(s, "n"), k = dim(s, "k");
        double limit = double(std::numeric_limits<std::int32_t>::max());
        if (m * k > limit || k * n > limit || m * n > limit)
          return fmt::format("m*k, k*n and m*n must each fit in a 32-bit int (the kernels' index type); got {}, {}, {}",
                             m * k, k * n, m * n);
        return "";
      })
      .device_bytes([](const Params& s) {
        std::uint64_t m = s.get("m"), n = s.get("n"), k = s.get("k");
        return 4 * (m * k + k * n + m * n) + (std::uint64_t(64) << 20);  // + cuBLAS's workspace, generously
      })
      .problem([](const Params& s, std::uint64_t seed) -> std::unique_ptr<Problem> {
        return std::make_unique<MatmulProblem>(std::size_t(s.get("m")), std::size_t(s.get("n")), std::size_t(s.get("k")),
                                               seed);
      })
      .variant(VariantBuilder("naive",
                              "one thread per element of C, 2k loads from global memory each (block_size^2 threads per block)")
                   .axis(axis("block_size", "edge of the square thread block (block_size x block_size threads)")
                             .one_of({std::begin(kNaiveEdges), std::end(kNaiveEdges)}).by_default(16))
                   .launch([](const Params& p) {
                     auto e = p.get("block_size");
                     return launch_of(kernel_ref<&naive_kernel>(), {blocks_for(p.get("n"), e), blocks_for(p.get("m"), e)},
                                      {unsigned(e), unsigned(e)});
                   })
                   .check([](const Params& p) { return grid_y_check(p, p.get("block_size")); })
                   .work([](const Params& p) { return naive_work(dim(p, "m"), dim(p, "n"), dim(p, "k")); })
                   .run_on<MatmulProblem>([](auto& p, const Params&, const LaunchSpec& l, cudaStream_t stream) {
                     naive_kernel<<<to_dim3(l.grid), to_dim3(l.block), l.dynamic_smem_bytes, stream>>>(p.a(), p.b(), p.c(), p.m(), p.n(), p.k());
                   }))
      .variant(VariantBuilder("tiled", "the seed's shared-memory tiles: tile x tile threads, one tile of A and of B per step")
                   .axis(axis("tile", "tile edge: tile x tile threads per block, two tile x tile float tiles in shared memory")
                             .one_of({std::begin(kTiles), std::end(kTiles)}).by_default(32))
                   .launch([](const Params& p) {
                     const auto& t = tiled_instance(p.get("tile"));
                     return launch_of(t.ref(), {blocks_for(p.get("n"), t.tile), blocks_for(p.get("m"), t.tile)},
                                      {unsigned(t.tile), unsigned(t.tile)});
                   })
                   .check([](const Params& p) { return grid_y_check(p, p.get("tile")); })
                   .work([](const Params& p) { return tiled_work(dim(p, "m"), dim(p, "n"), dim(p, "k"), dim(p, "tile")); })
                   .run_on<MatmulProblem>([](auto& p, const Params& params, const LaunchSpec& l, cudaStream_t stream) {
                     KernelFn kernel = tiled_instance(params.get("tile")).kernel;
                     kernel<<<to_dim3(l.grid), to_dim3(l.block), l.dynamic_smem_bytes, stream>>>(p.a(), p.b(), p.c(), p.m(), p.n(), p.k());
                   }))
      .variant(VariantBuilder("tiled_bounded",
                              "the tiled kernel compiled with __launch_bounds__(tile^2, min_blocks): a register budget for "
                              "min_blocks resident blocks per SM (register pressure as an occupancy lever)")
                   .axis(axis("tile", "tile edge: tile x tile threads per block").one_of({16, 32}).by_default(32))
                   .axis(axis("min_blocks", "__launch_bounds__ minimum resident blocks per SM (template parameter)")
                             .one_of({1, 2, 4, 8}).by_default(1))
                   .check([](const Params& p) -> std::string {
                     if (!bounded_instance(p.get("tile"), p.get("min_blocks")))
                       return fmt::format("tile {} with min_blocks {} is not instantiated (tile^2 x min_blocks must be at "
                                          "most 2048 threads: tile 16 takes 1, 2, 4, 8; tile 32 takes 1, 2)",
                                          p.get("tile"), p.get("min_blocks"));
                     return grid_y_check(p, p.get("tile"));
                   })
                   .launch([](const Params& p) {
                     const auto& t = bounded_instance_or_throw(p);
                     return launch_of(t.ref(), {blocks_for(p.get("n"), t.tile), blocks_for(p.get("m"), t.tile)},
                                      {unsigned(t.tile), unsigned(t.tile)});
                   })
                   .work([](const Params& p) { return tiled_work(dim(p, "m"), dim(p, "n"), dim(p, "k"), dim(p, "tile")); })
                   .run_on<MatmulProblem>([](auto& p, const Params& params, const LaunchSpec& l, cudaStream_t stream) {
                     KernelFn kernel = bounded_instance_or_throw(params).kernel;
                     kernel<<<to_dim3(l.grid), to_dim3(l.block), l.dynamic_smem_bytes, stream>>>(p.a(), p.b(), p.c(), p.m(), p.n(), p.k());
                   }))
      .variant(
          VariantBuilder("cublas_sgemm", "cublasSgemm in FP32 (no TF32), row-major through C^T = B^T A^T")
              .notes("cublasSgemm with cublasSetMathMode(CUBLAS_DEFAULT_MATH): FP32 inputs and FP32 accumulation, no TF32 "
                     "tensor-core math (that needs CUBLAS_TF32_TENSOR_OP_MATH; verification at 1e-5 of sum|a||b| would "
                     "reject TF32 results). work.global_bytes is the minimal DRAM traffic: cuBLAS's own traffic is not "
                     "modelled.")
              .work([](const Params& p) { return library_work(dim(p, "m"), dim(p, "n"), dim(p, "k")); })
              .run_on<MatmulProblem>([](auto& p, const Params&, const LaunchSpec&, cudaStream_t stream) {
                const float alpha = 1.0f, beta = 0.0f;
                OCCBENCH_CUBLAS_CHECK(cublasSetStream(p.cublas(), stream));
                // Row-major C (m x n) is column-major C^T (n x m) = B^T (n x k) · A^T (k x m): B and A are
                // passed as they lie in memory, untransposed, with leading dimensions n and k.
                OCCBENCH_CUBLAS_CHECK(cublasSgemm(p.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, p.n(), p.m(), p.k(), &alpha, p.b(),
                                                  p.n(), p.a(), p.k(), &beta, p.c(), p.n()));
              }));
}

}  // namespace occbench::matmul
