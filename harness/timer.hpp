#pragma once
// Times a callable: cudaEvents around each device sample, the host clock for host code. Knows
// nothing of kernels; the caller's callable launches whatever it launches.
#include "harness/config.hpp"
#include "harness/stats.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>

namespace occbench {

// Evicts the L2 cache by writing a buffer twice its size, so a cold sample reads from DRAM.
class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  void flush(cudaStream_t stream);
  std::size_t bytes() const { return bytes_; }

 private:
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0;
  unsigned counter_ = 0;
};

// A start and a stop event, created and destroyed together.
struct EventPair {
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start{}, stop{};
};

// Warm-up launches, then samples until stop_reason() says so. `flusher` is used before every
// sample in cold mode and may be null in hot mode.
TimingStats time_device(const std::function<void(cudaStream_t)>& launch, const MeasurementSettings& settings,
                        cudaStream_t stream, L2Flusher* flusher);

TimingStats time_host(const std::function<void()>& work, const MeasurementSettings& settings);

}  // namespace occbench
