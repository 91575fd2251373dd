// Deliberately broken kernels: each must fail its own point with the reason, and the sweep must
// keep every other point (docs/own-kernels.md, "Faults").
__global__ void copy_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// A device-side trap: cudaErrorLaunchFailure (sticky: the context is lost).
__global__ void trap_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n / 2) __trap();
  if (i < n) out[i] = in[i];
}

// Writes 4 GiB past the end of the output: caught in the guard zone after it (16 GiB by default),
// no fault; with "guard_zone_gib": 0, cudaErrorIllegalAddress (sticky: the context is lost).
__global__ void out_of_bounds_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i + (1u << 30)] = in[i];
}

// One thread writes far past the end (a tile's edge thread gone wrong): caught in the guard zone;
// without zones cudaErrorIllegalAddress or cudaErrorInvalidAddressSpace, which the driver reports
// much sooner than every thread's.
__global__ void one_out_of_bounds_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n / 2) out[i + (1u << 30)] = in[i];
  else if (i < n) out[i] = in[i];
}

// The last thread does.
__global__ void last_out_of_bounds_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n - 1) out[i + (1u << 30)] = in[i];
  else if (i < n) out[i] = in[i];
}

// The last thread also writes one element past the end: caught in the guard zone (without zones
// it lands in cudaMalloc's rounding, unseen).
__global__ void past_end_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
  if (i == n - 1) out[n] = in[i];
}

// The first thread also writes one element before the start, as a tile's row -1 would.
__global__ void before_start_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
  if (i == 0) out[-1] = in[i];
}

// Never finishes: only a watchdog can stop it.
__global__ void hang_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  volatile float* spin = out;
  while (spin[0] == spin[0] || true) {
    if (i < n) out[i] = in[i];
  }
}

// Runs but computes the wrong value: verification must fail it, and it is never timed.
__global__ void wrong_kernel(float* out, const float* in, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + (i == 7 ? 1.0f : 0.0f);
}
