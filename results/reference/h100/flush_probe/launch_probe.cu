// Same adjacent-difference kernel, compiled by nvcc into this binary and by NVRTC at run time:
// event-pair medians after a read-sweep flush (as occbench's cold samples), and, under ncu,
// gpu__time_duration of the same launches. Mode is argv[1], samples argv[2], block argv[3].
// Mode 6: adj_nvcc, each chunk of samples (flush, start event, kernel, stop event) captured
// once into a CUDA graph (the events as external event-record nodes) and launched as one graph.
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CU(x) do { CUresult e_ = (x); if (e_) { printf("%s: %d\n", #x, int(e_)); exit(1); } } while (0)
#define RT(x) do { nvrtcResult e_ = (x); if (e_) { printf("%s: %s\n", #x, nvrtcGetErrorString(e_)); exit(1); } } while (0)

#define ADJ_BODY \
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; \
  if (i == 0) { b[i] = a[i] - 0.0f; } else if (i < n) { b[i] = a[i] - a[i - 1]; }
#define COPY_BODY \
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i] * 2.0f;
#define STR2(...) #__VA_ARGS__
#define STR(...) STR2(__VA_ARGS__)

__global__ void adj_nvcc(float* b, const float* a, unsigned n) { ADJ_BODY }
__global__ void copy_nvcc(float* b, const float* a, unsigned n) { COPY_BODY }
__global__ void sweep(const float4* d, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) { float4 v = d[i]; s += v.x + v.y + v.z + v.w; }
  if (s == -1.0f) *sink = s;
}
__global__ void empty_kernel() {}
__global__ void spin(unsigned long long ns) {
  unsigned long long t0, t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}
__global__ void fill(float* a, unsigned n) { unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = (i * 2654435761u % 1000) * 0.001f - 0.5f; }

static const char* kSource =
    "extern \"C\" __global__ void adj_rtc(float* b, const float* a, unsigned n) { " STR(ADJ_BODY) " }\n"
    "extern \"C\" __global__ void copy_rtc(float* b, const float* a, unsigned n) { " STR(COPY_BODY) " }\n";

int main(int argc, char** argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0, samples = argc > 2 ? atoi(argv[2]) : 200;
  int block = argc > 3 ? atoi(argv[3]) : 256;
  unsigned n = 16u << 20;
  size_t fb = 100u << 20;
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  float *a, *b, *f, *sink;
  CK(cudaMalloc(&a, n * 4ull)); CK(cudaMalloc(&b, n * 4ull)); CK(cudaMalloc(&f, fb)); CK(cudaMalloc(&sink, 4));
  fill<<<(n + 255) / 256, 256>>>(a, n);
  CK(cudaMemset(f, 0, fb)); CK(cudaDeviceSynchronize());
  int sms; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

  nvrtcProgram prog; RT(nvrtcCreateProgram(&prog, kSource, "probe.cu", 0, nullptr, nullptr));
  const char* opts[] = {"--gpu-architecture=sm_90", "--std=c++17", "-lineinfo"};
  RT(nvrtcCompileProgram(prog, 3, opts));
  size_t size; RT(nvrtcGetCUBINSize(prog, &size)); std::vector<char> cubin(size); RT(nvrtcGetCUBIN(prog, cubin.data()));
  CUmodule mod; CU(cuModuleLoadData(&mod, cubin.data()));
  CUfunction adj_rtc, copy_rtc, adj_drv;
  CU(cuModuleGetFunction(&adj_rtc, mod, "adj_rtc")); CU(cuModuleGetFunction(&copy_rtc, mod, "copy_rtc"));
  CK(cudaGetFuncBySymbol(reinterpret_cast<cudaFunction_t*>(&adj_drv), (const void*)adj_nvcc));

  cudaStream_t s; CK(cudaStreamCreate(&s));
  const char* names[] = {"adj_nvcc <<<>>>", "adj_nvcc cuLaunchKernel", "adj_rtc cuLaunchKernel", "copy_nvcc <<<>>>", "copy_rtc cuLaunchKernel", "empty behind 20us spin", "adj_nvcc in a CUDA graph"};
  unsigned grid = (n + block - 1) / block;
  void* args[] = {&b, &a, &n};
  auto launch = [&] {
    switch (mode) {
      case 0: adj_nvcc<<<grid, block, 0, s>>>(b, a, n); break;
      case 1: CU(cuLaunchKernel(adj_drv, grid, 1, 1, block, 1, 1, 0, s, args, nullptr)); break;
      case 2: CU(cuLaunchKernel(adj_rtc, grid, 1, 1, block, 1, 1, 0, s, args, nullptr)); break;
      case 3: copy_nvcc<<<grid, block, 0, s>>>(b, a, n); break;
      case 4: CU(cuLaunchKernel(copy_rtc, grid, 1, 1, block, 1, 1, 0, s, args, nullptr)); break;
      case 5: empty_kernel<<<1, 1, 0, s>>>(); break;
      case 6: adj_nvcc<<<grid, block, 0, s>>>(b, a, n); break;
    }
  };
  const int chunk = getenv("CHUNK") ? atoi(getenv("CHUNK")) : 20;
  std::vector<cudaEvent_t> ev(2 * chunk); for (auto& e : ev) CK(cudaEventCreate(&e));
  std::vector<float> us;
  auto enqueue = [&] {
    unsigned flags = mode == 6 ? cudaEventRecordExternal : cudaEventRecordDefault;
    for (int i = 0; i < chunk; ++i) {
      if (mode == 5) spin<<<1, 1, 0, s>>>(20000); else sweep<<<sms * 8, 512, 0, s>>>((const float4*)f, fb / 16, sink);
      CK(cudaEventRecordWithFlags(ev[2 * i], s, flags));
      launch();
      CK(cudaEventRecordWithFlags(ev[2 * i + 1], s, flags));
    }
  };
  cudaGraphExec_t exec = nullptr;
  if (mode == 6) {
    cudaGraph_t graph;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    enqueue();
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaGraphInstantiate(&exec, graph, 0));
    CK(cudaGraphUpload(exec, s));
    CK(cudaGraphLaunch(exec, s));  // first launch: the upload's effects settle
    CK(cudaStreamSynchronize(s));
  }
  for (int done = 0; done < samples; done += chunk) {
    if (exec) CK(cudaGraphLaunch(exec, s)); else enqueue();
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < chunk; ++i) { float t; CK(cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1])); us.push_back(t * 1000); }
  }
  CK(cudaGetLastError());
  std::sort(us.begin(), us.end());
  printf("mode %d %-26s block %4d  event median %.2f us  p10 %.2f  p90 %.2f  (%zu samples)\n", mode, names[mode], block,
         us[us.size() / 2], us[us.size() / 10], us[us.size() * 9 / 10], us.size());
  return 0;
}
