#include "harness/timer.hpp"

#include "harness/cuda_check.hpp"

#include <chrono>
#include <vector>

namespace occbench {

L2Flusher::L2Flusher(std::size_t l2_bytes) : bytes_(2 * l2_bytes) {
  if (bytes_ > 0) OCCBENCH_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
}

L2Flusher::~L2Flusher() {
  if (buffer_) cudaFree(buffer_);
}

EventPair::EventPair() {
  OCCBENCH_CUDA_CHECK(cudaEventCreate(&start));
  OCCBENCH_CUDA_CHECK(cudaEventCreate(&stop));
}

EventPair::~EventPair() {
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

void L2Flusher::flush(cudaStream_t stream) {
  if (!buffer_) return;
  // A different byte each time, so no layer can skip the write as redundant.
  OCCBENCH_CUDA_CHECK(cudaMemsetAsync(buffer_, int(++counter_ & 0xff), bytes_, stream));
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TimingStats time_device(const std::function<void(cudaStream_t)>& launch, const MeasurementSettings& settings,
                        cudaStream_t stream, L2Flusher* flusher) {
  bool cold = settings.mode == "cold" && flusher;
  for (int i = 0; i < settings.warmup_runs; ++i) launch(stream);
  OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));

  EventPair events;
  std::vector<double> samples;
  TimingStats stats;
  auto t0 = std::chrono::steady_clock::now();
  while (true) {
    if (cold) flusher->flush(stream);
    OCCBENCH_CUDA_CHECK(cudaEventRecord(events.start, stream));
    launch(stream);
    OCCBENCH_CUDA_CHECK(cudaEventRecord(events.stop, stream));
    OCCBENCH_CUDA_CHECK(cudaEventSynchronize(events.stop));
    float ms = 0;
    OCCBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
    samples.push_back(ms);
    stats = summarize(samples, cold ? "cold" : "hot");
    stats.stop_reason = stop_reason(stats, seconds_since(t0), settings);
    if (!stats.stop_reason.empty()) return stats;
  }
}

TimingStats time_host(const std::function<void()>& work, const MeasurementSettings& settings) {
  for (int i = 0; i < settings.warmup_runs; ++i) work();
  std::vector<double> samples;
  TimingStats stats;
  auto t0 = std::chrono::steady_clock::now();
  while (true) {
    auto start = std::chrono::steady_clock::now();
    work();
    samples.push_back(seconds_since(start) * 1e3);
    stats = summarize(samples, "host");
    stats.stop_reason = stop_reason(stats, seconds_since(t0), settings);
    if (!stats.stop_reason.empty()) return stats;
  }
}

}  // namespace occbench
