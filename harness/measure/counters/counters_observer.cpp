#include "harness/measure/counters/counters_observer.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/family/harness_axes.hpp"
#include "harness/measure/timer.hpp"

#include <fmt/format.h>

#include <ostream>

namespace occbench {

nlohmann::ordered_json collect_counters(CounterSession& session, const WorkModel& work,
                                        std::optional<double> theoretical_occupancy,
                                        const std::function<void()>& launch_once,
                                        const std::function<void()>& between_passes,
                                        const std::string& skip_instrumentation) {
  if (!session.available()) return unavailable_counters_json(session.unavailable_reason());
  auto t0 = std::chrono::steady_clock::now();
  try {
    return measured_counters_json(session.measure(launch_once, between_passes, skip_instrumentation), work, theoretical_occupancy);
  } catch (const CudaError&) {
    throw;  // the launch itself failed: the point's error, not the counters'
  } catch (const std::runtime_error& e) {
    nlohmann::ordered_json c = unavailable_counters_json(e.what());
    c["added_s"] = seconds_since(t0);
    return c;
  }
}

std::vector<nlohmann::ordered_json> collect_counters_batch(CounterSession& session, const std::vector<CounterJob>& jobs,
                                                           const std::function<void()>& flush, double flush_read_bytes) {
  std::vector<nlohmann::ordered_json> sections;
  auto one_by_one = [&] {
    sections.clear();
    for (const auto& job : jobs)
      sections.push_back(collect_counters(session, job.work, job.theoretical_occupancy, job.launch_once, flush, job.skip_instrumentation));
    return sections;
  };
  if (!session.available() || jobs.size() < 2 || flush_read_bytes <= 0 || !session.batch_unusable_reason().empty() ||
      session.flushes_per_kernel())
    return one_by_one();
  std::vector<std::function<void()>> launches;
  std::vector<std::string> skips;
  for (const auto& job : jobs) {
    launches.push_back(job.launch_once);
    skips.push_back(job.skip_instrumentation);
  }
  std::vector<CounterReading> readings;
  try {
    readings = session.measure_batch(launches, flush, flush_read_bytes, skips);
  } catch (const CudaError&) {
    throw;  // a launch itself failed: its point's error
  } catch (const std::runtime_error& e) {
    // Counted one by one from here on: a batch that could not be split will not split later.
    session.mark_batch_unusable(e.what());
    return one_by_one();
  }
  for (std::size_t j = 0; j < jobs.size(); ++j)
    sections.push_back(measured_counters_json(readings[j], jobs[j].work, jobs[j].theoretical_occupancy));
  return sections;
}

CounterObserver::CounterObserver(const PointContext& context, bool batch, std::ostream* log)
    : context_(context), log_(log) {
  // Batches need the flush whose kernel marks where each point's ranges begin: the read sweep alone.
  const CounterSession& session = *context.counters;
  batch_ = batch && session.available() && context.flusher && context.flusher->method() == FlushMethod::read &&
           !session.flushes_per_kernel();
}

std::string CounterObserver::before_point(const Point& point) {
  // A forced point sets its kernel's carveout, which the waiting points' replays would inherit.
  if (waiting_.size() >= kCounterBatchPoints || forces_occupancy(point.params)) settle();
  return "";
}

void CounterObserver::after_samples(const SampledPoint& point, const SharedRecord& record) {
  if (!point.on_device) {
    record->json["counters"] = unavailable_counters_json("host variant: no kernel to count");
    return;
  }
  std::optional<double> theoretical;
  if (point.occupancy.is_object()) theoretical = point.occupancy.value("theoretical", 0.0);
  bool forced = point.occupancy.is_object() && point.occupancy.contains("forced");
  CounterJob job{point.launch_once, point.work, theoretical,
                 instrumentation_skip_reason(point.timing.median_ms, context_.settings->instrumented_max_kernel_ms)};
  if (batch_ && !forced) {
    ++record->sections_owed;
    waiting_.emplace_back(record, std::move(job));
    return;
  }
  record->json["counters"] = collect_counters(*context_.counters, job.work, job.theoretical_occupancy, job.launch_once,
                                              flush_and_wait(context_.flusher, context_.stream), job.skip_instrumentation);
}

void CounterObserver::settle() {
  if (waiting_.empty()) return;
  std::vector<CounterJob> jobs;
  for (const auto& [record, job] : waiting_) jobs.push_back(job);
  std::vector<nlohmann::ordered_json> sections;
  if (!lost_reason_.empty()) {
    sections.assign(jobs.size(), unavailable_counters_json(lost_reason_));
  } else {
    try {
      sections = collect_counters_batch(*context_.counters, jobs, flush_and_wait(context_.flusher, context_.stream),
                                        double(context_.flusher->bytes()));
    } catch (const CudaError& e) {
      // The launches ran verified and timed; their replay failing is the counters' failure.
      sections.assign(jobs.size(), unavailable_counters_json(fmt::format("the replay for the counters failed: {}", e.what())));
      if (is_sticky_cuda_error(e.code()) && context_.health)
        context_.health->lost_reason = fmt::format("not run: the CUDA context was lost while counting ({})", e.what());
    }
    const std::string& unusable = context_.counters->batch_unusable_reason();
    if (log_ && !fallback_logged_ && !unusable.empty()) {
      *log_ << fmt::format("counters: points counted one by one from here: {}\n", unusable);
      fallback_logged_ = true;
    }
  }
  for (std::size_t i = 0; i < waiting_.size(); ++i) {
    PointRecord& record = *waiting_[i].first;
    record.json["counters"] = sections[i];
    record.added_s += sections[i].value("added_s", 0.0);
    --record.sections_owed;
  }
  waiting_.clear();
}

void CounterObserver::device_lost(const std::string& reason) {
  lost_reason_ = reason;
  settle();
}

}  // namespace occbench
