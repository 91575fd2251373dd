#include "harness/measure/observer.hpp"

namespace occbench {

std::string Observers::before_point(const Point& point) {
  std::string refusal;
  for (auto& o : observers_) {
    std::string reason = o->before_point(point);
    if (refusal.empty()) refusal = reason;
  }
  return refusal;
}

void Observers::before_samples(const Point& point) {
  for (auto& o : observers_) o->before_samples(point);
}

void Observers::between_samples() {
  for (auto& o : observers_) o->between_samples();
}

void Observers::after_samples(const SampledPoint& point, const SharedRecord& record) {
  for (auto& o : observers_) o->after_samples(point, record);
}

void Observers::settle() {
  for (auto& o : observers_) o->settle();
}

void Observers::device_lost(const std::string& reason) {
  for (auto& o : observers_) o->device_lost(reason);
}

}  // namespace occbench
