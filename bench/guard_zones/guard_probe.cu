// Can an out-of-bounds write be caught without losing the context (issue 29, item 3)? A buffer is
// placed in a reserved virtual range whose sides ("guard zones", GUARD bytes each) map one
// physical "trash" chunk (TRASH bytes) again and again, through CUDA's virtual memory management.
// A write that lands there is absorbed instead of faulting, and the trash chunk, filled with 0xFF
// bytes beforehand, shows it. Prints one JSON line per step.
//   guard_probe GUARD_GIB TRASH_MIB
// Steps: the guarded buffers' set-up time; every thread writing 4 GiB past its output; one thread
// writing one element past the end; a copy kernel timed on guarded against cudaMalloc buffers.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(r, &name);
  std::printf("{\"error\": \"%s: %s\"}\n", what, name ? name : "?");
  std::exit(1);
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::printf("{\"error\": \"%s: %s\"}\n", what, cudaGetErrorName(e));
  std::exit(1);
}

struct Guarded {
  CUdeviceptr base = 0, data = 0;
  size_t reserve = 0, body = 0, bytes = 0, guard = 0, trash = 0;
  CUmemGenericAllocationHandle body_handle{}, lo{}, hi{};
  int maps = 0;
};

CUmemAllocationProp device_prop() {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  return prop;
}

size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

Guarded make_guarded(size_t bytes, size_t guard, size_t trash) {
  Guarded g;
  CUmemAllocationProp prop = device_prop();
  size_t gran = 0;
  check(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), "granularity");
  g.bytes = bytes;
  g.guard = guard;
  g.trash = trash;
  g.body = round_up(bytes, gran);
  g.reserve = 2 * guard + g.body;
  check(cuMemAddressReserve(&g.base, g.reserve, gran, 0, 0), "reserve");
  check(cuMemCreate(&g.body_handle, g.body, &prop, 0), "create body");
  check(cuMemCreate(&g.lo, trash, &prop, 0), "create lo");
  check(cuMemCreate(&g.hi, trash, &prop, 0), "create hi");
  for (size_t off = 0; off < guard; off += trash, g.maps += 2) {
    check(cuMemMap(g.base + off, trash, 0, g.lo, 0), "map lo");
    check(cuMemMap(g.base + guard + g.body + off, trash, 0, g.hi, 0), "map hi");
  }
  check(cuMemMap(g.base + guard, g.body, 0, g.body_handle, 0), "map body");
  g.maps += 1;
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check(cuMemSetAccess(g.base, g.reserve, &access, 1), "access (whole range)");
  // The buffer ends where the upper guard begins (256-byte aligned start), so a write one
  // element past its end lands in the tail slack or the guard.
  g.data = g.base + guard + g.body - round_up(bytes, 256);
  return g;
}

void free_guarded(Guarded& g) {
  check(cuMemUnmap(g.base, g.reserve), "unmap");
  check(cuMemRelease(g.body_handle), "release body");
  check(cuMemRelease(g.lo), "release lo");
  check(cuMemRelease(g.hi), "release hi");
  check(cuMemAddressFree(g.base, g.reserve), "free range");
}

__global__ void count_not_ff(const unsigned* p, size_t words, unsigned long long* count) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x)
    local += p[i] != 0xFFFFFFFFu;
  if (local) atomicAdd(count, local);
}

// Words changed in [p, p + bytes) (a multiple of 4 bytes).
unsigned long long changed_words(CUdeviceptr p, size_t bytes) {
  unsigned long long* d = nullptr;
  check(cudaMalloc(&d, sizeof(*d)), "malloc count");
  check(cudaMemset(d, 0, sizeof(*d)), "zero count");
  count_not_ff<<<1024, 256>>>(reinterpret_cast<const unsigned*>(p), bytes / 4, d);
  unsigned long long h = 0;
  check(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost), "count");
  cudaFree(d);
  return h;
}

__global__ void copy_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void oob_all(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i + (1u << 30)] = in[i];
}

__global__ void one_past_end(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = i < n ? in[i] : 1.0f;
}

float median_copy_us(float* out, const float* in, unsigned n, int launches) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> us;
  for (int i = 0; i < launches; ++i) {
    cudaEventRecord(a);
    copy_kernel<<<(n + 255) / 256, 256>>>(out, in, n);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    us.push_back(ms * 1e3f);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  size_t guard = size_t(argc > 1 ? std::atof(argv[1]) : 16.0) * (size_t(1) << 30);
  size_t trash = size_t(argc > 2 ? std::atof(argv[2]) : 64.0) * (size_t(1) << 20);
  check(cudaFree(nullptr), "context");
  const unsigned n = 1u << 20;
  const size_t bytes = size_t(n) * 4;

  double t0 = now_s();
  Guarded out = make_guarded(bytes, guard, trash), in = make_guarded(bytes, guard, trash);
  double setup_s = now_s() - t0;
  std::printf("{\"step\": \"setup\", \"guard_gib\": %.1f, \"trash_mib\": %.0f, \"maps_per_buffer\": %d, \"seconds_for_two\": %.4f}\n",
              guard / 1073741824.0, trash / 1048576.0, out.maps, setup_s);

  auto fill = [&](Guarded& g) {
    check(cuMemsetD8(g.base, 0xFF, g.trash), "fill lo");
    check(cuMemsetD8(g.base + g.guard, 0xFF, g.body), "fill body");
    check(cuMemsetD8(g.base + g.guard + g.body, 0xFF, g.trash), "fill hi");
  };
  fill(out);
  fill(in);
  check(cudaMemset(reinterpret_cast<void*>(in.data), 0, bytes), "in");
  check(cudaDeviceSynchronize(), "fill");

  t0 = now_s();
  oob_all<<<n / 256, 256>>>(reinterpret_cast<float*>(out.data), reinterpret_cast<const float*>(in.data), n);
  cudaError_t e = cudaDeviceSynchronize();
  double run_s = now_s() - t0;
  t0 = now_s();
  unsigned long long hi_words = changed_words(out.base + out.guard + out.body, out.trash);
  double check_s = now_s() - t0;
  std::printf("{\"step\": \"every thread 4 GiB past\", \"error\": \"%s\", \"seconds\": %.4f, \"words_in_upper_trash\": %llu, "
              "\"check_seconds\": %.5f}\n", cudaGetErrorName(e), run_s, hi_words, check_s);
  if (e != cudaSuccess) return 1;

  fill(out);
  check(cudaDeviceSynchronize(), "fill");
  one_past_end<<<n / 256 + 1, 256>>>(reinterpret_cast<float*>(out.data), reinterpret_cast<const float*>(in.data), n);
  e = cudaDeviceSynchronize();
  size_t tail = out.body - (out.data - out.base - out.guard) - bytes;
  unsigned long long tail_words = changed_words(out.data + bytes, tail + out.trash);
  std::printf("{\"step\": \"one element past the end\", \"error\": \"%s\", \"tail_slack_bytes\": %zu, \"words_after_end\": %llu}\n",
              cudaGetErrorName(e), tail, tail_words);

  // Timing: a 256 MiB copy on guarded buffers against cudaMalloc ones, alternating.
  const unsigned big = 1u << 26;
  Guarded gout = make_guarded(size_t(big) * 4, guard, trash), gin = make_guarded(size_t(big) * 4, guard, trash);
  float *mout = nullptr, *min = nullptr;
  check(cudaMalloc(&mout, size_t(big) * 4), "malloc out");
  check(cudaMalloc(&min, size_t(big) * 4), "malloc in");
  check(cudaMemset(min, 0, size_t(big) * 4), "min");
  check(cudaMemset(reinterpret_cast<void*>(gin.data), 0, size_t(big) * 4), "gin");
  for (int round = 0; round < 3; ++round) {
    float g = median_copy_us(reinterpret_cast<float*>(gout.data), reinterpret_cast<const float*>(gin.data), big, 200);
    float m = median_copy_us(mout, min, big, 200);
    std::printf("{\"step\": \"copy 256 MiB\", \"round\": %d, \"guarded_us\": %.2f, \"cudamalloc_us\": %.2f, \"ratio\": %.4f}\n",
                round, g, m, g / m);
  }
  check(cudaDeviceSynchronize(), "copies");
  t0 = now_s();
  free_guarded(out);
  free_guarded(in);
  std::printf("{\"step\": \"free\", \"seconds_for_two\": %.4f}\n", now_s() - t0);
  return 0;
}
