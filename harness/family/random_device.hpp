#pragma once
// The GPU twins of harness/family/random's fills and of a user kernel's initial values: element for
// element the host's values (one formula for both, harness/family/random_hash.hpp and
// harness/family/element_values.hpp), made on the device where they are used. A size's large inputs
// (gigabytes of cost-volume features, a 1 GiB vector) are then neither made on one host nor
// uploaded: on the H100 that took longer than a memory-bound sweep's timed samples.
#include "harness/family/element_values.hpp"
#include "harness/family/verify_device.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace occbench {

// How many leading elements the guard of a device fill compares with the host's.
constexpr std::size_t kFillGuardElements = 4096;

// The grid of a grid-stride kernel of kGridStrideThreads threads per block over `count` elements
// (the fills here, the families' expected-output and reference kernels): enough blocks to fill any
// GPU, no more than the elements need.
constexpr unsigned kGridStrideThreads = 256;
inline unsigned grid_stride_blocks(std::size_t count) {
  return unsigned(std::clamp<std::size_t>((count + kGridStrideThreads - 1) / kGridStrideThreads, 1, 65536));
}

// fill_uniform(data, count, seed, low, high) on the device (the legacy default stream, as uploads),
// then guarded: throws std::runtime_error where the first elements differ from the host's.
void fill_uniform_device(float* data, std::size_t count, std::uint64_t seed, float low = -1.0f, float high = 1.0f);

// Element i of `data` (as `kind`) = to_element(init_value_at(formula, a, b, seed, stream, i)); guarded as above.
void fill_initial_values_device(ElementKind kind, void* data, std::size_t count, InitFormula formula, double a, double b,
                                std::uint64_t seed, std::uint64_t stream);

// The guard of a device fill: the first `count` elements of `element_bytes` each, downloaded and
// compared bit for bit with the host's. "" when equal, else which element differs: a GPU that
// evaluated the shared formulas differently would otherwise show up as a wrong result.
std::string first_fill_difference(const void* device, const void* host, std::size_t element_bytes, std::size_t count);

// The same against host_value(i) for the first kFillGuardElements (or fewer) of `count` elements.
template <typename T, typename HostValue>
std::string first_fill_difference(const T* device, std::size_t count, HostValue&& host_value) {
  std::vector<T> host(std::min(count, kFillGuardElements));
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = host_value(i);
  return first_fill_difference(device, host.data(), sizeof(T), host.size());
}

}  // namespace occbench
