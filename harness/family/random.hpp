#pragma once
// Reproducible random inputs, filled in parallel: element i depends only on (seed, i), so the
// data are the same whatever the thread count, and large inputs (GBs) fill in seconds.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace occbench {

// Uniform in [low, high), never exactly zero when low < 0 < high is not required.
void fill_uniform(float* data, std::size_t count, std::uint64_t seed, float low = -1.0f, float high = 1.0f);
std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float low = -1.0f, float high = 1.0f);
void fill_uniform_bytes(std::uint8_t* data, std::size_t count, std::uint64_t seed);

// Element i of stream `stream` of a seeded sequence, uniform in [0, 1) with 53 random bits; depends
// only on (seed, stream, i) (user kernels' inputs, harness/sweep/source_family).
double unit_random(std::uint64_t seed, std::uint64_t stream, std::uint64_t i);

// Draws from a seeded generator that are the same with every standard library (its distributions
// may differ), so a seed samples and searches the same way everywhere: an integer in [0, n)
// (rejecting the biased top of the raw output), and a number in [0, 1).
std::uint64_t uniform_below(std::mt19937_64& generator, std::uint64_t n);
double uniform_unit(std::mt19937_64& generator);

// `count` distinct indices below `total` (all of them where there are fewer), uniform, in the
// order drawn: the first `count` places of a Fisher-Yates shuffle of 0 .. total-1 seeded with
// `seed`, kept sparse so that `total` may be 10^8 (a sweep's random sample, expanded or counted).
std::vector<std::uint64_t> distinct_below(std::uint64_t total, std::uint64_t count, std::uint64_t seed);

}  // namespace occbench
