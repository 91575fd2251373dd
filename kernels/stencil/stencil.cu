// Adaptive threshold (seed 001): where shared memory can pay, because neighbouring threads read
// overlapping windows. The reuse grows with the filter: each pixel is read filter^2 times by the
// global kernel (the first from DRAM, the rest from L1/L2), but only about once, plus the halo, by the
// shared kernel's tile.
#include "kernels/stencil/stencil.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/family/device_buffer.hpp"
#include "harness/family/family_builder.hpp"
#include "harness/family/random.hpp"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <vector>

namespace occbench::stencil {

// The seed's rule with explicitly rounded intrinsics, so the result is the CPU's whatever the
// compiler flags (--use_fast_math would otherwise turn the division into an approximation).
__device__ __forceinline__ unsigned char threshold_device(unsigned sum, int filter_size, unsigned char center, float c) {
  float mean = __fdiv_rn(__uint2float_rn(sum), __int2float_rn(filter_size * filter_size));
  return __fsub_rn(mean, c) < __uint2float_rn(center) ? 255 : 0;
}

// One thread per pixel; the window read straight from global memory (L1/L2 catch the overlap).
__global__ void global_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst, int width,
                              int height, int filter_size, float c) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const int half = filter_size / 2;
  unsigned sum = 0;
  for (int dy = -half; dy <= half; ++dy) {
    const unsigned char* row = src + std::size_t(min(max(y + dy, 0), height - 1)) * width;
    for (int dx = -half; dx <= half; ++dx) sum += row[min(max(x + dx, 0), width - 1)];
  }
  const std::size_t i = std::size_t(y) * width + x;
  dst[i] = threshold_device(sum, filter_size, src[i], c);
}

// The seed's kernel: a (block_x + 2 half) x (block_y + 2 half) tile in dynamic shared memory, loaded
// cooperatively with a strided loop and clamped coordinates, a barrier, then the window from the tile.
// Two fixes to the seed: the grid is rounded up (the seed divides integers before std::ceil, so it
// drops the last partial block), and threads outside the image load their share of the tile but
// write nothing (the seed writes past the image's right and bottom edges).
__global__ void shared_dynamic_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst, int width,
                                      int height, int filter_size, float c) {
  extern __shared__ unsigned char tile[];
  const int half = filter_size / 2;
  const int tile_width = blockDim.x + 2 * half;
  const int tile_height = blockDim.y + 2 * half;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int start_x = int(blockIdx.x * blockDim.x) - half;
  const int start_y = int(blockIdx.y * blockDim.y) - half;

  for (int i = ty; i < tile_height; i += blockDim.y) {
    const unsigned char* row = src + std::size_t(min(max(start_y + i, 0), height - 1)) * width;
    for (int j = tx; j < tile_width; j += blockDim.x) tile[i * tile_width + j] = row[min(max(start_x + j, 0), width - 1)];
  }
  __syncthreads();

  const int x = blockIdx.x * blockDim.x + tx;
  const int y = blockIdx.y * blockDim.y + ty;
  if (x >= width || y >= height) return;
  unsigned sum = 0;
  for (int dy = 0; dy < filter_size; ++dy) {
    const unsigned char* row = tile + (ty + dy) * tile_width + tx;
    for (int dx = 0; dx < filter_size; ++dx) sum += row[dx];
  }
  const unsigned char center = tile[(ty + half) * tile_width + tx + half];
  dst[std::size_t(y) * width + x] = threshold_device(sum, filter_size, center, c);
}

namespace {

__global__ void count_differing_kernel(const std::uint8_t* __restrict__ a, const std::uint8_t* __restrict__ b,
                                       std::size_t count, unsigned long long* differing) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
    mine += a[i] != b[i];
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_down_sync(0xffffffffu, mine, offset);
  if (threadIdx.x % 32 == 0 && mine) atomicAdd(differing, mine);
}

std::uint64_t count_differing_pixels(const std::uint8_t* a, const std::uint8_t* b, std::size_t count) {
  DeviceBuffer<unsigned long long> differing(1);
  OCCBENCH_CUDA_CHECK(cudaMemset(differing.get(), 0, sizeof(unsigned long long)));
  if (count) {
    count_differing_kernel<<<1024, 256>>>(a, b, count, differing.get());
    OCCBENCH_CHECK_LAUNCH();
  }
  return differing.download()[0];
}

class StencilProblem : public Problem {
 public:
  StencilProblem(int width, int height, std::uint64_t seed)
      : width_(width), height_(height), src_host_(pixels()), src_(pixels()), dst_(pixels()) {
    fill_uniform_bytes(src_host_.data(), src_host_.size(), seed);
    src_.upload(src_host_);
    table_ = std::make_unique<ReferenceTable>(src_host_.data(), width_, height_);
  }

  void poison_outputs() override { OCCBENCH_CUDA_CHECK(cudaMemset(dst_.get(), kPoison, dst_.bytes())); }

  // The output depends on filter_size, a launch axis: run() records the filter it launched with,
  // and the check is against that filter's reference (from the image's one summed-area table,
  // once per filter, then kept). The
  // current filter's reference also sits on the device (the sweep runs a filter's points one after
  // another), where a count of differing pixels decides; only a failing image is downloaded, for
  // compare_images' detail (180 points of 4096^2 spent 1-2 s downloading images that matched).
  Verification verify() override {
    auto it = references_.find(filter_);
    if (it == references_.end()) {
      std::vector<std::uint8_t> expected(pixels());
      table_->image(filter_, kOffsetC, expected.data());
      it = references_.emplace(filter_, std::move(expected)).first;
    }
    if (device_reference_filter_ != filter_) {
      device_reference_.upload(it->second);
      device_reference_filter_ = filter_;
    }
    if (count_differing_pixels(dst_.get(), device_reference_.get(), pixels()) == 0) {
      Verification v;
      v.status = "passed";
      v.tolerance = 0;
      v.checked = pixels();
      return v;
    }
    std::vector<std::uint8_t> got = dst_.download();
    return compare_images(got.data(), it->second.data(), width_, height_, filter_);
  }

  std::size_t pixels() const { return std::size_t(width_) * std::size_t(height_); }
  int width() const { return width_; }
  int height() const { return height_; }
  const unsigned char* src() const { return src_.get(); }
  unsigned char* dst() { return dst_.get(); }
  void set_filter(int filter_size) { filter_ = filter_size; }

 private:
  int width_, height_;
  int filter_ = kMinFilter;
  std::vector<std::uint8_t> src_host_;
  DeviceBuffer<std::uint8_t> src_, dst_;
  std::unique_ptr<ReferenceTable> table_;  // refers to src_host_
  std::map<int, std::vector<std::uint8_t>> references_;
  DeviceBuffer<std::uint8_t> device_reference_{pixels()};
  int device_reference_filter_ = -1;
};


Axis filter_axis() {
  std::vector<std::int64_t> odd_sizes;
  for (int f = kMinFilter; f <= kMaxFilter; f += 2) odd_sizes.push_back(f);
  return axis("filter_size", "side of the square averaging window (odd); the tile's halo is filter_size/2 on each side")
      .one_of(odd_sizes).by_default(15);
}

// One thread per pixel; with Tile, the block's tile and its halo in dynamic shared memory.
template <auto Kernel, bool Tile>
VariantBuilder make_variant(std::string name, std::string description) {
  return VariantBuilder(std::move(name), std::move(description))
      .axis(filter_axis())
      .axis(axis("block_x", "threads per block along x (a row of pixels)").in(1, 1024).by_default(32))
      .axis(axis("block_y", "threads per block along y").in(1, 1024).by_default(4))
      .check([](const Params& p) -> std::string {
        auto threads = p.get("block_x") * p.get("block_y");
        if (threads > 1024) return fmt::format("block_x * block_y = {} threads, more than 1024 per block", threads);
        return "";
      })
      .launch([](const Params& p) {
        unsigned bx = unsigned(p.get("block_x")), by = unsigned(p.get("block_y"));
        return launch_of(kernel_ref<Kernel>(), {blocks_for(p.get("width"), bx), blocks_for(p.get("height"), by)}, {bx, by},
                         Tile ? tile_bytes(int(p.get("filter_size")), int(bx), int(by)) : 0);
      })
      .run_on<StencilProblem>([](auto& p, const Params& params, const LaunchSpec& l, cudaStream_t stream) {
        int filter_size = int(params.get("filter_size"));
        p.set_filter(filter_size);
        Kernel<<<to_dim3(l.grid), to_dim3(l.block), l.dynamic_smem_bytes, stream>>>(p.src(), p.dst(), p.width(), p.height(),
                                                                                  filter_size, kOffsetC);
      });
}

}  // namespace

Family make_family() {
  return FamilyBuilder(
             "stencil",
             "adaptive threshold on an 8-bit image (seed 001): out = (mean of the clamped filter^2 window - C < pixel) ? 255 : 0")
      .size(axis("width", "image width in pixels").in(1, 1 << 20).by_default(4096))
      .size(axis("height", "image height in pixels (at most 65535: the grid's y extent with block_y = 1)").in(1, 65535)
                .by_default(4096))
      .check_sizes([](const Params& s) -> std::string {
        auto pixels = s.get("width") * s.get("height");
        if (pixels > (std::int64_t(1) << 31))
          return fmt::format("width * height = {} pixels; at most 2^31 (the reference's tables and the host copies)", pixels);
        return "";
      })
      .device_bytes([](const Params& s) { return std::uint64_t(s.get("width") * s.get("height")) * 3; })
      .reference_axes({"filter_size"})
      .problem([](const Params& s, std::uint64_t seed) -> std::unique_ptr<Problem> {
        return std::make_unique<StencilProblem>(int(s.get("width")), int(s.get("height")), seed);
      })
      .variant(make_variant<&global_kernel, false>("global", "one thread per pixel, its filter^2 window read from global memory")
                   .work([](const Params& p) { return global_work(p.get("width"), p.get("height"), int(p.get("filter_size"))); }))
      .variant(make_variant<&shared_dynamic_kernel, true>(
                   "shared_dynamic",
                   "the seed's kernel: the block's tile with a filter/2 halo in extern __shared__ memory sized at launch, "
                   "loaded with a strided loop, __syncthreads, window from the tile")
                   .work([](const Params& p) {
                     return shared_work(p.get("width"), p.get("height"), int(p.get("filter_size")), int(p.get("block_x")),
                                        int(p.get("block_y")));
                   }));
}

}  // namespace occbench::stencil
