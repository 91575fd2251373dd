#include "kernels/stencil/stencil.hpp"

#include "harness/core/parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace occbench::stencil {

std::uint8_t threshold(std::uint32_t window_sum, int filter_size, std::uint8_t center, float c) {
  // float arithmetic, round to nearest, no contraction possible (a division, then a subtraction).
  float mean = float(window_sum) / float(filter_size * filter_size);
  return (mean - c < float(center)) ? 255 : 0;
}

namespace {
constexpr int kTablePad = kMaxFilter / 2;  // every filter's half-width fits in the padding
}

ReferenceTable::ReferenceTable(const std::uint8_t* src, int width, int height)
    : src_(src), width_(width), height_(height), padded_width_(std::size_t(std::max(width, 0)) + 2 * kTablePad) {
  if (width <= 0 || height <= 0) return;
  const std::size_t pw = padded_width_, ph = std::size_t(height) + 2 * kTablePad;
  // Summed-area table of the image padded by kTablePad replicated pixels on every side, with a zero
  // row and column in front: sat[(r + 1) * (pw + 1) + (q + 1)] = sum of padded[0..r][0..q].
  // Unsigned 32-bit arithmetic wraps on large images (4126^2 * 255 > 2^32), but the four-corner
  // difference is exact modulo 2^32 and a window sum is below 2^18, so every window sum is exact.
  // Built on all host cores: each padded row's running sums, then the rows added down each column range.
  sat_.assign((pw + 1) * (ph + 1), 0);
  parallel_for(ph, [&](unsigned, std::size_t r_begin, std::size_t r_end) {
    for (std::size_t r = r_begin; r < r_end; ++r) {
      int y = std::clamp(int(r) - kTablePad, 0, height - 1);
      const std::uint8_t* row = src + std::size_t(y) * width;
      std::uint32_t running = 0;
      for (std::size_t q = 0; q < pw; ++q) {
        running += row[std::clamp(int(q) - kTablePad, 0, width - 1)];
        sat_[(r + 1) * (pw + 1) + q + 1] = running;
      }
    }
  }, 64);
  parallel_for(pw, [&](unsigned, std::size_t q_begin, std::size_t q_end) {
    for (std::size_t r = 1; r < ph; ++r)
      for (std::size_t q = q_begin; q < q_end; ++q) sat_[(r + 1) * (pw + 1) + q + 1] += sat_[r * (pw + 1) + q + 1];
  }, 64);
}

void ReferenceTable::image(int filter_size, float c, std::uint8_t* dst) const {
  if (width_ <= 0 || height_ <= 0) return;
  if (filter_size < 1 || filter_size > 2 * kTablePad + 1 || filter_size % 2 == 0)
    throw std::invalid_argument(fmt::format("stencil reference: filter_size {} is not an odd size of at most {}", filter_size,
                                            2 * kTablePad + 1));
  const std::size_t row_stride = padded_width_ + 1;
  const std::size_t shift = std::size_t(kTablePad - filter_size / 2);  // the window's corner, in padded coordinates
  // Pixel (x, y)'s window is padded rows y + shift .. y + shift + filter - 1, columns likewise.
  parallel_for(std::size_t(height_), [&](unsigned, std::size_t y_begin, std::size_t y_end) {
    for (std::size_t y = y_begin; y < y_end; ++y)
      for (int x = 0; x < width_; ++x) {
        std::size_t top = y + shift, bottom = top + filter_size, left = std::size_t(x) + shift, right = left + filter_size;
        std::uint32_t sum = sat_[bottom * row_stride + right] - sat_[top * row_stride + right] -
                            sat_[bottom * row_stride + left] + sat_[top * row_stride + left];
        dst[y * width_ + x] = threshold(sum, filter_size, src_[y * width_ + x], c);
      }
  }, 64);
}

void reference(const std::uint8_t* src, std::uint8_t* dst, int width, int height, int filter_size, float c) {
  ReferenceTable(src, width, height).image(filter_size, c, dst);
}

void reference_direct(const std::uint8_t* src, std::uint8_t* dst, int width, int height, int filter_size, float c) {
  const int half = filter_size / 2;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      std::uint32_t sum = 0;
      for (int dy = -half; dy <= half; ++dy)
        for (int dx = -half; dx <= half; ++dx)
          sum += src[std::size_t(std::clamp(y + dy, 0, height - 1)) * width + std::clamp(x + dx, 0, width - 1)];
      dst[std::size_t(y) * width + x] = threshold(sum, filter_size, src[std::size_t(y) * width + x], c);
    }
}

Verification compare_images(const std::uint8_t* got, const std::uint8_t* expected, int width, int height,
                            int filter_size) {
  Verification v;
  v.tolerance = 0;
  v.checked = std::uint64_t(width) * std::uint64_t(height);
  // The common case, an exact match, at memcmp's speed: 180 points of 4096² spent seconds here.
  if (std::memcmp(got, expected, std::size_t(v.checked)) == 0) {
    v.status = "passed";
    return v;
  }
  int worst = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      std::size_t i = std::size_t(y) * width + x;
      if (got[i] == expected[i]) continue;
      worst = std::max(worst, std::abs(int(got[i]) - int(expected[i])));
      if (v.mismatches == 0)
        v.detail = fmt::format("first at pixel (x={}, y={}) of {}x{}, filter {}: got {}, expected {}{}", x, y, width,
                               height, filter_size, got[i], expected[i], got[i] == kPoison ? " (never written)" : "");
      ++v.mismatches;
    }
  v.max_rel_error = worst / 255.0;
  v.status = v.mismatches == 0 ? "passed" : "failed";
  return v;
}

std::size_t tile_bytes(int filter_size, int block_x, int block_y) {
  const int half = filter_size / 2;
  return std::size_t(block_x + 2 * half) * std::size_t(block_y + 2 * half);
}

WorkModel global_work(std::int64_t width, std::int64_t height, int filter_size) {
  const double pixels = double(width) * double(height), f2 = double(filter_size) * filter_size;
  WorkModel w;
  w.flops = pixels * (f2 + 1);
  w.global_bytes = pixels * (f2 + 1 + 1);
  w.dram_bytes = 2 * pixels;
  return w;
}

WorkModel shared_work(std::int64_t width, std::int64_t height, int filter_size, int block_x, int block_y) {
  const double pixels = double(width) * double(height), f2 = double(filter_size) * filter_size;
  const double blocks = double((width + block_x - 1) / block_x) * double((height + block_y - 1) / block_y);
  WorkModel w;
  w.flops = pixels * (f2 + 1);
  w.global_bytes = blocks * double(tile_bytes(filter_size, block_x, block_y)) + pixels;
  w.dram_bytes = 2 * pixels;
  return w;
}

}  // namespace occbench::stencil
