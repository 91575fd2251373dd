// Adjacent difference (seed 003): where shared memory does not pay. Nothing is reused, and the
// global reads are already coalesced, so the shared tile only adds a barrier and a copy.
#include "kernels/adjacent_difference/adjacent_difference.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/family/device_buffer.hpp"
#include "harness/family/family_builder.hpp"
#include "harness/core/parallel.hpp"
#include "harness/family/random.hpp"
#include "harness/family/random_device.hpp"
#include "harness/family/verify.hpp"
#include "harness/family/verify_device.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

namespace occbench::adjacent_difference {

// Largest block the static tile is sized for (seed 003: __shared__ float s_data[1024]).
constexpr unsigned kMaxBlock = 1024;

__global__ void global_kernel(float* b, const float* a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) {
    b[i] = a[i] - 0.0f;
  } else if (i < n) {
    b[i] = a[i] - a[i - 1];
  }
}

// The seed's kernel, with one fix: the seed writes b[i] for i >= n in the last block.
__global__ void shared_static_kernel(float* b, const float* a, unsigned n) {
  __shared__ float tile[kMaxBlock];
  unsigned tx = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tx;
  if (i < n) tile[tx] = a[i];
  __syncthreads();
  if (i >= n) return;
  if (tx > 0) {
    b[i] = tile[tx] - tile[tx - 1];
  } else if (i > 0) {
    b[i] = tile[tx] - a[i - 1];  // the tile's first element has its neighbour in the previous tile
  } else {
    b[i] = tile[tx] - 0.0f;
  }
}

// The same with the tile sized at launch: blockDim.x floats of dynamic shared memory.
__global__ void shared_dynamic_kernel(float* b, const float* a, unsigned n) {
  extern __shared__ float dynamic_tile[];
  unsigned tx = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + tx;
  if (i < n) dynamic_tile[tx] = a[i];
  __syncthreads();
  if (i >= n) return;
  if (tx > 0) {
    b[i] = dynamic_tile[tx] - dynamic_tile[tx - 1];
  } else if (i > 0) {
    b[i] = dynamic_tile[tx] - a[i - 1];
  } else {
    b[i] = dynamic_tile[tx] - 0.0f;
  }
}

// 16-byte loads and stores, kItems of them in flight per thread before any is used. The
// neighbour of each float4's first element is the previous lane's last element (a shuffle);
// only lane 0 loads it, from the line the previous warp just read (an L2 hit, not DRAM).
template <int kItems>
__global__ void vectorized_kernel(float* __restrict__ b, const float* __restrict__ a, unsigned n) {
  const unsigned n4 = n / 4;
  const float4* a4 = reinterpret_cast<const float4*>(a);
  float4* b4 = reinterpret_cast<float4*>(b);
  const unsigned lane = threadIdx.x % 32;
  const unsigned first = blockIdx.x * blockDim.x * kItems + threadIdx.x;

  float4 v[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    unsigned idx = first + k * blockDim.x;
    v[k] = idx < n4 ? a4[idx] : make_float4(0.f, 0.f, 0.f, 0.f);
  }
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    unsigned idx = first + k * blockDim.x;
    float previous = __shfl_up_sync(0xffffffffu, v[k].w, 1);
    if (lane == 0) previous = (idx > 0 && idx < n4) ? a[4 * idx - 1] : 0.0f;
    if (idx < n4) b4[idx] = make_float4(v[k].x - previous, v[k].y - v[k].x, v[k].z - v[k].y, v[k].w - v[k].z);
  }
  // The last n % 4 elements, by the first block.
  unsigned tail = n - 4 * n4;
  if (blockIdx.x == 0 && threadIdx.x < tail) {
    unsigned i = 4 * n4 + threadIdx.x;
    b[i] = a[i] - (i > 0 ? a[i - 1] : 0.0f);
  }
}

namespace {

// What a correct kernel writes, from the input's formula (harness/family/random_hash.hpp): b[i] = a[i] -
// a[i-1], b[0] = a[0], computed on the GPU without reading the input. The host reference would
// cost a host copy of the input, a CPU pass and an upload per size (1 GiB each at 256 M).
__global__ void expected_kernel(float* __restrict__ expected, std::size_t n, std::uint64_t key) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const float a = uniform_float_at(key, i, -1.0f, 1.0f);
    expected[i] = i == 0 ? a : a - uniform_float_at(key, i - 1, -1.0f, 1.0f);
  }
}

class AdjacentDifferenceProblem : public Problem {
 public:
  AdjacentDifferenceProblem(std::size_t n, std::uint64_t seed) : n_(n), seed_(seed) {
    // Device buffers only where a GPU can be used, so the host variant also runs without one
    // (occbench_gbench); the device variants never run there. The input is made on the GPU; the
    // host's copy only when the host variant first runs.
    if (!no_gpu_reason()) {
      input_ = DeviceBuffer<float>(n);
      output_ = DeviceBuffer<float>(n);
      expected_ = DeviceBuffer<float>(n);
      fill_uniform_device(input_.get(), n, seed);
      expected_kernel<<<grid_stride_blocks(n), kGridStrideThreads>>>(expected_.get(), n, stream_key(seed));
      OCCBENCH_CHECK_LAUNCH();
    }
  }

  void poison_outputs() override {
    output_.poison();
    // The host output (1 GiB at 256 M) is refilled only after the host loop wrote it, not before
    // every device point.
    if (!host_poisoned_ && output_host_) fill_nan(output_host_.get());
    host_poisoned_ = true;
    host_wrote_ = false;
  }

  // One float subtraction per element, the same on both sides: the results must match exactly.
  Verification verify() override {
    if (!host_wrote_) return compare_on_device(output_.get(), expected_.get(), n_, 0.0, 0.0);
    if (!reference_) {
      reference_ = host_array();
      reference(input_host_.get(), reference_.get(), n_);
    }
    return compare_values(output_host_.get(), reference_.get(), n_, 0.0, 0.0);
  }

  unsigned n() const { return unsigned(n_); }
  const float* input() const { return input_.get(); }
  float* output() { return output_.get(); }

  void run_host() {
    if (!input_host_) {
      input_host_ = host_array();
      fill_uniform(input_host_.get(), n_, seed_);  // the device input's values (fill_uniform_device)
      output_host_ = host_array();
      fill_nan(output_host_.get());
    }
    host_loop(input_host_.get(), output_host_.get(), n_);
    host_wrote_ = true;
    host_poisoned_ = false;
  }

 private:
  std::size_t n_;
  std::uint64_t seed_;
  // Host arrays of n floats, left uninitialised and then written on all host cores: a 1 GiB
  // std::vector is zeroed on one thread first.
  std::unique_ptr<float[]> host_array() const { return std::unique_ptr<float[]>(new float[n_]); }
  void fill_nan(float* data) const {
    parallel_for(n_, [&](unsigned, std::size_t begin, std::size_t end) {
      std::fill(data + begin, data + end, std::numeric_limits<float>::quiet_NaN());
    });
  }

  std::unique_ptr<float[]> input_host_, output_host_, reference_;
  DeviceBuffer<float> input_, output_, expected_;
  bool host_wrote_ = false;
  bool host_poisoned_ = false;
};

AdjacentDifferenceProblem& problem_of(Problem& p) { return static_cast<AdjacentDifferenceProblem&>(p); }

Axis block_size_axis() { return axis("block_size", "threads per block").in(32, kMaxBlock).multiple_of(32).by_default(256); }

// Bytes each variant's loads and stores ask of global memory (for CGMA); DRAM traffic is 8n for all.
WorkModel model(double n, double extra_load_bytes, double loads_per_element) {
  WorkModel w;
  w.flops = n;  // one subtraction per element
  w.global_bytes = 4.0 * n * loads_per_element + 4.0 * n + extra_load_bytes;
  w.dram_bytes = 8.0 * n;
  w.bytes_in_flight_per_warp = 32 * 4;  // one 4-byte load per thread before its result is used
  return w;
}

// A one-element-per-thread kernel with block_size threads per block (a float of dynamic tile each with dynamic_tile).
template <auto Kernel>
VariantBuilder simple_variant(std::string name, std::string description, bool dynamic_tile) {
  return VariantBuilder(std::move(name), std::move(description))
      .axis(block_size_axis())
      .launch([=](const Params& p) {
        auto block = p.get("block_size");
        return launch_of(kernel_ref<Kernel>(), {blocks_for(p.get("n"), block)}, {unsigned(block)},
                         dynamic_tile ? std::size_t(block) * sizeof(float) : 0);
      })
      .run_on<AdjacentDifferenceProblem>([](auto& p, const Params&, const LaunchSpec& l, cudaStream_t stream) {
        Kernel<<<to_dim3(l.grid), to_dim3(l.block), l.dynamic_smem_bytes, stream>>>(p.output(), p.input(), p.n());
      });
}

// Each tile's first element reads its neighbour from global memory.
WorkModel tiled_work(const Params& p) {
  double n = double(p.get("n"));
  return model(n, 4.0 * std::ceil(n / double(p.get("block_size"))), 1);
}

}  // namespace

Family make_family() {
  return FamilyBuilder("adjacent_difference",
                       "b[i] = a[i] - a[i-1], b[0] = a[0] on float32 (seed 003): shared memory with nothing to reuse")
      .size(axis("n", "elements; kernels index with 32-bit unsigned integers").in(1, std::numeric_limits<std::int32_t>::max()))
      // Input, output and the expected output kept on the device for verification.
      .device_bytes([](const Params& s) { return std::uint64_t(s.get("n")) * 12; })
      .problem([](const Params& s, std::uint64_t seed) -> std::unique_ptr<Problem> {
        return std::make_unique<AdjacentDifferenceProblem>(std::size_t(s.get("n")), seed);
      })
      .variant(VariantBuilder("host", "the seed's CPU loop, one thread, timed with the host clock")
                   .host()
                   .work([](const Params& p) { return model(double(p.get("n")), 0, 1); })
                   .run([](Problem& problem, const Params&, const LaunchSpec&, cudaStream_t) { problem_of(problem).run_host(); }))
      .variant(simple_variant<&global_kernel>("global", "one thread per element, a[i] and a[i-1] both read from global memory", false)
                   .work([](const Params& p) { return model(double(p.get("n")), 0, 2); }))
      .variant(simple_variant<&shared_static_kernel>("shared_static",
                                                     "the seed's kernel: a static 1024-float tile, neighbour from the tile", false)
                   .work(tiled_work))
      .variant(simple_variant<&shared_dynamic_kernel>(
                   "shared_dynamic", "the same with an extern __shared__ tile of block_size floats sized at launch", true)
                   .work(tiled_work))
      .variant(VariantBuilder("vectorized", "float4 loads/stores, 4 in flight per thread, neighbour by warp shuffle")
                   .axis(block_size_axis())
                   .launch([](const Params& p) {
                     auto block = p.get("block_size");
                     return launch_of(kernel_ref<&vectorized_kernel<kVectorItems>>(),
                                      {blocks_for(p.get("n") / 4, block * kVectorItems)}, {unsigned(block)});
                   })
                   .work([](const Params& p) {
                     double n = double(p.get("n"));
                     WorkModel w = model(n, 4.0 * std::ceil(n / 128.0), 1);  // lane 0 of every 32 float4s loads one neighbour
                     w.bytes_in_flight_per_warp = 32.0 * 16 * kVectorItems;  // kVectorItems float4 loads before any is used
                     return w;
                   })
                   .run_on<AdjacentDifferenceProblem>([](auto& p, const Params&, const LaunchSpec& l, cudaStream_t stream) {
                     vectorized_kernel<kVectorItems><<<to_dim3(l.grid), to_dim3(l.block), l.dynamic_smem_bytes, stream>>>(p.output(), p.input(), p.n());
                   }));
}

}  // namespace occbench::adjacent_difference
