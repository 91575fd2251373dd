#pragma once
// Adaptive threshold on an 8-bit image (seed 001): the mean over a filter_size x filter_size window
// (coordinates clamped at the borders) minus a constant C, compared with the pixel:
//   out(x, y) = (mean - C < src(x, y)) ? 255 : 0
// The mean is the seed's float expression: float(window sum) / float(filter_size^2), rounded to
// nearest, then mean - C in float. The window sum is an integer (at most 31^2 * 255 = 245,055, exact in
// float too), so CPU and GPU make the same correctly rounded operations and must agree on every pixel.
#include "harness/family/registry.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace occbench::stencil {

Family make_family();

// The constant C of the threshold (the seed's g_stAdtparam.doublec; its value is not given there).
inline constexpr float kOffsetC = 3.0f;
inline constexpr int kMinFilter = 3;
inline constexpr int kMaxFilter = 31;
// What poison_outputs() writes: neither 0 nor 255, so an unwritten pixel can never pass.
inline constexpr std::uint8_t kPoison = 0x5A;

// The threshold rule on one pixel, as the kernels compute it.
std::uint8_t threshold(std::uint32_t window_sum, int filter_size, std::uint8_t center, float c);

// The CPU reference: window sums from a summed-area table of the border-replicated image, O(width *
// height) whatever the filter. One table, padded for the largest filter, serves every filter of the
// image: a 4096^2 sweep of 15 filters built 15 tables (0.1 s each on the H100's host), now one.
class ReferenceTable {
 public:
  ReferenceTable(const std::uint8_t* src, int width, int height);
  // The reference image for filter_size (at most kMaxFilter) into dst (width * height pixels).
  void image(int filter_size, float c, std::uint8_t* dst) const;

 private:
  const std::uint8_t* src_;
  int width_, height_;
  std::size_t padded_width_;
  std::vector<std::uint32_t> sat_;
};
void reference(const std::uint8_t* src, std::uint8_t* dst, int width, int height, int filter_size, float c);
// The seed's loop, literally, on the CPU (filter_size^2 clamped reads per pixel): for the tests.
void reference_direct(const std::uint8_t* src, std::uint8_t* dst, int width, int height, int filter_size, float c);

// Exact comparison of an output image with the reference: every pixel must be equal. max_rel_error
// is the largest |got - expected| / 255; the detail names the first wrong pixel by (x, y).
Verification compare_images(const std::uint8_t* got, const std::uint8_t* expected, int width, int height,
                            int filter_size);

// Bytes of the shared tile: (block_x + 2 * (filter/2)) * (block_y + 2 * (filter/2)).
std::size_t tile_bytes(int filter_size, int block_x, int block_y);

// Work models. FLOPs: filter^2 integer adds + the compare per pixel (integer adds counted as
// operations: the kernels sum in 32-bit integers). dram_bytes: the image read once, written once.
// global: every pixel issues filter^2 window loads + 1 centre load + 1 store (1 byte each).
WorkModel global_work(std::int64_t width, std::int64_t height, int filter_size);
// shared_dynamic: every block loads its whole tile with halo (clamped reads included) once, every
// pixel stores 1 byte; the window is read from shared memory.
WorkModel shared_work(std::int64_t width, std::int64_t height, int filter_size, int block_x, int block_y);

}  // namespace occbench::stencil
