#include "harness/random.hpp"

#include "harness/parallel.hpp"

namespace occbench {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

void fill_uniform(float* data, std::size_t count, std::uint64_t seed, float low, float high) {
  std::uint64_t key = splitmix64(seed);
  parallel_for(count, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      // 24 random bits: every value is exactly representable and uniform in [0, 1).
      float unit = float(splitmix64(key ^ i) >> 40) * (1.0f / 16777216.0f);
      data[i] = low + (high - low) * unit;
    }
  });
}

std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float low, float high) {
  std::vector<float> values(count);
  fill_uniform(values.data(), count, seed, low, high);
  return values;
}

void fill_uniform_bytes(std::uint8_t* data, std::size_t count, std::uint64_t seed) {
  std::uint64_t key = splitmix64(seed);
  parallel_for(count, [&](unsigned, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) data[i] = std::uint8_t(splitmix64(key ^ i) >> 56);
  });
}

double unit_random(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
  // splitmix64 adds its own increment first; subtracting it keeps the stream's earlier values.
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + i * 0xBF58476D1CE4E5B9ull + 1;
  return double(splitmix64(x - 0x9e3779b97f4a7c15ull) >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace occbench
