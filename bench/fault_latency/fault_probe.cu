// Where the time of a contained fault goes (issue 29, item 3), outside occbench: one process per
// fault, as occbench's supervisor runs them. Prints one JSON line.
//   fault_probe ok                          a copy kernel: context start and one launch
//   fault_probe KIND BLOCKS [poll|sync]     a faulting launch of BLOCKS blocks of 256 threads:
//       KIND oob_all (every thread writes 4 GiB past its buffer), oob_one (one thread does),
//       trap_one (one thread traps). poll: cudaStreamQuery until it is not cudaErrorNotReady;
//       sync: cudaStreamSynchronize.
//   fault_probe timeloop SECONDS            times back-to-back launches of a 64 MiB copy, each between
//       two events, for SECONDS: one line per launch (monotonic start s, µs) after the JSON line,
//       to see what another process's context start, fault or teardown does to a timed kernel.
//   fault_probe standby                     starts its context, prints "ready", waits for a line
//       on stdin, then launches the copy kernel: what a process started ahead of a fault pays.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::printf("{\"error\": \"%s: %s\"}\n", what, cudaGetErrorName(e));
  std::exit(1);
}

__global__ void copy_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void fault_kernel(float* out, const float* in, unsigned n, int kind) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (kind == 0) out[i + (1u << 30)] = in[i];                   // oob_all
  else if (kind == 1 && i == n / 2) out[i + (1u << 30)] = in[i];  // oob_one
  else if (kind == 2 && i == n / 2) __trap();                   // trap_one
  else out[i] = in[i];
}

struct Buffers {
  float* in = nullptr;
  float* out = nullptr;
  unsigned n = 0;
};

Buffers allocate(unsigned n) {
  Buffers b;
  b.n = n;
  check(cudaMalloc(&b.in, n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&b.out, n * sizeof(float)), "cudaMalloc");
  check(cudaMemset(b.in, 1, n * sizeof(float)), "cudaMemset");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return b;
}

double copy_once(const Buffers& b) {
  double t0 = now_s();
  copy_kernel<<<(b.n + 255) / 256, 256>>>(b.out, b.in, b.n);
  check(cudaGetLastError(), "launch");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return now_s() - t0;
}

int run_fault(int kind, unsigned blocks, bool poll) {
  double t_start = now_s();
  check(cudaFree(nullptr), "cudaFree(0)");
  Buffers b = allocate(blocks * 256u);
  double t_init = now_s();
  fault_kernel<<<blocks, 256>>>(b.out, b.in, b.n, kind);
  cudaError_t e = cudaSuccess;
  if (poll) {
    while ((e = cudaStreamQuery(nullptr)) == cudaErrorNotReady) {
    }
  } else {
    e = cudaStreamSynchronize(nullptr);
  }
  double t_error = now_s();
  std::printf("{\"mode\": \"fault\", \"kind\": %d, \"blocks\": %u, \"poll\": %d, \"init_s\": %.6f, "
              "\"fault_s\": %.6f, \"error\": \"%s\"}\n",
              kind, blocks, int(poll), t_init - t_start, t_error - t_init, cudaGetErrorName(e));
  std::fflush(stdout);
  std::_Exit(3);  // as occbench's child does after a lost context
}

int run_ok() {
  double t_start = now_s();
  check(cudaFree(nullptr), "cudaFree(0)");
  Buffers b = allocate(1u << 20);
  double t_init = now_s();
  double first = copy_once(b);
  double second = copy_once(b);
  std::printf("{\"mode\": \"ok\", \"init_s\": %.6f, \"first_launch_s\": %.6f, \"second_launch_s\": %.6f}\n",
              t_init - t_start, first, second);
  return 0;
}

int run_timeloop(double seconds) {
  check(cudaFree(nullptr), "cudaFree(0)");
  Buffers b = allocate(1u << 24);
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::printf("ready\n");
  std::fflush(stdout);
  std::string lines;
  double t_end = now_s() + seconds;
  int launches = 0;
  while (now_s() < t_end) {
    double t = now_s();
    check(cudaEventRecord(start), "cudaEventRecord");
    copy_kernel<<<(b.n + 255) / 256, 256>>>(b.out, b.in, b.n);
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    char line[64];
    std::snprintf(line, sizeof line, "%.6f %.2f\n", t, ms * 1e3);
    lines += line;
    ++launches;
  }
  std::printf("{\"mode\": \"timeloop\", \"launches\": %d}\n%s", launches, lines.c_str());
  return 0;
}

int run_standby() {
  double t_start = now_s();
  check(cudaFree(nullptr), "cudaFree(0)");
  Buffers b = allocate(1u << 20);
  copy_once(b);
  double t_init = now_s();
  std::printf("ready\n");
  std::fflush(stdout);
  char line[64];
  if (!std::fgets(line, sizeof line, stdin)) return 1;
  double t_go = now_s();
  double first = copy_once(b);
  std::printf("{\"mode\": \"standby\", \"init_s\": %.6f, \"first_launch_after_go_s\": %.6f, \"go_to_done_s\": %.6f}\n",
              t_init - t_start, first, now_s() - t_go);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "ok";
  if (mode == "ok") return run_ok();
  if (mode == "standby") return run_standby();
  if (mode == "timeloop") return run_timeloop(argc > 2 ? std::atof(argv[2]) : 2.0);
  int kind = mode == "oob_all" ? 0 : mode == "oob_one" ? 1 : mode == "trap_one" ? 2 : -1;
  if (kind < 0 || argc < 3) {
    std::fprintf(stderr, "usage: fault_probe ok|standby|oob_all|oob_one|trap_one BLOCKS [poll|sync]\n");
    return 2;
  }
  return run_fault(kind, unsigned(std::atoi(argv[2])), !(argc > 3 && std::strcmp(argv[3], "sync") == 0));
}
