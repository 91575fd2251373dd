#include "harness/measure/latency_probe.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/family/device_buffer.hpp"

#include <algorithm>
#include <random>

namespace occbench {

namespace {

// lines[i * words_per_line] = element index of the line that follows line i.
__global__ void scatter_cycle_kernel(std::uint32_t* lines, const std::uint32_t* next, std::size_t count,
                                     std::uint32_t words_per_line) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
    lines[i * words_per_line] = next[i] * words_per_line;
}

// One thread: each load's address is the previous load's value.
__global__ void chase_kernel(const std::uint32_t* lines, std::uint32_t* position, int steps) {
  std::uint32_t j = *position;
  for (int s = 0; s < steps; ++s) j = __ldcg(lines + j);
  *position = j;  // the next chase goes on from here, onto lines not yet touched
}

}  // namespace

LatencyProbeShape latency_probe_shape(std::size_t l2_bytes, std::size_t total_memory_bytes) {
  LatencyProbeShape s;
  s.buffer_bytes = std::max<std::size_t>(8 * l2_bytes, std::size_t(256) << 20);
  s.buffer_bytes = std::min<std::size_t>({s.buffer_bytes, std::size_t(512) << 20, total_memory_bytes / 8});
  s.buffer_bytes = s.buffer_bytes / s.line_bytes * s.line_bytes;
  return s;
}

std::vector<std::uint32_t> random_cycle(std::size_t count, std::uint64_t seed) {
  std::vector<std::uint32_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = std::uint32_t(i);
  std::mt19937_64 rng(seed);
  for (std::size_t i = count; i > 1; --i) {  // Sattolo: j < i - 1, so the permutation is one cycle
    std::size_t j = std::uniform_int_distribution<std::size_t>(0, i - 2)(rng);
    std::swap(order[i - 1], order[j]);
  }
  return order;  // i -> order[i] is one cycle
}

double measure_dram_latency_ns(const LatencyProbeShape& shape) {
  const std::size_t count = shape.buffer_bytes / shape.line_bytes;
  const auto words_per_line = std::uint32_t(shape.line_bytes / sizeof(std::uint32_t));
  DeviceBuffer<std::uint32_t> lines(count * words_per_line);
  {
    DeviceBuffer<std::uint32_t> next(count);
    next.upload(random_cycle(count, 0x1a7e9c));
    scatter_cycle_kernel<<<1024, 256>>>(lines.get(), next.get(), count, words_per_line);
    OCCBENCH_CHECK_LAUNCH();
  }
  // Writing the cycle left its last lines in L2; a write of more than the L2 elsewhere evicts them.
  {
    int device = 0, l2 = 0;
    OCCBENCH_CUDA_CHECK(cudaGetDevice(&device));
    OCCBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    DeviceBuffer<unsigned char> evict(std::size_t(2) * std::size_t(l2) + 1);
    OCCBENCH_CUDA_CHECK(cudaMemset(evict.get(), 0, evict.bytes()));
    OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  }
  DeviceBuffer<std::uint32_t> position(1);
  OCCBENCH_CUDA_CHECK(cudaMemset(position.get(), 0, sizeof(std::uint32_t)));
  chase_kernel<<<1, 1>>>(lines.get(), position.get(), 16);  // loads the module; untimed
  OCCBENCH_CHECK_LAUNCH();
  cudaEvent_t start, stop;
  OCCBENCH_CUDA_CHECK(cudaEventCreate(&start));
  OCCBENCH_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> ns;
  for (int r = 0; r < shape.repetitions; ++r) {
    OCCBENCH_CUDA_CHECK(cudaEventRecord(start));
    chase_kernel<<<1, 1>>>(lines.get(), position.get(), shape.steps);
    OCCBENCH_CHECK_LAUNCH();
    OCCBENCH_CUDA_CHECK(cudaEventRecord(stop));
    OCCBENCH_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    OCCBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    ns.push_back(double(ms) * 1e6 / shape.steps);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

}  // namespace occbench
