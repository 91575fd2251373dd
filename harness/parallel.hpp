#pragma once
// Splits [0, count) into one contiguous range per host thread (up to 32) and runs body(begin, end)
// on each; small counts (under 2^20) run on the calling thread alone.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace occbench {

// The number of ranges parallel_for uses for `count` items.
inline unsigned parallel_ranges(std::size_t count) {
  if (count < (std::size_t(1) << 20)) return 1;
  return std::max(1u, std::min(std::thread::hardware_concurrency(), 32u));
}

// body(range_index, begin, end), one call per range, ranges in order of their index.
template <typename Body>
void parallel_for(std::size_t count, Body&& body) {
  unsigned threads = parallel_ranges(count);
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
