#pragma once
// Matrix multiply (seed 004): C = A·B in float32, row-major, alpha = 1, beta = 0.
// A is m x k, B is k x n, C is m x n.
#include "harness/family/registry.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace occbench::matmul {

Family make_family();

// Tile edges of the `tiled` variant: one template instantiation each.
inline constexpr std::int64_t kTiles[] = {8, 16, 32};
// Square block edges of the `naive` variant.
inline constexpr std::int64_t kNaiveEdges[] = {8, 16, 32};

// Verification: |c - ref| <= kTolerance * sum_p |a_ip| |b_pj|, the error scale of a float32 dot
// product. Random data in [-1, 1) computed in FP32 lands near 1e-7 of that scale; TF32 inputs
// (10-bit mantissa) land near 5e-4/sqrt(k), so 1e-5 passes FP32 and fails TF32 up to k ~ 4096.
inline constexpr double kTolerance = 1e-5;
// The double-precision reference computes whole rows of C; above this many multiply-adds it
// computes only a sample of rows (every element is still checked for being written: no NaN).
inline constexpr double kFullReferenceMacs = 2.2e9;

// Work models (FLOPs, bytes as issued, minimal DRAM bytes), per variant.
WorkModel naive_work(double m, double n, double k);
WorkModel tiled_work(double m, double n, double k, double tile);
WorkModel library_work(double m, double n, double k);

// The rows of C the reference computes: all of them when m*n*k <= max_macs, else a sample that
// includes the first and last rows and is spread evenly in between.
std::vector<std::size_t> reference_rows(std::size_t m, std::size_t n, std::size_t k, double max_macs = kFullReferenceMacs);

// Double-precision rows of C = A·B (row-major) and, per element, sum_p |a_ip| |b_pj|. `ref` and
// `scale` get rows.size() * n values, row after row. Runs on all hardware threads.
void reference(const float* a, const float* b, std::size_t m, std::size_t n, std::size_t k,
               const std::vector<std::size_t>& rows, double* ref, double* scale);

// Compares the computed C (all m*n elements) with the reference rows: an element of a sampled row
// passes when |c - ref| <= tolerance * scale. Elements of the rows not sampled are only checked
// for being finite (unwritten = NaN poison); `checked` counts the elements compared by value.
Verification compare(const float* c, std::size_t m, std::size_t n, const std::vector<std::size_t>& rows,
                     const double* ref, const double* scale, double tolerance);

}  // namespace occbench::matmul
