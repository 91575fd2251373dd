#pragma once
// Splits [0, count) into one contiguous range per host thread (up to 32) and runs body on each;
// counts under `serial_below` (default 2^20 items) run on the calling thread alone.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace occbench {

// The number of ranges parallel_for uses for `count` items.
constexpr std::size_t kSerialBelow = std::size_t(1) << 20;
inline unsigned parallel_ranges(std::size_t count, std::size_t serial_below = kSerialBelow) {
  if (count < serial_below) return 1;
  return std::max(1u, std::min(std::thread::hardware_concurrency(), 32u));
}

// body(range_index, begin, end), one call per range, ranges in order of their index.
template <typename Body>
void parallel_for(std::size_t count, Body&& body, std::size_t serial_below = kSerialBelow) {
  unsigned threads = parallel_ranges(count, serial_below);
  std::size_t chunk = (count + threads - 1) / threads;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    std::size_t begin = t * chunk, end = std::min(count, begin + chunk);
    if (begin >= end) break;
    pool.emplace_back([=, &body] { body(t, begin, end); });
  }
  for (auto& thread : pool) thread.join();
}

}  // namespace occbench
