#include "harness/records/occupancy_knee.hpp"

#include "harness/model/occupancy_limit.hpp"
#include "harness/core/optional_number.hpp"

#include <algorithm>
#include <map>

namespace occbench {

namespace {

using json = nlohmann::ordered_json;

const json* member(const json& r, const char* section, const char* key) {
  if (!r.contains(section) || !r[section].is_object() || !r[section].contains(key)) return nullptr;
  const json& v = r[section][key];
  return v.is_number() ? &v : nullptr;
}

std::string curve_of(const json& r) {
  std::string id = r.value("family", "") + "/" + r.value("variant", "");
  if (r.contains("params") && r["params"].is_object())
    for (const auto& item : r["params"].items())
      if (item.key() != kOccupancyLimitAxis) id += "/" + item.key() + "=" + item.value().dump();
  return id;
}

}  // namespace

std::vector<OccupancyKnee> occupancy_knees(const json& results) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const json*>> curves;
  std::map<std::string, const json*> unforced;
  for (const auto& r : results) {
    if (r.value("status", "") != "ok" || !member(r, "timing", "median_ms") || !member(r, "occupancy", "theoretical")) continue;
    if (!r["params"].contains(kOccupancyLimitAxis)) continue;
    std::string curve = curve_of(r);
    if (r["params"][kOccupancyLimitAxis] == kUnforced) {
      unforced[curve] = &r;
      continue;
    }
    if (!curves.count(curve)) order.push_back(curve);
    curves[curve].push_back(&r);
  }
  std::vector<OccupancyKnee> knees;
  for (const auto& curve : order) {
    auto points = curves[curve];
    std::sort(points.begin(), points.end(), [](const json* a, const json* b) {
      return (*a)["occupancy"]["theoretical"].get<double>() < (*b)["occupancy"]["theoretical"].get<double>();
    });
    auto occupancy = [](const json* r) { return (*r)["occupancy"]["theoretical"].get<double>(); };
    auto median = [](const json* r) { return (*r)["timing"]["median_ms"].get<double>(); };
    if (points.size() < 2 || occupancy(points.front()) == occupancy(points.back())) continue;
    const json* best = *std::min_element(points.begin(), points.end(), [&](auto a, auto b) { return median(a) < median(b); });
    const json* knee = *std::find_if(points.begin(), points.end(),
                                     [&](auto r) { return median(r) <= (1 + kKneeTolerance) * median(best); });
    OccupancyKnee k;
    k.curve = curve;
    k.family = best->value("family", "");
    k.variant = best->value("variant", "");
    k.points = int(points.size());
    k.best_median_ms = median(best);
    k.best_occupancy = occupancy(best);
    k.occupancy_knee = occupancy(knee);
    if (const json* blocks = member(*knee, "occupancy", "active_blocks_per_sm")) k.knee_blocks_per_sm = blocks->get<int>();
    if (const json* achieved = member(*knee, "counters", "achieved_occupancy")) k.achieved_occupancy_knee = achieved->get<double>();
    k.lowest_occupancy = occupancy(points.front());
    k.slowdown_at_lowest = median(points.front()) / median(best);
    for (const json* r : points)
      if (const json* predicted = member(*r, "littles_law", "predicted_knee_occupancy")) k.predicted_knee_occupancy = predicted->get<double>();
    if (auto it = unforced.find(curve); it != unforced.end()) {
      k.unforced_median_ms = median(it->second);
      for (const json* r : points)
        if (occupancy(r) == occupancy(it->second)) k.carveout_slowdown = median(r) / median(it->second);
    }
    knees.push_back(k);
  }
  return knees;
}

json to_json(const OccupancyKnee& k) {
  return {{"curve", k.curve},
          {"family", k.family},
          {"variant", k.variant},
          {"points", k.points},
          {"best_median_ms", k.best_median_ms},
          {"best_occupancy", k.best_occupancy},
          {"occupancy_knee", k.occupancy_knee},
          {"knee_blocks_per_sm", k.knee_blocks_per_sm},
          {"achieved_occupancy_knee", optional_number(k.achieved_occupancy_knee)},
          {"lowest_occupancy", k.lowest_occupancy},
          {"slowdown_at_lowest", k.slowdown_at_lowest},
          {"predicted_knee_occupancy", optional_number(k.predicted_knee_occupancy)},
          {"unforced_median_ms", optional_number(k.unforced_median_ms)},
          {"carveout_slowdown", optional_number(k.carveout_slowdown)}};
}

}  // namespace occbench
