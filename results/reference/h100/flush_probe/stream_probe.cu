// Event-pair time of an empty kernel and a 16 M-float copy on the legacy default stream, a
// blocking stream and a non-blocking stream, after a read-sweep L2 flush (as occbench samples).
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { cudaError_t err_ = (x); if (err_) { printf("%s: %s\n", #x, cudaGetErrorString(err_)); return 1; } } while (0)
__global__ void sweep(const float4* d, size_t n, float* sink) {
  float s = 0; for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) { float4 v = d[i]; s += v.x + v.y + v.z + v.w; }
  if (s == -1.0f) *sink = s;
}
__global__ void empty_kernel() {}
__global__ void copy_kernel(const float* __restrict__ a, float* __restrict__ b, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; if (i < n) b[i] = a[i] * 2.0f;
}
int main() {
  size_t n = 16u << 20, fb = 100u << 20;
  float *a, *b, *f, *sink; CK(cudaMalloc(&a, n * 4)); CK(cudaMalloc(&b, n * 4)); CK(cudaMalloc(&f, fb)); CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(a, 0, n * 4)); CK(cudaMemset(f, 0, fb)); CK(cudaDeviceSynchronize());
  cudaStream_t blocking, nonblocking; CK(cudaStreamCreate(&blocking)); CK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
  struct Kind { const char* name; cudaStream_t s; } kinds[] = {{"legacy", 0}, {"blocking", blocking}, {"nonblocking", nonblocking}, {"per_thread", cudaStreamPerThread}};
  std::vector<cudaEvent_t> ev(40); for (auto& evt : ev) CK(cudaEventCreate(&evt));
  for (int round = 0; round < 2; ++round)
  for (auto& k : kinds) for (int which = 0; which < 2; ++which) {
    std::vector<float> ms;
    for (int chunk = 0; chunk < 10; ++chunk) {
      for (int i = 0; i < 20; ++i) {
        sweep<<<132 * 8, 512, 0, k.s>>>((const float4*)f, fb / 16, sink);
        CK(cudaEventRecord(ev[2 * i], k.s));
        if (which) copy_kernel<<<(n + 255) / 256, 256, 0, k.s>>>(a, b, n); else empty_kernel<<<1, 1, 0, k.s>>>();
        CK(cudaEventRecord(ev[2 * i + 1], k.s));
      }
      CK(cudaStreamSynchronize(k.s));
      for (int i = 0; i < 20; ++i) { float t; CK(cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1])); ms.push_back(t * 1000); }
    }
    std::sort(ms.begin(), ms.end());
    if (round) printf("%-12s %-6s median %.2f us  p10 %.2f  p90 %.2f\n", k.name, which ? "copy" : "empty", ms[ms.size() / 2], ms[ms.size() / 10], ms[ms.size() * 9 / 10]);
  }
  return 0;
}
