#include "harness/family/random_device.hpp"

#include "harness/core/cuda_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace occbench {

namespace {

__global__ void fill_uniform_kernel(float* __restrict__ data, std::size_t count, std::uint64_t key, float low, float high) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
    data[i] = uniform_float_at(key, i, low, high);
}

template <typename T>
__global__ void fill_initial_kernel(T* __restrict__ data, std::size_t count, InitFormula formula, double a, double b,
                                    std::uint64_t seed, std::uint64_t stream) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
    data[i] = to_element<T>(init_value_at(formula, a, b, seed, stream, i));
}

void throw_if_different(const std::string& difference) {
  if (!difference.empty()) throw std::runtime_error(difference);
}

template <typename T>
void fill_initial(void* data, std::size_t count, InitFormula formula, double a, double b, std::uint64_t seed,
                  std::uint64_t stream) {
  fill_initial_kernel<T><<<grid_stride_blocks(count), kGridStrideThreads>>>(static_cast<T*>(data), count, formula, a, b, seed, stream);
  OCCBENCH_CHECK_LAUNCH();
  throw_if_different(first_fill_difference(static_cast<const T*>(data), count, [&](std::size_t i) {
    return to_element<T>(init_value_at(formula, a, b, seed, stream, i));
  }));
}

}  // namespace

void fill_uniform_device(float* data, std::size_t count, std::uint64_t seed, float low, float high) {
  if (count == 0) return;
  const std::uint64_t key = stream_key(seed);
  fill_uniform_kernel<<<grid_stride_blocks(count), kGridStrideThreads>>>(data, count, key, low, high);
  OCCBENCH_CHECK_LAUNCH();
  throw_if_different(first_fill_difference(static_cast<const float*>(data), count,
                                           [&](std::size_t i) { return uniform_float_at(key, i, low, high); }));
}

void fill_initial_values_device(ElementKind kind, void* data, std::size_t count, InitFormula formula, double a, double b,
                                std::uint64_t seed, std::uint64_t stream) {
  if (count == 0) return;
  visit_element_kind(kind, [&](auto zero) { fill_initial<decltype(zero)>(data, count, formula, a, b, seed, stream); });
}

std::string first_fill_difference(const void* device, const void* host, std::size_t element_bytes, std::size_t count) {
  if (count == 0) return "";
  std::vector<unsigned char> got(count * element_bytes);
  OCCBENCH_CUDA_CHECK(cudaMemcpy(got.data(), device, got.size(), cudaMemcpyDeviceToHost));
  const auto* want = static_cast<const unsigned char*>(host);
  for (std::size_t i = 0; i < count; ++i)
    if (std::memcmp(got.data() + i * element_bytes, want + i * element_bytes, element_bytes) != 0)
      return fmt::format("the GPU's input generator differs from the host's at element {} of the first {}", i, count);
  return "";
}

}  // namespace occbench
