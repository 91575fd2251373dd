#pragma once
// Covariance C = (1/m) DᵀD (seeds 000 and 002): D is m entries (rows) x n features (columns),
// row-major float32, mean-centred; C is n x n, row-major, both triangles written.
//
// Variants: naive and symmetric (seed 002), shared_static and shared_dynamic (seed 000, one
// template instantiation per chunk size), cublas_syrk (cuBLAS SSYRK, FP32) and register_tiled (a
// register-tiled kernel over the lower triangle of tiles). Each kernel's work model sits next to it.
#include "harness/family/registry.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace occbench::covariance {

Family make_family();

// ---- data and CPU reference (reference.cpp) ------------------------------------------------

// m x n row-major, uniform in [-1, 1), then each column's mean (in double) subtracted. With m = 1
// centring would make every entry exactly zero, so a single row is left as drawn (the kernels
// compute (1/m)DᵀD whether or not D is centred).
std::vector<float> make_data(std::size_t m, std::size_t n, std::uint64_t seed);
void center_columns(float* d, std::size_t m, std::size_t n);

// The full n x n reference in double, both triangles: C[a][b] = sum_k D[k][a] D[k][b] / m.
std::vector<double> reference_full(const float* d, std::size_t m, std::size_t n);
// The same for a list of (a, b) pairs only, streaming D once (rows split over threads).
std::vector<double> reference_pairs(const float* d, std::size_t m, std::size_t n,
                                    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs);

// Whether verification compares the whole matrix (n(n+1)/2 * m multiply-adds of reference are
// cheap) or a sample of entries.
bool full_check(std::size_t m, std::size_t n);
inline constexpr std::size_t kRandomSamples = 4096;

// Positions (row, col) checked at large sizes: the whole diagonal, the whole last row and last
// column, and `random_count` random entries, half strictly below and half strictly above the
// diagonal. Sorted by row-major index, no duplicates.
std::vector<std::pair<std::uint32_t, std::uint32_t>> sample_positions(std::uint32_t n, std::size_t random_count,
                                                                      std::uint64_t seed);

// Tolerance for |got - expected| / sqrt(C[a][a] C[b][b]); see reference.cpp for why.
double tolerance(std::size_t m);

// Compares a computed C (n x n, row-major) with the reference at `positions` (all n*n when
// empty). `expected[k]` belongs to positions[k] (or to element k), `diagonal[j]` = C[j][j] in
// double. The error of each element is taken relative to sqrt(C[a][a] C[b][b]), the Cauchy-Schwarz
// bound of |C[a][b]|, so near-zero covariances are judged on the scale of their columns.
Verification compare_covariance(const float* got, std::size_t n,
                                const std::vector<std::pair<std::uint32_t, std::uint32_t>>& positions,
                                const std::vector<double>& expected, const std::vector<double>& diagonal,
                                double tol);

// ---- work models (next to each kernel, in the .cu files) -----------------------------------
// FLOPs count a multiply-add as 2 and are the work each kernel does as written; equivalent_flops
// is the full matrix, 2 m n^2, for every variant (the "full-matrix equivalent" GFLOP/s). Useful
// work is n(n+1) m (n(n+1)/2 dot products of length m). dram_bytes = 4 m n + 4 n^2 for all.
double useful_flops(double m, double n);
WorkModel naive_work(std::int64_t m, std::int64_t n);
WorkModel symmetric_work(std::int64_t m, std::int64_t n);
WorkModel shared_work(std::int64_t m, std::int64_t n, std::int64_t chunk);
// One chunk step of one c x c block of the shared kernels: 2c^2 floats loaded, c^3 multiply-adds.
WorkModel shared_chunk_step_work(std::int64_t chunk);
WorkModel register_tiled_work(std::int64_t m, std::int64_t n, std::int64_t block_tile, std::int64_t split_k);
WorkModel cublas_work(std::int64_t m, std::int64_t n);

// Rows of D each split of register_tiled takes (a multiple of its k-tile), and the splits launched.
std::uint32_t register_tiled_rows_per_split(std::uint32_t m, std::uint32_t split_k);
std::uint32_t register_tiled_splits(std::uint32_t m, std::uint32_t split_k);
inline constexpr int kRegisterTiledK = 8;  // rows of D per shared-memory stage

// ---- variants (built in the .cu files, assembled by make_family) ---------------------------
Variant naive_variant();
Variant symmetric_variant();
Variant shared_static_variant();
Variant shared_dynamic_variant();
Variant register_tiled_variant();
Variant register_tiled_bounded_variant();  // __launch_bounds__(256, min_blocks) variants
Variant cublas_syrk_variant();

}  // namespace occbench::covariance
