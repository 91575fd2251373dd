// Transpose (seeds 003, 004): where shared memory pays without any reuse, by turning strided
// global writes into coalesced ones. Nothing is read twice; the tile only reorders. Reading a tile
// column from shared memory hits one bank 32 times (row stride 32 floats = 128 bytes) unless the
// row is padded to 33 floats.
#include "kernels/transpose/transpose.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/family/device_buffer.hpp"
#include "harness/family/family_builder.hpp"
#include "harness/family/random_device.hpp"
#include "harness/family/verify_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <vector>

namespace occbench::transpose {

// Block (32, block_rows) covers the 32 x 32 tile at (blockIdx.y, blockIdx.x) of the input.
// Reads in[y][x] along x (coalesced), writes out[x][y]: a warp's 32 stores fall rows*4 bytes apart.
__global__ void naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  if (x >= cols) return;
  for (int j = 0; j < kTile; j += blockDim.y)
    if (y + j < rows) out[x * rows + (y + j)] = in[(y + j) * cols + x];
}

// The tile goes through shared memory: coalesced reads into tile rows, __syncthreads, coalesced
// writes from tile columns. Pad = 0: a column read is a 32-way bank conflict; Pad = 1: none.
template <int Pad>
__global__ void shared_tile_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + Pad];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += blockDim.y)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  // Output tile (blockIdx.x, blockIdx.y): out is cols x rows, so x now runs along the input's rows.
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += blockDim.y)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

namespace {

// What a correct transpose writes, from the input's formula (harness/family/random_hash.hpp): out[c][r] =
// in[r][c], computed on the GPU without reading the input, one thread per output element. The host
// reference (reference()) would cost a host copy of the input, a CPU pass and an upload of the
// result per size: on the H100 about as long as the sweep's timed samples.
__global__ void expected_kernel(float* __restrict__ expected, std::size_t rows, std::size_t cols, std::uint64_t key) {
  const std::size_t count = rows * cols;
  for (std::size_t o = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; o < count; o += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t c = o / rows, r = o % rows;
    expected[o] = uniform_float_at(key, r * cols + c, -1.0f, 1.0f);
  }
}

class TransposeProblem : public Problem {
 public:
  TransposeProblem(std::size_t rows, std::size_t cols, std::uint64_t seed)
      : rows_(rows), cols_(cols), in_(rows * cols), out_(rows * cols), expected_(rows * cols) {
    fill_uniform_device(in_.get(), in_.size(), seed, -1.0f, 1.0f);
    expected_kernel<<<grid_stride_blocks(in_.size()), kGridStrideThreads>>>(expected_.get(), rows, cols, stream_key(seed));
    OCCBENCH_CHECK_LAUNCH();
  }

  void poison_outputs() override { out_.poison(); }

  // A transpose moves bits: the output must equal the expected values exactly.
  Verification verify() override { return compare_on_device(out_.get(), expected_.get(), out_.size(), 0.0, 0.0); }

  int rows() const { return int(rows_); }
  int cols() const { return int(cols_); }
  const float* input() const { return in_.get(); }
  float* output() { return out_.get(); }

 private:
  std::size_t rows_, cols_;
  DeviceBuffer<float> in_, out_, expected_;
};


unsigned tiles_for(std::int64_t extent) { return unsigned(std::max<std::int64_t>(1, (extent + kTile - 1) / kTile)); }

template <auto Kernel>
Variant tile_variant(std::string name, std::string description) {
  return VariantBuilder(std::move(name), std::move(description))
      .axis(axis("block_rows", "threads per block in y: 32 x block_rows threads move a 32 x 32 tile, 32/block_rows elements each")
                .one_of({std::begin(kBlockRows), std::end(kBlockRows)}).by_default(8))
      .launch([](const Params& p) {
        return launch_of(kernel_ref<Kernel>(), {tiles_for(p.get("cols")), tiles_for(p.get("rows"))},
                         {unsigned(kTile), unsigned(p.get("block_rows"))});
      })
      .work([](const Params& p) { return work(double(p.get("rows")), double(p.get("cols"))); })
      .run_on<TransposeProblem>([](auto& p, const Params&, const LaunchSpec& l, cudaStream_t stream) {
        Kernel<<<to_dim3(l.grid), to_dim3(l.block), l.dynamic_smem_bytes, stream>>>(p.input(), p.output(), p.rows(), p.cols());
      });
}

}  // namespace

Family make_family() {
  return FamilyBuilder("transpose",
                       "out-of-place float32 transpose, rows x cols -> cols x rows: coalescing through a shared tile, "
                       "and the bank conflicts of an unpadded one")
      .size(axis("rows", "rows of the input (columns of the output); one block row per 32, at most 65535 block rows")
                .in(1, std::int64_t(65535) * kTile))
      .size(axis("cols", "columns of the input (rows of the output)").in(1, std::numeric_limits<std::int32_t>::max()))
      .check_sizes([](const Params& s) -> std::string {
        double elements = double(s.get("rows")) * double(s.get("cols"));
        if (elements > double(std::numeric_limits<std::int32_t>::max()))
          return fmt::format("rows*cols = {} must fit in a 32-bit int (the kernels' index type)", elements);
        return "";
      })
      // Input, output and the expected output kept on the device for verification.
      .device_bytes([](const Params& s) { return std::uint64_t(s.get("rows")) * std::uint64_t(s.get("cols")) * 12; })
      .problem([](const Params& s, std::uint64_t seed) -> std::unique_ptr<Problem> {
        return std::make_unique<TransposeProblem>(std::size_t(s.get("rows")), std::size_t(s.get("cols")), seed);
      })
      .variant(tile_variant<&naive_kernel>("naive", "coalesced reads from global memory, strided writes (rows*4 bytes apart)"))
      .variant(tile_variant<&shared_tile_kernel<0>>("shared_tile",
                                                    "32x32 tile in shared memory, coalesced reads and writes; column reads "
                                                    "from the tile are 32-way bank conflicts"))
      .variant(tile_variant<&shared_tile_kernel<1>>(
          "shared_tile_padded", "the same tile padded to 33 floats per row: column reads hit 32 different banks"));
}

}  // namespace occbench::transpose
