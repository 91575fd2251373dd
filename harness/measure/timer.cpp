#include "harness/measure/timer.hpp"

#include "harness/core/cuda_check.hpp"
#include "harness/measure/kernel_activity.hpp"
#include "harness/core/clock.hpp"
#include "harness/measure/timer_kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace occbench {

FlushMethod flush_method_from_env() {
  const char* value = std::getenv("OCCBENCH_L2_FLUSH");
  if (!value || !*value) return FlushMethod::read;
  std::string name = value;
  for (FlushMethod m : {FlushMethod::read, FlushMethod::write, FlushMethod::write_read, FlushMethod::read_discard})
    if (name == to_string(m)) return m;
  throw std::invalid_argument("OCCBENCH_L2_FLUSH: expected read, write, write_read or read_discard, got '" + name + "'");
}

const char* to_string(FlushMethod method) {
  switch (method) {
    case FlushMethod::write:
      return "write";
    case FlushMethod::write_read:
      return "write_read";
    case FlushMethod::read_discard:
      return "read_discard";
    default:
      return "read";
  }
}

L2Flusher::L2Flusher(std::size_t l2_bytes, int sm_count, FlushMethod method)
    // Whole 128-byte lines (the discard's unit; also whole float4s for the sweep).
    : bytes_(2 * l2_bytes / kL2DiscardLineBytes * kL2DiscardLineBytes), sm_count_(sm_count), method_(method) {
  if (bytes_ == 0) return;
  OCCBENCH_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  OCCBENCH_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&sink_), sizeof(float)));
  // Defined contents for the read sweep (it sums them; any finite values do).
  OCCBENCH_CUDA_CHECK(cudaMemset(buffer_, 0, bytes_));
}

L2Flusher::~L2Flusher() {
  if (buffer_) cudaFree(buffer_);
  if (sink_) cudaFree(sink_);
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
  if (method_ != FlushMethod::read) {
    // A small value that changes each time (a float of bytes 0..0x3f is finite), so no layer can
    // skip the write as redundant and the read sweep's sum stays finite.
    OCCBENCH_CUDA_CHECK(cudaMemsetAsync(buffer_, int(++counter_ & 0x3f), bytes_, stream));
  }
  if (method_ != FlushMethod::write) launch_read_sweep(buffer_, bytes_, sink_, sm_count_, stream);
  if (method_ == FlushMethod::read_discard) launch_l2_discard(buffer_, bytes_, stream);
}

namespace {

float elapsed_ms(const EventPair& events) {
  OCCBENCH_CUDA_CHECK(cudaEventSynchronize(events.stop));
  float ms = 0;
  OCCBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
  return ms;
}

// Samples until stop_reason() says so. Each sample is `before` (untimed, e.g. the L2 flush),
// the start event, `timed`, the stop event; `per_sample` scales a sample's time to the figure
// reported (launches per batch). With `activity`, a sample's time is the summed GPU duration of
// the kernels `timed` launched (CUPTI), the event pair's kept beside it; where CUPTI gives no
// record for a sample, the point falls back to the event pair and says why. Samples are
// enqueued in chunks and synchronized once per chunk, so the GPU runs them back to back instead
// of idling for a host round trip after each: a chunk holds about kChunkMs of kernel time (at
// least one sample, at most kMaxChunk), judged from the median so far.
constexpr double kChunkMs = 10.0;
constexpr int kMaxChunk = 64;
TimingStats sample_on_device(const std::function<void()>& before, const std::function<void()>& timed, cudaStream_t stream,
                             double per_sample, const std::string& mode, const MeasurementSettings& settings,
                             const BetweenSamples& between, KernelActivitySession* activity) {
  std::vector<EventPair> pairs(kMaxChunk);
  std::vector<std::uint64_t> tags(kMaxChunk);
  std::vector<double> event_samples, activity_samples;
  bool use_activity = activity && activity->available();
  std::string fallback_reason = activity ? activity->unavailable_reason() : "";
  TimingStats stats;
  auto t0 = std::chrono::steady_clock::now();
  while (true) {
    int chunk = 1;
    if (!event_samples.empty())
      chunk = int(std::clamp(kChunkMs / std::max(stats.median_ms * per_sample, 1e-6), 1.0, double(kMaxChunk)));
    chunk = std::min(chunk, std::max(1, settings.max_samples - int(event_samples.size())));
    for (int i = 0; i < chunk; ++i) {
      if (before) before();
      OCCBENCH_CUDA_CHECK(cudaEventRecord(pairs[i].start, stream));
      if (use_activity) {
        tags[i] = activity->push();
        struct Pop {
          KernelActivitySession* a;
          ~Pop() { a->pop(); }
        } pop{activity};
        timed();
      } else {
        timed();
      }
      OCCBENCH_CUDA_CHECK(cudaEventRecord(pairs[i].stop, stream));
    }
    for (int i = 0; i < chunk; ++i) event_samples.push_back(elapsed_ms(pairs[i]) / per_sample);
    if (use_activity) {
      std::map<std::uint64_t, double> durations = activity->take_durations_ms();
      int missing = 0;
      for (int i = 0; i < chunk; ++i) missing += !durations.count(tags[i]);
      if (missing) {  // a record may come with the next flush; one more try
        for (const auto& [tag, ms] : activity->take_durations_ms()) durations[tag] += ms;
        missing = 0;
        for (int i = 0; i < chunk; ++i) missing += !durations.count(tags[i]);
      }
      if (missing) {
        use_activity = false;
        fallback_reason = activity->available() ? fmt::format("CUPTI recorded no kernel for {} of {} samples ({})",
                                                              missing, chunk, activity->records_seen())
                                                : activity->unavailable_reason();
        activity->stop(fallback_reason);  // the event pair times the rest, untraced
      } else {
        for (int i = 0; i < chunk; ++i) activity_samples.push_back(durations[tags[i]] / per_sample);
      }
    }
    if (between) between();
    stats = summarize(use_activity ? activity_samples : event_samples, mode);
    stats.stop_reason = stop_reason(stats, seconds_since(t0), settings);
    if (!stats.stop_reason.empty()) break;
  }
  stats.source = use_activity ? kSourceCuptiKernelActivity : kSourceEventPair;
  stats.source_reason = use_activity ? "" : fallback_reason;
  stats.event_median_ms = summarize(event_samples, mode).median_ms;
  return stats;
}

// A graph of `count` launches, or nullptr where the launch cannot be captured (a library call
// that synchronizes, say); the caller then launches them one by one.
cudaGraphExec_t capture_launches(const std::function<void(cudaStream_t)>& launch, int count, cudaStream_t stream) {
  cudaStream_t capture_stream = nullptr;
  if (cudaStreamCreateWithFlags(&capture_stream, cudaStreamNonBlocking) != cudaSuccess) return nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  bool ok = cudaStreamBeginCapture(capture_stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
  if (ok) {
    try {
      for (int i = 0; i < count; ++i) launch(capture_stream);
    } catch (const CudaError&) {
      ok = false;
    }
    ok = cudaStreamEndCapture(capture_stream, &graph) == cudaSuccess && ok;
  }
  if (ok) ok = cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess;
  if (graph) cudaGraphDestroy(graph);
  cudaStreamDestroy(capture_stream);
  cudaGetLastError();  // a failed capture leaves nothing for the next check to trip on
  (void)stream;
  return ok ? exec : nullptr;
}

constexpr double kProfileBelowMs = 1.0;
constexpr int kDefaultProfiledSamples = 10;

// The event pair's samples, then settings.profiled_samples more cold samples in one collection
// of CUPTI's range profiler, whose gpu__time_duration (the kernels' own time, as Nsight Compute
// measures it, without the ~2 us the event pair adds around a launch) becomes the point's
// statistics; the event pair's median and sample count stay beside them. A profiled sample costs
// ~5 ms of CUPTI's work (each kernel a range: serialized, its counters read) against ~0.1 ms
// for an event pair, hence few of them after the pair's many, and only for kernels under
// kProfileBelowMs (event pair), where the pair's ~2 us is 0.2% or more. Where the profiler cannot
// be used or fails, the event pair's statistics stand and source_reason says why.
TimingStats profile_cold_samples(const TimingStats& events, L2Flusher* flusher, const std::function<void()>& flush,
                                 const std::function<void()>& timed, const MeasurementSettings& settings,
                                 const ProfiledSamples& profiled) {
  int count = profiled_sample_count(settings);
  if (count == 0) return events;
  TimingSourceChoice choice = timing_source_choice_from_env();
  TimingStats stats = events;
  // Where the pair's own ~2 us is under 0.2% of the kernel, a profiled sample's ~5 ms buys nothing.
  if (choice == TimingSourceChoice::automatic && events.median_ms >= kProfileBelowMs) {
    if (profiled)
      stats.source_reason = fmt::format("the kernel takes {:.3g} ms by the event pair, over {} ms, where the pair's ~2 us is under 0.2%; "
                                        "OCCBENCH_TIMING_SOURCE=profiler profiles it anyway", events.median_ms, kProfileBelowMs);
    return stats;
  }
  if (!profiled) {  // the caller has no profiler to offer (the Google Benchmark front end, tests)
    if (choice == TimingSourceChoice::profiler)
      stats.source_reason = "OCCBENCH_TIMING_SOURCE=profiler, but no range profiler was opened for these samples";
    return stats;
  }
  std::string why_not = !flusher                                  ? "it times cold samples only"
                        : flusher->method() != FlushMethod::read ? "it needs OCCBENCH_L2_FLUSH=read, whose sweep marks the samples"
                                                                 : "";
  if (why_not.empty()) {
    auto t0 = std::chrono::steady_clock::now();
    try {
      std::vector<double> ms = profiled(count, flush, timed);
      if (int(ms.size()) != count) throw std::runtime_error(fmt::format("{} durations for {} samples", ms.size(), count));
      stats = summarize(ms, events.mode);
      stats.stop_reason = events.stop_reason;
      stats.source = kSourceCuptiRangeProfiler;
      stats.source_reason = "";
      stats.event_median_ms = events.median_ms;
      stats.event_samples = events.samples;
      stats.total_ms += events.total_ms;  // both phases' kernel time was measured
      stats.profiled_wall_s = seconds_since(t0);
      return stats;
    } catch (const CudaError&) {
      throw;  // the launch itself failed: the point's error
    } catch (const std::runtime_error& e) {
      why_not = e.what();
    }
  }
  stats.source_reason = fmt::format("CUPTI's range profiler did not time the samples: {}", why_not);
  return stats;
}

}  // namespace

int profiled_sample_count(const MeasurementSettings& settings) {
  TimingSourceChoice choice = timing_source_choice_from_env();
  if (choice == TimingSourceChoice::event || choice == TimingSourceChoice::cupti) return 0;
  if (settings.profiled_samples > 0) return settings.profiled_samples;
  return choice == TimingSourceChoice::profiler ? kDefaultProfiledSamples : 0;
}

TimingStats time_device(const std::function<void(cudaStream_t)>& launch, const MeasurementSettings& settings,
                        cudaStream_t stream, L2Flusher* flusher, const BetweenSamples& between,
                        const ProfiledSamples& profiled) {
  auto t0 = std::chrono::steady_clock::now();
  bool flushed = (settings.mode == "cold" || settings.mode == "batch") && flusher;
  for (int i = 0; i < settings.warmup_runs; ++i) launch(stream);
  OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));

  std::function<void()> flush;
  if (flushed) flush = [&] { flusher->flush(stream); };
  TimingStats single;
  {
    // Tracing only around the single-launch samples: nothing else (the counters' profiler after
    // timing, the batch samples) runs under it.
    KernelActivitySession activity;
    single = sample_on_device(flush, [&] { launch(stream); }, stream, 1.0, flushed ? "cold" : "hot", settings, between,
                              &activity);
  }
  if (single.source == kSourceEventPair) single = profile_cold_samples(single, flushed ? flusher : nullptr, flush,
                                                                       [&] { launch(stream); }, settings, profiled);
  if (settings.mode != "batch") {
    single.sampling_wall_s = seconds_since(t0);
    return single;
  }

  // Batch: enough launches per sample for about kBatchSampleMs, between 2 and 10000.
  int count = int(std::clamp(std::ceil(kBatchSampleMs / std::max(single.median_ms, 1e-6)), 2.0, 10000.0));
  cudaGraphExec_t graph = capture_launches(launch, count, stream);
  auto one_batch = [&] {
    if (graph) {
      OCCBENCH_CUDA_CHECK(cudaGraphLaunch(graph, stream));
    } else {
      for (int i = 0; i < count; ++i) launch(stream);
    }
  };
  TimingStats batch;
  try {
    one_batch();  // the graph's first launch uploads it
    OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    // Event pairs around each batch: the time per launch includes the gaps between launches,
    // which is what a batch measures (summed kernel durations would leave them out).
    batch = sample_on_device({}, one_batch, stream, double(count), "batch", settings, between, nullptr);
    batch.source_reason = "batch mode: one event pair around each batch of back-to-back launches";
  } catch (...) {
    if (graph) cudaGraphExecDestroy(graph);
    throw;
  }
  if (graph) cudaGraphExecDestroy(graph);
  batch.launches_per_sample = count;
  batch.batch_method = graph ? "graph" : "stream";
  batch.cold_median_ms = single.median_ms;
  batch.cold_source = single.source;
  // Every launch of a batch sample ran on the GPU: the timed time is samples x launches x median.
  batch.total_ms = batch.total_ms * count + single.total_ms;
  batch.sampling_wall_s = seconds_since(t0);
  return batch;
}

TimingStats time_host(const std::function<void()>& work, const MeasurementSettings& settings,
                      const BetweenSamples& between) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < settings.warmup_runs; ++i) work();
  std::vector<double> samples;
  TimingStats stats;
  auto sampling_t0 = std::chrono::steady_clock::now();
  while (true) {
    auto start = std::chrono::steady_clock::now();
    work();
    samples.push_back(seconds_since(start) * 1e3);
    if (between) between();
    stats = summarize(samples, "host");
    stats.stop_reason = stop_reason(stats, seconds_since(sampling_t0), settings);
    if (!stats.stop_reason.empty()) break;
  }
  stats.sampling_wall_s = seconds_since(t0);
  stats.source = kSourceHostClock;
  return stats;
}

constexpr double kFloorSpacerUs = 20.0;

double measure_timing_floor_ms(cudaStream_t stream, int repetitions) {
  launch_empty_kernel(stream);
  OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  // Each sample behind a 20 us spin kernel, as a cold sample sits behind its L2 flush: the GPU
  // is still busy when the host has enqueued the events and the kernel, so the floor is what an
  // event pair costs a kernel the GPU already has queued. Back to back without it, the GPU ran
  // ahead of the host and the floor read the host's enqueue time (H100: ~6 us against ~3.5 us).
  MeasurementSettings settings;
  settings.mode = "hot";
  settings.min_samples = settings.max_samples = repetitions;
  settings.min_time_s = 0;
  settings.timeout_s = 10;
  return sample_on_device([&] { launch_spin_kernel(kFloorSpacerUs, stream); }, [&] { launch_empty_kernel(stream); }, stream,
                          1.0, "hot", settings, {}, nullptr)
      .median_ms;
}

bool near_timing_floor(double median_ms, double floor_ms) {
  return floor_ms > 0 && median_ms > 0 && median_ms < kNearFloorFactor * floor_ms;
}

std::function<void()> flush_and_wait(L2Flusher* flusher, cudaStream_t stream) {
  return [flusher, stream] {
    if (flusher) flusher->flush(stream);
    OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  };
}

}  // namespace occbench
