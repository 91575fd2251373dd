#pragma once
// The device's DRAM latency, measured: one thread chases a random cycle through a buffer many
// times the L2's size, one dependent 4-byte load per 128-byte line, loaded with __ldcg (L2 only,
// not L1), so every step waits for DRAM. Beside the measured copy bandwidth it gives Little's law
// its two inputs (harness/model/occupancy_model.hpp).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace occbench {

// Lines a probe walks and how far: the buffer is max(8 x L2, 256 MiB) capped at 512 MiB and an
// eighth of the card.
struct LatencyProbeShape {
  std::size_t buffer_bytes = 0;
  std::size_t line_bytes = 128;
  int steps = 32768;   // dependent loads per timed chase
  int repetitions = 3; // timed chases, each on lines the others did not touch; the median is kept
};
LatencyProbeShape latency_probe_shape(std::size_t l2_bytes, std::size_t total_memory_bytes);

// next[i] for a single cycle through all `count` entries in random order (Sattolo's algorithm):
// following next from any entry visits every entry once before it returns.
std::vector<std::uint32_t> random_cycle(std::size_t count, std::uint64_t seed);

// Nanoseconds per dependent load on the current device (median of the shape's repetitions).
double measure_dram_latency_ns(const LatencyProbeShape& shape);

}  // namespace occbench
