#include "harness/family/verify_device.hpp"

#include "harness/core/cuda_check.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace occbench {

namespace {

struct CompareTotals {
  unsigned long long mismatches;
  unsigned long long max_error_bits;  // a non-negative double's bits order as the double does
  unsigned long long first_mismatch;  // index, or ~0 when none
};

// Warp-reduces and adds one thread's totals (mismatches, max error, first mismatch) to `totals`.
__device__ void add_totals(unsigned long long mismatches, double max_error, unsigned long long first, CompareTotals* totals) {
  for (int offset = 16; offset > 0; offset /= 2) {
    mismatches += __shfl_down_sync(0xffffffffu, mismatches, offset);
    max_error = fmax(max_error, __shfl_down_sync(0xffffffffu, max_error, offset));
    unsigned long long other = __shfl_down_sync(0xffffffffu, first, offset);
    first = other < first ? other : first;
  }
  if (threadIdx.x % 32 == 0) {
    if (mismatches) atomicAdd(&totals->mismatches, mismatches);
    atomicMax(&totals->max_error_bits, static_cast<unsigned long long>(__double_as_longlong(max_error)));
    if (first != ~0ull) atomicMin(&totals->first_mismatch, first);
  }
}

unsigned compare_blocks() {
  int device = 0, sms = 0;
  OCCBENCH_CUDA_CHECK(cudaGetDevice(&device));
  OCCBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return unsigned(sms * 8);
}

// The rule of harness/family/verify.cpp's compare(), element for element.
template <typename Ref>
__global__ void compare_kernel(const float* __restrict__ out, const Ref* __restrict__ ref, std::size_t count, double tolerance,
                               double abs_floor, CompareTotals* totals) {
  unsigned long long mismatches = 0, first = ~0ull;
  double max_error = 0;
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < count; k += std::size_t(gridDim.x) * blockDim.x) {
    double expected = double(ref[k]);
    double got = double(out[k]);
    double scale = fmax(fabs(expected), abs_floor);
    double error = fabs(got - expected) / (scale > 0 ? scale : 1.0);
    bool bad = !isfinite(got) || !(error <= tolerance);
    max_error = isfinite(error) ? fmax(max_error, error) : INFINITY;
    if (bad) {
      ++mismatches;
      if (first == ~0ull) first = k;
    }
  }
  add_totals(mismatches, max_error, first, totals);
}

template <typename Ref>
Verification compare_device(const float* out, const Ref* ref, std::size_t count, double tolerance, double abs_floor) {
  Verification v;
  v.tolerance = tolerance;
  v.checked = count;
  DeviceBuffer<CompareTotals> totals(1);
  CompareTotals initial{0, 0, ~0ull};
  OCCBENCH_CUDA_CHECK(cudaMemcpy(totals.get(), &initial, sizeof initial, cudaMemcpyHostToDevice));
  if (count) {
    compare_kernel<<<compare_blocks(), 256>>>(out, ref, count, tolerance, abs_floor, totals.get());
    OCCBENCH_CHECK_LAUNCH();
  }
  CompareTotals result{};
  OCCBENCH_CUDA_CHECK(cudaMemcpy(&result, totals.get(), sizeof result, cudaMemcpyDeviceToHost));
  v.mismatches = result.mismatches;
  std::memcpy(&v.max_rel_error, &result.max_error_bits, sizeof(double));
  if (v.mismatches) {
    float got = 0;
    Ref expected{};
    OCCBENCH_CUDA_CHECK(cudaMemcpy(&got, out + result.first_mismatch, sizeof got, cudaMemcpyDeviceToHost));
    OCCBENCH_CUDA_CHECK(cudaMemcpy(&expected, ref + result.first_mismatch, sizeof expected, cudaMemcpyDeviceToHost));
    v.detail = fmt::format("first at element {}: got {:.9g}, expected {:.9g}", result.first_mismatch, got, double(expected));
  }
  v.status = v.mismatches == 0 ? "passed" : "failed";
  return v;
}

// The rule of harness/sweep/source_family.cpp's host comparison, element for element.
template <typename T>
__global__ void compare_elements_kernel(const T* __restrict__ out, const T* __restrict__ expected, std::size_t count,
                                        double abs_tolerance, double rel_tolerance, CompareTotals* totals) {
  unsigned long long mismatches = 0, first = ~0ull;
  double max_error = 0;
  for (std::size_t k = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; k < count; k += std::size_t(gridDim.x) * blockDim.x) {
    double got = double(out[k]), want = double(expected[k]);
    double error = fabs(got - want);
    double rel = error / fmax(fabs(want), 2.2250738585072014e-308);
    bool ok = error <= abs_tolerance + rel_tolerance * fabs(want);
    max_error = isnan(rel) ? INFINITY : fmax(max_error, error == 0 ? 0.0 : rel);
    if (!ok) {
      ++mismatches;
      if (first == ~0ull) first = k;
    }
  }
  add_totals(mismatches, max_error, first, totals);
}

}  // namespace

Verification compare_elements_on_device(ElementKind kind, const void* out, const void* expected, std::size_t count,
                                        double abs_tolerance, double rel_tolerance, std::size_t& first_mismatch) {
  DeviceBuffer<CompareTotals> totals(1);
  CompareTotals initial{0, 0, ~0ull};
  OCCBENCH_CUDA_CHECK(cudaMemcpy(totals.get(), &initial, sizeof initial, cudaMemcpyHostToDevice));
  if (count) {
    unsigned blocks = compare_blocks();
    visit_element_kind(kind, [&](auto zero) {
      using T = decltype(zero);
      compare_elements_kernel<T><<<blocks, 256>>>(static_cast<const T*>(out), static_cast<const T*>(expected), count,
                                                  abs_tolerance, rel_tolerance, totals.get());
    });
    OCCBENCH_CHECK_LAUNCH();
  }
  CompareTotals result{};
  OCCBENCH_CUDA_CHECK(cudaMemcpy(&result, totals.get(), sizeof result, cudaMemcpyDeviceToHost));
  Verification v;
  v.tolerance = rel_tolerance;
  v.checked = count;
  v.mismatches = result.mismatches;
  std::memcpy(&v.max_rel_error, &result.max_error_bits, sizeof(double));
  first_mismatch = result.mismatches ? std::size_t(result.first_mismatch) : count;
  v.status = v.mismatches == 0 ? "passed" : "failed";
  return v;
}

Verification compare_on_device(const float* out_device, const float* ref_device, std::size_t count, double tolerance,
                               double abs_floor) {
  return compare_device(out_device, ref_device, count, tolerance, abs_floor);
}

Verification compare_on_device(const float* out_device, const double* ref_device, std::size_t count, double tolerance,
                               double abs_floor) {
  return compare_device(out_device, ref_device, count, tolerance, abs_floor);
}

}  // namespace occbench
