#include "harness/records/occupancy_knee.hpp"

#include "harness/model/occupancy_limit.hpp"
#include "harness/core/optional_number.hpp"
#include "harness/core/json.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace occbench {

namespace {

using json = nlohmann::ordered_json;

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
    if (r.value("status", "") != "ok" || std::isnan(number_at(r, "timing", "median_ms")) ||
        std::isnan(number_at(r, "occupancy", "theoretical")))
      continue;
    // r is const: operator[] of a missing key is undefined (the fuzzer read past a record without params).
    if (!r.contains("params") || !r["params"].is_object() || !r["params"].contains(kOccupancyLimitAxis)) continue;
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
    if (double blocks = number_at(*knee, "occupancy", "active_blocks_per_sm"); !std::isnan(blocks)) k.knee_blocks_per_sm = int(blocks);
    if (double achieved = number_at(*knee, "counters", "achieved_occupancy"); !std::isnan(achieved))
      k.achieved_occupancy_knee = achieved;
    k.lowest_occupancy = occupancy(points.front());
    k.slowdown_at_lowest = median(points.front()) / median(best);
    for (const json* r : points)
      if (double predicted = number_at(*r, "littles_law", "predicted_knee_occupancy"); !std::isnan(predicted))
        k.predicted_knee_occupancy = predicted;
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
