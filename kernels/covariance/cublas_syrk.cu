// cublas_syrk: cuBLAS SSYRK in FP32, the library a user would reach for, and the ceiling the
// other variants are measured against.
//
// cuBLAS is column-major. Row-major D (m x n, leading dimension n) read column-major is Dᵀ,
// an n x m matrix with lda = n, so C = (1/m) DᵀD = alpha A Aᵀ with A = Dᵀ: cublasSsyrk with
// trans = N, n = n, k = m. SSYRK writes one triangle. Element (i, j) of column-major C lives at
// i + j n, which row-major reads as C[j][i]: the column-major UPPER triangle (i <= j) is the
// row-major LOWER triangle (row >= col), the one the other kernels compute. A small kernel then
// mirrors it into the upper triangle so the output is the full matrix like the others'; it runs
// in the same run(), so its time is counted.
#include "kernels/covariance/covariance.hpp"
#include "kernels/covariance/launch.hpp"
#include "kernels/covariance/problem.hpp"

#include "harness/family/family_builder.hpp"

#include <cstdint>
#include <limits>

namespace occbench::covariance {

using index_t = std::uint32_t;

constexpr unsigned kMirrorTile = 32;
constexpr unsigned kMirrorRows = 8;

// One 32 x 32 tile on or below the diagonal per block (the others exit): read coalesced from the
// lower triangle, written transposed (coalesced, through shared memory) to the upper triangle.
__global__ void mirror_lower_to_upper_kernel(float* C, index_t n) {
  __shared__ float tile[kMirrorTile][kMirrorTile + 1];
  if (blockIdx.x > blockIdx.y) return;
  const index_t row0 = blockIdx.y * kMirrorTile, col0 = blockIdx.x * kMirrorTile;
  for (unsigned i = threadIdx.y; i < kMirrorTile; i += kMirrorRows) {
    const index_t r = row0 + i, c = col0 + threadIdx.x;
    if (r < n && c < r) tile[i][threadIdx.x] = C[r * n + c];
  }
  __syncthreads();
  for (unsigned i = threadIdx.y; i < kMirrorTile; i += kMirrorRows) {
    const index_t r = col0 + i, c = row0 + threadIdx.x;  // C[r][c] = C[c][r], c > r
    if (c < n && r < c) C[r * n + c] = tile[threadIdx.x][i];
  }
}

// SYRK's nominal work, n(n+1)/2 dot products of length m. The bytes cuBLAS issues are its own
// (tiling, split-k, workspace): global_bytes is left 0, so no CGMA is claimed for it. The mirror
// adds n(n-1)/2 floats read and written.
WorkModel cublas_work(std::int64_t m_, std::int64_t n_) {
  double m = double(m_), n = double(n_);
  WorkModel w;
  w.flops = n * (n + 1) * m;
  w.global_bytes = 0;
  w.dram_bytes = 4.0 * m * n + 4.0 * n * n;
  w.equivalent_flops = 2.0 * m * n * n;
  return w;
}

Variant cublas_syrk_variant() {
  return VariantBuilder("cublas_syrk",
                        "cuBLAS SSYRK (FP32) of the row-major lower triangle, then a mirror kernel to the upper triangle")
      .notes("math mode: pedantic=0 CUBLAS_DEFAULT_MATH, pedantic=1 CUBLAS_PEDANTIC_MATH; FP32 inputs, FP32 FMA, no TF32 "
             "(TF32 needs CUBLAS_TF32_TENSOR_OP_MATH or a TF32 compute type, never set); 32 MiB workspace; time includes "
             "the mirror kernel; global_bytes unknown for the library (0, no CGMA)")
      .axis(axis("pedantic", "0: CUBLAS_DEFAULT_MATH, 1: CUBLAS_PEDANTIC_MATH (both plain FP32)").one_of({0, 1}).by_default(0))
      .check([](const Params& p) -> std::string {
        if (p.get("m") > std::numeric_limits<int>::max()) return "cublasSsyrk takes m (its k) as a 32-bit int";
        return "";
      })
      // No launch spec: the timed work is a library call (occupancy is not ours to report).
      .work([](const Params& p) { return cublas_work(p.get("m"), p.get("n")); })
      .run_on<CovarianceProblem>([](auto& p, const Params& params, const LaunchSpec&, cudaStream_t stream) {
        cublasHandle_t h = p.cublas();
        OCCBENCH_CUBLAS_CHECK(cublasSetStream(h, stream));
        // cublasSetStream resets the workspace to cuBLAS's own pool: give it ours again.
        OCCBENCH_CUBLAS_CHECK(cublasSetWorkspace(h, p.cublas_workspace(), kCublasWorkspaceBytes));
        OCCBENCH_CUBLAS_CHECK(cublasSetMathMode(h, params.get("pedantic") ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH));
        OCCBENCH_CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
        const int n = int(p.n()), k = int(p.m());
        const float alpha = 1.0f / float(p.m()), beta = 0.0f;  // beta = 0: C's poison is never read
        OCCBENCH_CUBLAS_CHECK(
            cublasSsyrk(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, k, &alpha, p.data(), n, &beta, p.cov(), n));
        unsigned tiles = blocks_for(p.n(), kMirrorTile);
        mirror_lower_to_upper_kernel<<<dim3(tiles, tiles), dim3(kMirrorTile, kMirrorRows), 0, stream>>>(p.cov(), p.n());
        OCCBENCH_CHECK_LAUNCH();
      });
}

}  // namespace occbench::covariance
