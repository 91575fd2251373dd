// register_tiled: the seeds' tiling taken further. Each block computes one BM x BM tile of C on
// or below the diagonal (the tiles above are never launched); each of its (BM/TM)^2 threads
// holds a TM x TM tile of C in registers. Per stage the block stages BK = 8 rows of the two
// column panels of D it needs (D[k][rows of the tile], D[k][columns of the tile]) in shared
// memory -- they are contiguous in row-major D, so the loads are coalesced and need no
// transpose -- double-buffered, the next stage's global loads in flight while the current one is
// computed. Per k a thread reads TM + TM floats from shared memory (16-byte reads) and does
// TM^2 multiply-adds. Off-diagonal tiles are written to both triangles; diagonal tiles compute
// their whole tile.
//
// 16-byte global loads need every row of D 16-byte aligned, i.e. n % 4 == 0; otherwise (the
// seed's n = 2475) the same kernel loads 4 bytes per thread, still coalesced. Both are
// instantiated and the launch picks by n.
//
// split_k > 1 cuts the m rows into that many ranges, one block per (tile, range): more blocks
// for the SMs when T(T+1)/2 tiles are few (n = 2475, BM = 128: 210 tiles on 132 SMs). Partial
// sums are added into C with atomicAdd after a memset to zero, both counted in the run's time.
#include "kernels/covariance/covariance.hpp"
#include "kernels/covariance/launch.hpp"
#include "kernels/covariance/problem.hpp"

#include "harness/family/family_builder.hpp"

#include <cmath>
#include <cstdint>

namespace occbench::covariance {

using index_t = std::uint32_t;

template <int BM, int TM>
struct TileShape {
  static constexpr int kEdgeThreads = BM / TM;
  static constexpr int kThreads = kEdgeThreads * kEdgeThreads;
  // Ask for at most 128 registers per thread (64 at 1024 threads): two 256-thread blocks per SM.
  static constexpr int kMinBlocks = kThreads >= 512 ? 1 : 512 / kThreads;
};

template <int BM, int TM, bool kVec4>
__device__ __forceinline__ void register_tiled_body(const float* __restrict__ D, float* __restrict__ C, index_t m,
                                                    index_t n, index_t rows_per_split, float inv_m, int accumulate) {
  constexpr int TD = TileShape<BM, TM>::kEdgeThreads;
  constexpr int NT = TileShape<BM, TM>::kThreads;
  constexpr int BK = kRegisterTiledK;
  constexpr int G = TM / 4;  // 4-wide groups per thread-tile edge, TD*4 apart (conflict-free reads)
  static_assert(TM % 4 == 0 && BM % TM == 0, "thread tile must be a multiple of 4 dividing the block tile");
  constexpr int kPanelFloats = BK * BM;
  constexpr int kVecLoads = (kPanelFloats / 4 + NT - 1) / NT;
  constexpr int kScalarLoads = (kPanelFloats + NT - 1) / NT;

  __shared__ __align__(16) float As[2][BK][BM];  // D[k][row_base .. row_base + BM)
  __shared__ __align__(16) float Bs[2][BK][BM];  // D[k][col_base .. col_base + BM)

  // Lower tile (ti >= tj) of the linear block index b = ti (ti + 1) / 2 + tj.
  const index_t b = blockIdx.x;
  index_t ti = index_t((sqrtf(8.0f * float(b) + 1.0f) - 1.0f) * 0.5f);
  while ((ti + 1) * (ti + 2) / 2 <= b) ++ti;
  while (ti * (ti + 1) / 2 > b) --ti;
  const index_t tj = b - ti * (ti + 1) / 2;
  const index_t row_base = ti * BM, col_base = tj * BM;

  const index_t k_begin = blockIdx.y * rows_per_split;
  const index_t k_end = min(m, k_begin + rows_per_split);
  const index_t num_tiles = (k_end - k_begin + BK - 1) / BK;

  const int tid = threadIdx.x;
  const int tx = tid % TD, ty = tid / TD;

  float4 va[kVec4 ? kVecLoads : 1], vb[kVec4 ? kVecLoads : 1];
  float sa[kVec4 ? 1 : kScalarLoads], sb[kVec4 ? 1 : kScalarLoads];

  auto load = [&](index_t k0) {
    if constexpr (kVec4) {
#pragma unroll
      for (int l = 0; l < kVecLoads; ++l) {
        const int idx = tid + l * NT;
        va[l] = vb[l] = make_float4(0.f, 0.f, 0.f, 0.f);
        if ((kPanelFloats / 4) % NT == 0 || idx < kPanelFloats / 4) {
          const index_t row = k0 + idx / (BM / 4);
          const index_t c = (idx % (BM / 4)) * 4;
          if (row < k_end) {
            const float* src = D + row * n;
            if (row_base + c < n) va[l] = __ldg(reinterpret_cast<const float4*>(src + row_base + c));
            if (col_base + c < n) vb[l] = __ldg(reinterpret_cast<const float4*>(src + col_base + c));
          }
        }
      }
    } else {
#pragma unroll
      for (int l = 0; l < kScalarLoads; ++l) {
        const int idx = tid + l * NT;
        sa[l] = sb[l] = 0.f;
        if (kPanelFloats % NT == 0 || idx < kPanelFloats) {
          const index_t row = k0 + idx / BM;
          const index_t c = idx % BM;
          if (row < k_end) {
            const float* src = D + row * n;
            if (row_base + c < n) sa[l] = __ldg(src + row_base + c);
            if (col_base + c < n) sb[l] = __ldg(src + col_base + c);
          }
        }
      }
    }
  };
  auto store = [&](int buf) {
    if constexpr (kVec4) {
#pragma unroll
      for (int l = 0; l < kVecLoads; ++l) {
        const int idx = tid + l * NT;
        if ((kPanelFloats / 4) % NT == 0 || idx < kPanelFloats / 4) {
          const int kr = idx / (BM / 4), c = (idx % (BM / 4)) * 4;
          *reinterpret_cast<float4*>(&As[buf][kr][c]) = va[l];
          *reinterpret_cast<float4*>(&Bs[buf][kr][c]) = vb[l];
        }
      }
    } else {
#pragma unroll
      for (int l = 0; l < kScalarLoads; ++l) {
        const int idx = tid + l * NT;
        if (kPanelFloats % NT == 0 || idx < kPanelFloats) {
          As[buf][idx / BM][idx % BM] = sa[l];
          Bs[buf][idx / BM][idx % BM] = sb[l];
        }
      }
    }
  };

  float acc[TM][TM];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TM; ++j) acc[i][j] = 0.f;

  load(k_begin);
  store(0);
  __syncthreads();
  for (index_t t = 0; t < num_tiles; ++t) {
    const int cur = int(t & 1);
    if (t + 1 < num_tiles) load(k_begin + (t + 1) * BK);  // in flight while this stage computes
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], bv[TM];
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const float4 x = *reinterpret_cast<const float4*>(&As[cur][k][g * TD * 4 + ty * 4]);
        const float4 y = *reinterpret_cast<const float4*>(&Bs[cur][k][g * TD * 4 + tx * 4]);
        a[4 * g + 0] = x.x, a[4 * g + 1] = x.y, a[4 * g + 2] = x.z, a[4 * g + 3] = x.w;
        bv[4 * g + 0] = y.x, bv[4 * g + 1] = y.y, bv[4 * g + 2] = y.z, bv[4 * g + 3] = y.w;
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TM; ++j) acc[i][j] = fmaf(a[i], bv[j], acc[i][j]);
    }
    // The other buffer was last read in the previous stage, which the barrier below closed.
    if (t + 1 < num_tiles) store(cur ^ 1);
    __syncthreads();
  }

  const bool diagonal_tile = ti == tj;
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const index_t row = row_base + (i / 4) * TD * 4 + ty * 4 + i % 4;
    if (row >= n) continue;
#pragma unroll
    for (int j = 0; j < TM; ++j) {
      const index_t col = col_base + (j / 4) * TD * 4 + tx * 4 + j % 4;
      if (col >= n) continue;
      const float v = acc[i][j] * inv_m;
      if (accumulate) {
        atomicAdd(&C[row * n + col], v);
        if (!diagonal_tile) atomicAdd(&C[col * n + row], v);
      } else {
        C[row * n + col] = v;
        if (!diagonal_tile) C[col * n + row] = v;
      }
    }
  }
}

template <int BM, int TM, bool kVec4>
__global__ void __launch_bounds__(TileShape<BM, TM>::kThreads, TileShape<BM, TM>::kMinBlocks)
    register_tiled_kernel(const float* __restrict__ D, float* __restrict__ C, index_t m, index_t n,
                          index_t rows_per_split, float inv_m, int accumulate) {
  register_tiled_body<BM, TM, kVec4>(D, C, m, n, rows_per_split, inv_m, accumulate);
}

// The same kernel with the register budget as a template parameter: __launch_bounds__(threads,
// MinBlocks) makes the compiler fit MinBlocks resident blocks per SM in the register file,
// spilling to local memory where the 8x8 accumulator tile does not fit.
template <int BM, int TM, bool kVec4, int MinBlocks>
__global__ void __launch_bounds__(TileShape<BM, TM>::kThreads, MinBlocks)
    register_tiled_bounded_kernel(const float* __restrict__ D, float* __restrict__ C, index_t m, index_t n,
                                  index_t rows_per_split, float inv_m, int accumulate) {
  register_tiled_body<BM, TM, kVec4>(D, C, m, n, rows_per_split, inv_m, accumulate);
}

std::uint32_t register_tiled_rows_per_split(std::uint32_t m, std::uint32_t split_k) {
  std::uint64_t per_split = (std::uint64_t(m) + split_k - 1) / split_k;
  return std::uint32_t((per_split + kRegisterTiledK - 1) / kRegisterTiledK * kRegisterTiledK);
}

std::uint32_t register_tiled_splits(std::uint32_t m, std::uint32_t split_k) {
  std::uint32_t rows = register_tiled_rows_per_split(m, split_k);
  return std::uint32_t((std::uint64_t(m) + rows - 1) / rows);
}

// Per stage one block loads 2 BK BM floats (8 BK BM bytes) and does BK BM^2 multiply-adds, so
// CGMA = 2 BK BM^2 / 8 BK BM = BM/4 FLOP/B (16 at BM = 64, 32 at BM = 128), whatever the thread
// tile (TM sets the reuse from registers: TM^2 multiply-adds per 2 TM shared-memory reads).
// The launch: T(T+1)/2 tiles (T = ceil(n/BM)) x the stages of every split, counted whole as for
// the seed's tiles (padding past n and the last stage's rows past m included); every split stores
// (or atomically adds) each of the n^2 entries once; split_k > 1 also zeroes C first (memset).
WorkModel register_tiled_work(std::int64_t m_, std::int64_t n_, std::int64_t block_tile, std::int64_t split_k) {
  double m = double(m_), n = double(n_), bm = double(block_tile), bk = kRegisterTiledK;
  double tiles = std::ceil(n / bm), blocks = tiles * (tiles + 1) / 2;
  std::uint32_t rows = register_tiled_rows_per_split(std::uint32_t(m_), std::uint32_t(split_k));
  std::uint32_t splits = register_tiled_splits(std::uint32_t(m_), std::uint32_t(split_k));
  double last_rows = m - double(splits - 1) * rows;
  double stages = double(splits - 1) * (rows / bk) + std::ceil(last_rows / bk);
  WorkModel w;
  w.flops = blocks * stages * bk * 2.0 * bm * bm;
  w.global_bytes = blocks * stages * 8.0 * bk * bm + 4.0 * n * n * splits + (splits > 1 ? 4.0 * n * n : 0.0);
  w.dram_bytes = 4.0 * m * n + 4.0 * n * n;
  w.equivalent_flops = 2.0 * m * n * n;
  return w;
}

namespace {

struct TiledKernels {
  int block_tile, thread_tile;
  KernelRef (*vec4)();  // functions, so the table stays constant-initialized
  KernelRef (*scalar)();
};

template <int kBlockTile, int kThreadTile>
constexpr TiledKernels tiled_kernels_of() {
  return {kBlockTile, kThreadTile, &kernel_ref<&register_tiled_kernel<kBlockTile, kThreadTile, true>>,
          &kernel_ref<&register_tiled_kernel<kBlockTile, kThreadTile, false>>};
}

constexpr TiledKernels kTiledKernels[] = {tiled_kernels_of<64, 4>(), tiled_kernels_of<64, 8>(), tiled_kernels_of<128, 4>(),
                                      tiled_kernels_of<128, 8>()};

const TiledKernels& tiled_kernels(std::int64_t block_tile, std::int64_t thread_tile) {
  for (const auto& k : kTiledKernels)
    if (k.block_tile == block_tile && k.thread_tile == thread_tile) return k;
  throw std::out_of_range("covariance: no register_tiled kernel instantiated for block_tile " +
                          std::to_string(block_tile) + ", thread_tile " + std::to_string(thread_tile));
}

// register_tiled_bounded: block_tile 128, thread_tile 8 (256 threads), one pair per min_blocks.
inline constexpr int kBoundedBlockTile = 128, kBoundedThreadTile = 8;

struct BoundedKernels {
  int min_blocks;
  KernelRef (*vec4)();
  KernelRef (*scalar)();
};

template <int kMinBlocks>
constexpr BoundedKernels bounded_kernels_of() {
  return {kMinBlocks,
          &kernel_ref<&register_tiled_bounded_kernel<kBoundedBlockTile, kBoundedThreadTile, true, kMinBlocks>>,
          &kernel_ref<&register_tiled_bounded_kernel<kBoundedBlockTile, kBoundedThreadTile, false, kMinBlocks>>};
}

constexpr BoundedKernels kBoundedKernels[] = {bounded_kernels_of<1>(), bounded_kernels_of<2>(), bounded_kernels_of<3>(),
                                              bounded_kernels_of<4>()};

const BoundedKernels& bounded_kernels(std::int64_t min_blocks) {
  for (const auto& k : kBoundedKernels)
    if (k.min_blocks == min_blocks) return k;
  throw std::out_of_range("covariance: no register_tiled_bounded kernel instantiated for min_blocks " +
                          std::to_string(min_blocks));
}

// Both register-tiled variants launch alike and take the same arguments.
LaunchSpec register_tiled_launch(const Params& p, const KernelRef& vec4, const KernelRef& scalar, int block_tile,
                                 int thread_tile) {
  std::uint32_t m = std::uint32_t(p.get("m")), n = std::uint32_t(p.get("n"));
  unsigned tiles = blocks_for(n, block_tile), edge = unsigned(block_tile / thread_tile);
  return launch_of(n % 4 == 0 ? vec4 : scalar,
                   {tiles * (tiles + 1) / 2, register_tiled_splits(m, std::uint32_t(p.get("split_k")))}, {edge * edge});
}

void register_tiled_run(CovarianceProblem& p, const Params& params, const LaunchSpec& l, cudaStream_t stream) {
  const int accumulate = l.grid.y > 1 ? 1 : 0;
  if (accumulate) OCCBENCH_CUDA_CHECK(cudaMemsetAsync(p.cov(), 0, std::size_t(p.n()) * p.n() * sizeof(float), stream));
  const index_t rows = register_tiled_rows_per_split(p.m(), std::uint32_t(params.get("split_k")));
  launch_kernel(l.kernel, l, stream, static_cast<const float*>(p.data()), p.cov(), index_t(p.m()), index_t(p.n()), rows,
                1.0f / float(p.m()), accumulate);
}

Axis split_k_axis() {
  return axis("split_k", "ranges the m rows are cut into, one block per tile and range (atomicAdd into C when > 1)")
      .in(1, 16)
      .by_default(1);
}

}  // namespace

Variant register_tiled_bounded_variant() {
  return VariantBuilder("register_tiled_bounded",
                        "register_tiled at block_tile 128, thread_tile 8 (256 threads) compiled with "
                        "__launch_bounds__(256, min_blocks): registers capped for min_blocks blocks per SM")
      .notes("min_blocks is a template parameter: 1 lets the compiler use up to 255 registers, 4 caps it at 64 (the 8x8 "
             "accumulator tile then spills to local memory); same work, loads and verification as register_tiled")
      .axis(axis("min_blocks", "__launch_bounds__ minimum resident blocks per SM (template parameter)").one_of({1, 2, 3, 4})
                .by_default(2))
      .axis(split_k_axis())
      .launch([](const Params& p) {
        const BoundedKernels& k = bounded_kernels(p.get("min_blocks"));
        return register_tiled_launch(p, k.vec4(), k.scalar(), kBoundedBlockTile, kBoundedThreadTile);
      })
      .work([](const Params& p) { return register_tiled_work(p.get("m"), p.get("n"), kBoundedBlockTile, p.get("split_k")); })
      .run_on<CovarianceProblem>(register_tiled_run);
}

Variant register_tiled_variant() {
  return VariantBuilder("register_tiled",
                        "block_tile^2 tile of C per block (lower-triangle tiles only, mirrored writes), thread_tile^2 per "
                        "thread in registers, D panels staged in shared memory 8 rows at a time, double-buffered")
      .notes("16-byte global loads when n % 4 == 0, else 4-byte coalesced loads (the kernel name's last template argument "
             "says which); split_k > 1 adds partial sums with atomicAdd after zeroing C (memset timed)")
      .axis(axis("block_tile", "edge of the tile of C one block computes").one_of({64, 128}).by_default(128))
      .axis(axis("thread_tile", "edge of the tile of C one thread keeps in registers ((block_tile/thread_tile)^2 threads)")
                .one_of({4, 8}).by_default(8))
      .axis(split_k_axis())
      .check([](const Params& p) -> std::string {
        tiled_kernels(p.get("block_tile"), p.get("thread_tile"));  // every legal pair is instantiated
        return "";
      })
      .launch([](const Params& p) {
        const TiledKernels& k = tiled_kernels(p.get("block_tile"), p.get("thread_tile"));
        return register_tiled_launch(p, k.vec4(), k.scalar(), k.block_tile, k.thread_tile);
      })
      .work([](const Params& p) { return register_tiled_work(p.get("m"), p.get("n"), p.get("block_tile"), p.get("split_k")); })
      .run_on<CovarianceProblem>(register_tiled_run);
}

}  // namespace occbench::covariance
