#include "harness/measure/memory_probes.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/measure/stats.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace occbench {

namespace {

// Each thread sums float4s strided across the whole buffer `passes` times; the sum goes to `sink`
// only when it is impossible (a negative count), so the loads cannot be removed.
__global__ void l2_read_kernel(const float4* __restrict__ data, std::size_t count, int passes, float* sink) {
  float4 sum = make_float4(0, 0, 0, 0);
  std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (int pass = 0; pass < passes; ++pass)
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += stride) {
      float4 v = __ldcg(data + i);  // cached in L2 only: the L1 must not serve the repeats
      sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
    }
  if (sum.x + sum.y + sum.z + sum.w == -1.0f && count == 0) *sink = sum.x;
}

constexpr int kSmemFloat4 = 2048;  // 32 KiB per block

__global__ void smem_read_kernel(int iterations, float* sink) {
  __shared__ float4 tile[kSmemFloat4];
  for (int i = threadIdx.x; i < kSmemFloat4; i += blockDim.x) tile[i] = make_float4(i, i + 1, i + 2, i + 3);
  __syncthreads();
  float4 sum = make_float4(0, 0, 0, 0);
  // Consecutive threads read consecutive float4s: four conflict-free wavefronts per warp load.
  for (int it = 0; it < iterations; ++it) {
    float4 v = tile[(threadIdx.x + it * 32) & (kSmemFloat4 - 1)];
    sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
  }
  if (sum.x + sum.y + sum.z + sum.w == -1.0f) *sink = sum.x;
}

template <typename Launch>
double median_ms(int repetitions, Launch launch) {
  cudaEvent_t start, stop;
  OCCBENCH_CUDA_CHECK(cudaEventCreate(&start));
  OCCBENCH_CUDA_CHECK(cudaEventCreate(&stop));
  launch();  // warm-up (and the L2 filled)
  OCCBENCH_CUDA_CHECK(cudaGetLastError());
  std::vector<double> samples;
  for (int i = 0; i < repetitions; ++i) {
    OCCBENCH_CUDA_CHECK(cudaEventRecord(start));
    launch();
    OCCBENCH_CUDA_CHECK(cudaEventRecord(stop));
    OCCBENCH_CUDA_CHECK(cudaEventSynchronize(stop));
    OCCBENCH_CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    OCCBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    samples.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize(samples, "hot").median_ms;
}

}  // namespace

double measure_l2_bandwidth_gbps(std::size_t l2_bytes, int sm_count, int repetitions) {
  std::size_t bytes = l2_bytes / 4 / sizeof(float4) * sizeof(float4);
  std::size_t count = bytes / sizeof(float4);
  float4* data = nullptr;
  float* sink = nullptr;
  OCCBENCH_CUDA_CHECK(cudaMalloc(&data, bytes));
  OCCBENCH_CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
  OCCBENCH_CUDA_CHECK(cudaMemset(data, 0, bytes));
  const int passes = 20;
  double ms = median_ms(repetitions, [&] { l2_read_kernel<<<sm_count * 4, 512>>>(data, count, passes, sink); });
  cudaFree(data);
  cudaFree(sink);
  return double(bytes) * passes / (ms * 1e-3) / 1e9;
}

double measure_smem_bandwidth_gbps(int sm_count, int repetitions) {
  float* sink = nullptr;
  OCCBENCH_CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
  const int iterations = 4096, threads = 512, blocks = sm_count * 4;
  double ms = median_ms(repetitions, [&] { smem_read_kernel<<<blocks, threads>>>(iterations, sink); });
  cudaFree(sink);
  return double(blocks) * threads * iterations * sizeof(float4) / (ms * 1e-3) / 1e9;
}

}  // namespace occbench
