#include "harness/measure/energy/energy_observer.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/optional_number.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/measure/conditions.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <optional>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace occbench {

namespace {

// The point's launches queued in chunks of about 3 ms, each closed by an event. The meter says
// how far ahead of the GPU to queue (harness/measure/energy/energy.hpp): enough that the GPU never waits
// while the host reads NVML, and little past the window's close, so finish() waits briefly. How
// long a chunk takes comes from the chunks already done (the shortest: a gap before one only
// lengthens it), at first from the timed median.
class LaunchStretch : public BusyWork {
 public:
  LaunchStretch(const std::function<void()>& enqueue, cudaStream_t stream, double launch_ms, const DeviceInfo& device)
      : enqueue_(enqueue), stream_(stream), device_(device) {
    constexpr double kChunkMs = 3.0;
    launch_ms = std::max(launch_ms, 1e-4);
    chunk_ = int(std::clamp(std::ceil(kChunkMs / launch_ms), 1.0, 2048.0));
    chunk_s_ = chunk_ * launch_ms * 1e-3;
    OCCBENCH_CUDA_CHECK(cudaEventCreate(&start_));
  }
  ~LaunchStretch() override {
    cudaEventDestroy(start_);
    for (cudaEvent_t e : pool_) cudaEventDestroy(e);
    for (cudaEvent_t e : queued_) cudaEventDestroy(e);
    if (last_) cudaEventDestroy(last_);
  }

  void keep_busy(double ahead_s) override {
    while (!queued_.empty() && cudaEventQuery(queued_.front()) == cudaSuccess) retire_front();
    int missing = chunks_to_queue(int(queued_.size()), queued_ahead_s(), ahead_s, chunk_s_);
    for (int i = 0; i < missing; ++i) queue_chunk();
    read_throttle_reasons_if_due();
  }

  // Why the clocks were held down during the stretch (a power cap moves a kernel's energy).
  unsigned long long throttle_reasons() const { return throttle_reasons_; }

  BusyStretch finish() override {
    OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    while (!queued_.empty()) retire_front();
    BusyStretch stretch;
    stretch.launches = launches_;
    stretch.host_enqueue_s = host_enqueue_s_;
    if (last_) {
      float ms = 0;
      OCCBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, last_));
      stretch.busy_s = ms * 1e-3;
    }
    return stretch;
  }

 private:
  // The GPU time still queued: the chunks not yet done, less what the oldest has run so far.
  double queued_ahead_s() const {
    return std::max(0.0, double(queued_.size()) * chunk_s_ - seconds_since(front_started_));
  }

  void queue_chunk() {
    if (launches_ == 0) OCCBENCH_CUDA_CHECK(cudaEventRecord(start_, stream_));
    if (queued_.empty()) front_started_ = std::chrono::steady_clock::now();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < chunk_; ++i) enqueue_();
    host_enqueue_s_ += seconds_since(t0);
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
  // The oldest chunk has finished: its event becomes the stretch's end so far, and the time
  // from the chunk before it the newest measure of a chunk's length.
  void retire_front() {
    if (last_) {
      float ms = 0;
      OCCBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, last_, queued_.front()));
      if (ms > 0) chunk_s_ = std::min(chunk_s_, ms * 1e-3);
      pool_.push_back(last_);
    }
    last_ = queued_.front();
    queued_.pop_front();
    front_started_ = std::chrono::steady_clock::now();
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
  std::chrono::steady_clock::time_point last_reading_{}, front_started_{};
  int chunk_ = 1;
  double chunk_s_ = 0, host_enqueue_s_ = 0;
  long long launches_ = 0;
  cudaEvent_t start_ = nullptr, last_ = nullptr;
  std::deque<cudaEvent_t> queued_;
  std::vector<cudaEvent_t> pool_;
};

}  // namespace

// One window with a fresh stretch of the point's launches; the throttle reasons NVML gave during it.
std::pair<EnergyWindow, unsigned long long> EnergyObserver::measure_window(const SampledPoint& point, double min_window_s) {
  LaunchStretch stretch(point.enqueue_launch, point.stream, point.timing.median_ms, device_);
  EnergyWindow window = meter_.measure(stretch, point.timing.median_ms * 1e-3, min_window_s);
  return {window, stretch.throttle_reasons()};
}

// A window, and a second where the first's counter disagrees with the driver's power samples.
EnergyObserver::Reading EnergyObserver::read(const SampledPoint& point, double min_window_s) {
  Reading r;
  std::tie(r.window, r.throttle_reasons) = measure_window(point, min_window_s);
  // The counter now and then closes a window a few ms off its period (its watts 4-6% off the
  // driver's power samples in the same window, on the H100): such a window is measured again, and
  // the one whose counter agrees better with its samples is kept.
  if (r.window.status == "ok" && counter_disagrees_with_samples(r.window)) {
    auto [again, again_reasons] = measure_window(point, min_window_s);
    r.throttle_reasons |= again_reasons;
    if (again.status == "ok") std::tie(r.window, r.other) = better_window_first(r.window, again);
  }
  return r;
}

// Keeps the point's launches running until NVML reports the power cap, at most kMostS (a kernel
// over the limit reaches it within about a second on the H100); how long they ran, and whether it came.
std::pair<double, bool> EnergyObserver::run_until_power_capped(const SampledPoint& point) {
  constexpr double kMostS = 1.5;
  LaunchStretch stretch(point.enqueue_launch, point.stream, point.timing.median_ms, device_);
  auto t0 = std::chrono::steady_clock::now();
  bool capped = false;
  while (!capped && seconds_since(t0) < kMostS) {
    stretch.keep_busy(kQueueAheadS);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    capped = (stretch.throttle_reasons() & kSwPowerCapBit) != 0;
  }
  stretch.finish();
  return {seconds_since(t0), capped};
}

void EnergyObserver::after_samples(const SampledPoint& point, const SharedRecord& record) {
  if (!point.on_device) return;
  if (!meter_.available()) {
    record->json["energy"] = energy_unavailable_json(meter_.unavailable_reason());
    return;
  }
  Reading r = read(point, 0);
  std::optional<Reading> burst;
  std::pair<double, bool> settle{0, false};
  // At the power limit the first window read a burst over it or a part of the controller's cycle:
  // the point is read again once the cap has engaged, over a whole cycle.
  if (at_power_limit(r.window, meter_.power_limit_w(), (r.throttle_reasons & kSwPowerCapBit) != 0)) {
    settle = run_until_power_capped(point);
    burst = std::move(r);
    r = read(point, kPowerLimitWindowS);
  }
  nlohmann::ordered_json& energy = record->json["energy"];
  energy = energy_json(r.window, meter_.calibration().idle_w, point.work.flops, point.work.dram_bytes);
  if (r.window.status != "ok") return;
  energy["throttle_reasons"] = throttle_reason_names(r.throttle_reasons);
  energy["windows"] = r.windows() + (burst ? burst->windows() : 0);
  if (r.other) energy["other_window"] = {{"average_w", r.other->average_w}, {"power_samples_mean_w", r.other->power_mean_w}};
  if (double second_s = meter_.settings().second_window_s; second_s > 0) energy["second_window"] = summary(read(point, second_s));
  energy["power_limit_w"] = optional_number(meter_.power_limit_w());
  energy["at_power_limit"] = burst.has_value();
  if (!burst) return;
  energy["power_cap_wait_s"] = settle.first;
  energy["power_cap_engaged"] = settle.second;
  energy["first_window"] = summary(*burst);
}

// Another window's readings beside the kept one.
nlohmann::ordered_json EnergyObserver::summary(const Reading& r) {
  const EnergyWindow& w = r.window;
  if (w.status != "ok") return energy_unavailable_json(w.reason);
  return {{"window_s", w.window_s},
          {"average_w", w.average_w},
          {"launch_ms", w.launch_ms},
          {"joules_per_launch", joules_per_launch(w)},
          {"power_samples_mean_w", w.power_samples ? nlohmann::ordered_json(w.power_mean_w) : nlohmann::ordered_json(nullptr)},
          {"gpu_temperature_c", optional_number(w.temperature_c)},
          {"throttle_reasons", throttle_reason_names(r.throttle_reasons)}};
}

}  // namespace occbench
