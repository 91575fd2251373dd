#include "harness/measure/host_observer.hpp"

#include "harness/family/host_hooks.hpp"

namespace occbench {

bool host_observers_given() { return bool(host_hooks().observe_after); }

void HostObserver::before_samples(const Point& point) {
  if (const auto& told = host_hooks().observe_before) told(point.params);
}

void HostObserver::between_samples() {
  if (const auto& told = host_hooks().observe_between) told();
}

void HostObserver::after_samples(const SampledPoint&, const SharedRecord& record) {
  const auto& ask = host_hooks().observe_after;
  if (!ask) return;
  std::string results;
  try {
    results = ask();
    auto parsed = nlohmann::ordered_json::parse(results);
    record->json["observers"] = parsed.is_object() ? parsed : nlohmann::ordered_json{{"status", "not an object"}, {"value", results}};
  } catch (const std::exception& e) {
    record->json["observers"] = {{"status", "failed"}, {"reason", e.what()}};
  }
}

}  // namespace occbench
