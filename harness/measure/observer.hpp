#pragma once
// A per-point observer is told before and after a point's timed samples (and between them), and
// adds its own section to the point's record. The clocks and throttle readings (ClockObserver,
// harness/measure/conditions.hpp) and the hardware counters (CounterObserver,
// harness/measure/counters/counters_observer.hpp) are observers; a new reading per point is a new observer,
// and neither the point's measurement nor the run loop changes for it.
#include "harness/family/point.hpp"
#include "harness/family/registry.hpp"
#include "harness/measure/stats.hpp"

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace occbench {

// A point's record while an observer may still owe it a section; the run writes records in order,
// each once none is owed.
struct PointRecord {
  nlohmann::ordered_json json;
  int sections_owed = 0;  // observers that kept it to add their section in settle()
  double added_s = 0;     // wall time observers spent on it after its measurement (time_use.point_s)
};
using SharedRecord = std::shared_ptr<PointRecord>;

// What an observer sees of a point once its samples are taken.
struct SampledPoint {
  const Point& point;
  bool on_device;
  const TimingStats& timing;
  const WorkModel& work;
  nlohmann::ordered_json occupancy;  // the record's occupancy section (null for host variants)
  // Launches the point once more and waits for it (a copy, valid until the point's problem goes).
  std::function<void()> launch_once;
  // Queues one more launch on `stream` without waiting (valid during after_samples only).
  std::function<void()> enqueue_launch;
  cudaStream_t stream = nullptr;
};

class PointObserver {
 public:
  virtual ~PointObserver() = default;
  // Before the point is prepared, outside its time: finish work kept back that this point would
  // disturb (a forced occupancy sets its kernel's carveout), set up what the point asks for (a
  // locked SM clock). Returns why the point cannot be measured (it is then skipped), or "".
  virtual std::string before_point(const Point& point) {
    (void)point;
    return "";
  }
  virtual void before_samples(const Point& point) { (void)point; }
  virtual void between_samples() {}
  // Adds the observer's section to record->json now, or keeps `record` (sections_owed + 1) and
  // adds it in settle().
  virtual void after_samples(const SampledPoint& point, const SharedRecord& record) = 0;
  // Adds every section kept back: before the problem the kept points launch goes, and at the end.
  virtual void settle() {}
  // The device can run nothing more: kept sections say `reason`, and nothing is measured from now.
  virtual void device_lost(const std::string& reason) { (void)reason; }
};

// A run's observers, each told every event in the order they were added.
class Observers {
 public:
  void add(std::unique_ptr<PointObserver> observer) { observers_.push_back(std::move(observer)); }
  std::string before_point(const Point& point);  // the first observer's refusal, or ""
  void before_samples(const Point& point);
  void between_samples();
  void after_samples(const SampledPoint& point, const SharedRecord& record);
  void settle();
  void device_lost(const std::string& reason);

 private:
  std::vector<std::unique_ptr<PointObserver>> observers_;
};

}  // namespace occbench
