// The timer's own kernels: the cold-mode L2 sweep and the empty kernel of the timing floor.
#include "harness/measure/timer_kernels.hpp"

#include "harness/core/cuda_check.hpp"

namespace occbench {

namespace {

// Reads every 16 bytes of `data` once (a grid-stride loop) and keeps the sum, so the compiler
// cannot drop the loads; the store happens only if the sum is exactly `impossible`, i.e. never,
// so the sweep leaves no dirty line in the L2.
__global__ void read_sweep_kernel(const float4* __restrict__ data, std::size_t count, float impossible, float* sink) {
  float sum = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
    float4 v = data[i];
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum == impossible) *sink = sum;
}

// One 128-byte line per thread. The discarded lines were only read (clean), so DRAM keeps what
// it held; the PTX ISA still calls the contents undefined, which the read sweep does not mind.
__global__ void l2_discard_kernel(char* data, std::size_t lines) {
  std::size_t line = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (line >= lines) return;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("discard.global.L2 [%0], 128;" ::"l"(data + line * kL2DiscardLineBytes) : "memory");
#endif
}

__global__ void empty_kernel() {}

// Busy for `ns` nanoseconds of the GPU's global timer: keeps the GPU busy while the host enqueues
// the next sample, so a sample after it never waits for the host.
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// The SM clock as one SM runs it: cycles (clock64) over `ns` of the global timer, in MHz.
__global__ void sm_clock_kernel(unsigned long long ns, double* mhz) {
  unsigned long long start, now;
  long long cycles0 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
  long long cycles = clock64() - cycles0;
  *mhz = double(cycles) * 1e3 / double(now - start);
}

}  // namespace

double measure_sm_clock_mhz(cudaStream_t stream, double microseconds) {
  double* mhz = nullptr;
  OCCBENCH_CUDA_CHECK(cudaMalloc(&mhz, sizeof(double)));
  sm_clock_kernel<<<1, 1, 0, stream>>>((unsigned long long)(microseconds * 1e3), mhz);
  cudaError_t launched = cudaGetLastError();
  double value = 0;
  cudaError_t copied = launched == cudaSuccess ? cudaMemcpyAsync(&value, mhz, sizeof value, cudaMemcpyDeviceToHost, stream) : launched;
  if (copied == cudaSuccess) copied = cudaStreamSynchronize(stream);
  cudaFree(mhz);
  OCCBENCH_CUDA_CHECK(launched);
  OCCBENCH_CUDA_CHECK(copied);
  return value;
}

void launch_read_sweep(const void* data, std::size_t bytes, float* sink, int sm_count, cudaStream_t stream) {
  std::size_t count = bytes / sizeof(float4);
  // Enough blocks to fill every SM several times over; each thread streams its share.
  unsigned blocks = unsigned(sm_count > 0 ? sm_count * 8 : 1024);
  read_sweep_kernel<<<blocks, 512, 0, stream>>>(static_cast<const float4*>(data), count, -1.0f, sink);
  OCCBENCH_CHECK_LAUNCH();
}

void launch_l2_discard(void* data, std::size_t bytes, cudaStream_t stream) {
  std::size_t lines = bytes / kL2DiscardLineBytes;
  if (lines == 0) return;
  unsigned threads = 256;
  l2_discard_kernel<<<unsigned((lines + threads - 1) / threads), threads, 0, stream>>>(static_cast<char*>(data), lines);
  OCCBENCH_CHECK_LAUNCH();
}

void launch_spin_kernel(double microseconds, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>((unsigned long long)(microseconds * 1e3));
  OCCBENCH_CHECK_LAUNCH();
}

void launch_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 1, 0, stream>>>();
  OCCBENCH_CHECK_LAUNCH();
}

}  // namespace occbench
