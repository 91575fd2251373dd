#include "harness/measure/energy_observer.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/measure/conditions.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <vector>

namespace occbench {

namespace {

// The point's launches queued in chunks, each closed by an event, with enough queued that the
// GPU never waits while the host reads NVML (a reading takes up to a few ms).
class LaunchStretch : public BusyWork {
 public:
  LaunchStretch(const std::function<void()>& enqueue, cudaStream_t stream, double launch_ms, const DeviceInfo& device)
      : enqueue_(enqueue), stream_(stream), device_(device) {
    constexpr double kChunkMs = 3.0;
    chunk_ = int(std::clamp(std::ceil(kChunkMs / std::max(launch_ms, 1e-4)), 1.0, 2048.0));
    // Long launches: one queued behind the one running; very long ones one at a time (a gap of a
    // reading between them is under 1% of one), so that finish() waits for at most one.
    in_flight_limit_ = launch_ms >= 50 ? 1 : launch_ms >= kChunkMs ? 2 : 3;
    OCCBENCH_CUDA_CHECK(cudaEventCreate(&start_));
  }
  ~LaunchStretch() override {
    cudaEventDestroy(start_);
    for (cudaEvent_t e : pool_) cudaEventDestroy(e);
    for (cudaEvent_t e : queued_) cudaEventDestroy(e);
    if (last_) cudaEventDestroy(last_);
  }

  void keep_busy() override {
    while (!queued_.empty() && cudaEventQuery(queued_.front()) == cudaSuccess) retire_front();
    while (int(queued_.size()) < in_flight_limit_) queue_chunk();
    read_throttle_reasons_if_due();
  }

  // Why the clocks were held down during the stretch (a power cap moves a kernel's energy).
  unsigned long long throttle_reasons() const { return throttle_reasons_; }

  BusyStretch finish() override {
    OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    while (!queued_.empty()) retire_front();
    BusyStretch stretch;
    stretch.launches = launches_;
    if (last_) {
      float ms = 0;
      OCCBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, last_));
      stretch.busy_s = ms * 1e-3;
    }
    return stretch;
  }

 private:
  void queue_chunk() {
    if (launches_ == 0) OCCBENCH_CUDA_CHECK(cudaEventRecord(start_, stream_));
    for (int i = 0; i < chunk_; ++i) enqueue_();
    launches_ += chunk_;
    cudaEvent_t done = nullptr;
    if (pool_.empty()) {
      OCCBENCH_CUDA_CHECK(cudaEventCreate(&done));
    } else {
      done = pool_.back();
      pool_.pop_back();
    }
    OCCBENCH_CUDA_CHECK(cudaEventRecord(done, stream_));
    queued_.push_back(done);
  }
  // The oldest chunk has finished: its event becomes the stretch's end so far.
  void retire_front() {
    if (last_) pool_.push_back(last_);
    last_ = queued_.front();
    queued_.pop_front();
  }

  void read_throttle_reasons_if_due() {
    constexpr double kEveryS = 0.025;  // an NVML reading takes up to a few ms
    if (last_reading_ != std::chrono::steady_clock::time_point{} && seconds_since(last_reading_) < kEveryS) return;
    throttle_reasons_ |= read_clocks(device_).throttle_reasons.value_or(0);
    last_reading_ = std::chrono::steady_clock::now();
  }

  const std::function<void()>& enqueue_;
  cudaStream_t stream_;
  const DeviceInfo& device_;
  unsigned long long throttle_reasons_ = 0;
  std::chrono::steady_clock::time_point last_reading_{};
  int chunk_ = 1, in_flight_limit_ = 3;
  long long launches_ = 0;
  cudaEvent_t start_ = nullptr, last_ = nullptr;
  std::deque<cudaEvent_t> queued_;
  std::vector<cudaEvent_t> pool_;
};

}  // namespace

void EnergyObserver::after_samples(const SampledPoint& point, const SharedRecord& record) {
  if (!point.on_device) return;
  if (!meter_.available()) {
    record->json["energy"] = energy_unavailable_json(meter_.unavailable_reason());
    return;
  }
  LaunchStretch stretch(point.enqueue_launch, point.stream, point.timing.median_ms, device_);
  EnergyWindow window = meter_.measure(stretch);
  nlohmann::ordered_json& energy = record->json["energy"];
  energy = energy_json(window, meter_.calibration().idle_w, point.work.flops, point.work.dram_bytes);
  if (window.status == "ok") energy["throttle_reasons"] = throttle_reason_names(stretch.throttle_reasons());
}

}  // namespace occbench
