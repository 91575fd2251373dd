#pragma once
// The hardware counters as a per-point observer (run --counters): after a point's timing, its
// launch is replayed through the run's CounterSession (harness/measure/counters/counters.hpp) and the
// record gets its `counters` section. The points of one problem may be counted together once they
// are all timed (one collection, CUPTI's start paid once): their records wait for the section.
#include "harness/measure/counters/counters.hpp"
#include "harness/measure/observer.hpp"
#include "harness/measure/context.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

// A device point's `counters` section: measured through `session`, or unavailable with the
// reason when the session cannot count or a CUPTI call fails.
nlohmann::ordered_json collect_counters(CounterSession& session, const WorkModel& work,
                                        std::optional<double> theoretical_occupancy,
                                        const std::function<void()>& launch_once,
                                        const std::function<void()>& between_passes,
                                        const std::string& skip_instrumentation = "");

// A point whose counters wait for the collection of its batch (run --counters: the points of one
// problem are counted together after all of them are timed).
struct CounterJob {
  std::function<void()> launch_once;  // launches the point and waits for it
  WorkModel work;
  std::optional<double> theoretical_occupancy;
  std::string skip_instrumentation;  // instrumentation_skip_reason's, "" to instrument
};

// The `counters` sections of `jobs`, counted in one collection (CounterSession::measure_batch), in
// jobs' order. Where the batch cannot be split among its points or fails, each point is counted
// on its own, as collect_counters does.
std::vector<nlohmann::ordered_json> collect_counters_batch(CounterSession& session, const std::vector<CounterJob>& jobs,
                                                           const std::function<void()>& flush, double flush_read_bytes);

// Counts every device point measured in `context` (context.counters). With `batch`, a point's
// launch waits, its record with it, until the points of its problem are timed (settle(), at most
// kCounterBatchPoints at a time, or before a point that forces occupancy: its carveout would be
// the waiting points' too); a context lost while counting is put in context.health.
class CounterObserver : public PointObserver {
 public:
  CounterObserver(const PointContext& context, bool batch, std::ostream* log = nullptr);
  std::string before_point(const Point& point) override;
  void after_samples(const SampledPoint& point, const SharedRecord& record) override;
  void settle() override;
  void device_lost(const std::string& reason) override;

 private:
  PointContext context_;
  std::ostream* log_;
  bool batch_ = false;
  bool fallback_logged_ = false;
  std::vector<std::pair<SharedRecord, CounterJob>> waiting_;
  std::string lost_reason_;
};

// Points counted in one collection at most: CUPTI's ~37 ms start of a collection is shared by
// them; each adds its flush and kernels as ranges (kMaxBatchRanges in harness/measure/counters/counters_session.cpp).
constexpr std::size_t kCounterBatchPoints = 16;

}  // namespace occbench
