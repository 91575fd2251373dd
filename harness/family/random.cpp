#include "harness/family/random.hpp"

#include "harness/core/parallel.hpp"
#include "harness/family/random_hash.hpp"

#include <algorithm>
#include <unordered_map>

namespace occbench {

void fill_uniform(float* data, std::size_t count, std::uint64_t seed, float low, float high) {
  std::uint64_t key = stream_key(seed);
  parallel_for(count, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) data[i] = uniform_float_at(key, i, low, high);
  });
}

std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float low, float high) {
  std::vector<float> values(count);
  fill_uniform(values.data(), count, seed, low, high);
  return values;
}

void fill_uniform_bytes(std::uint8_t* data, std::size_t count, std::uint64_t seed) {
  std::uint64_t key = stream_key(seed);
  parallel_for(count, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) data[i] = uniform_byte_at(key, i);
  });
}

double unit_random(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) { return unit_random_at(seed, stream, i); }

std::uint64_t uniform_below(std::mt19937_64& generator, std::uint64_t n) {
  const std::uint64_t biased_below = (0 - n) % n;
  std::uint64_t r = generator();
  while (r < biased_below) r = generator();
  return r % n;
}

double uniform_unit(std::mt19937_64& generator) { return double(generator() >> 11) * 0x1.0p-53; }

std::vector<std::uint64_t> distinct_below(std::uint64_t total, std::uint64_t count, std::uint64_t seed) {
  count = std::min(count, total);
  std::mt19937_64 generator(seed);
  std::unordered_map<std::uint64_t, std::uint64_t> moved;  // the shuffle's places that no longer hold their own index
  auto held = [&](std::uint64_t k) {
    auto found = moved.find(k);
    return found == moved.end() ? k : found->second;
  };
  std::vector<std::uint64_t> drawn;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t j = i + uniform_below(generator, total - i);
    std::uint64_t at_i = held(i), at_j = held(j);
    moved[i] = at_j;
    moved[j] = at_i;
    drawn.push_back(at_j);
  }
  return drawn;
}

}  // namespace occbench
