#pragma once
// The caller's own per-point observers (Kernel Tuner's BenchmarkObserver subclasses, handed over
// from Python through harness/family/host_hooks.hpp): told before a point's samples and between
// them, outside the timed interval, and asked after them for their results, which become the
// record's "observers" section. Results that are not a JSON object fail nothing: the section says so.
#include "harness/measure/observer.hpp"

namespace occbench {

class HostObserver : public PointObserver {
 public:
  void before_samples(const Point& point) override;
  void between_samples() override;
  void after_samples(const SampledPoint& point, const SharedRecord& record) override;
};

// Whether the caller handed over observers (then point_observers adds a HostObserver).
bool host_observers_given();

}  // namespace occbench
