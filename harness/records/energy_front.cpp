#include "harness/records/energy_front.hpp"

#include "harness/core/json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace occbench {

namespace {

std::string group_of(const ordered_json& record, const std::vector<std::string>& size_names) {
  std::string group;
  if (!record.contains("params") || !record["params"].is_object()) return group;
  for (const auto& name : size_names)
    if (record["params"].contains(name)) group += fmt::format("{}{}={}", group.empty() ? "" : "/", name, record["params"][name].dump());
  return group;
}

bool has_energy(const ordered_json& r) {
  return r.value("status", "") == "ok" && number_at(r, "timing", "median_ms") > 0 && text_at(r, "energy", "status") == "ok" &&
         number_at(r, "energy", "joules_per_launch") > 0;
}

ordered_json to_json(const EnergyPoint& p) {
  return {{"point_id", p.point_id}, {"median_ms", p.median_ms}, {"joules_per_launch", p.joules_per_launch}};
}

EnergyFront summarize(std::string group, const std::vector<EnergyPoint>& points) {
  EnergyFront f;
  f.group = std::move(group);
  f.points = int(points.size());
  auto by_time = [](const EnergyPoint& a, const EnergyPoint& b) { return a.median_ms < b.median_ms; };
  auto by_energy = [](const EnergyPoint& a, const EnergyPoint& b) { return a.joules_per_launch < b.joules_per_launch; };
  f.fastest = *std::min_element(points.begin(), points.end(), by_time);
  f.least_energy = *std::min_element(points.begin(), points.end(), by_energy);
  f.energy_saving = 1 - f.least_energy.joules_per_launch / f.fastest.joules_per_launch;
  f.time_cost = f.least_energy.median_ms / f.fastest.median_ms - 1;
  f.pareto = pareto_front(points);
  return f;
}

}  // namespace

std::vector<EnergyPoint> pareto_front(std::vector<EnergyPoint> points) {
  std::stable_sort(points.begin(), points.end(), [](const EnergyPoint& a, const EnergyPoint& b) {
    return a.median_ms != b.median_ms ? a.median_ms < b.median_ms : a.joules_per_launch < b.joules_per_launch;
  });
  std::vector<EnergyPoint> front;
  for (const auto& p : points)  // by time: a point joins when it needs less energy than every faster one
    if (front.empty() || p.joules_per_launch < front.back().joules_per_launch) front.push_back(p);
  return front;
}

std::vector<EnergyFront> energy_fronts(const ordered_json& results, const std::vector<std::string>& size_names) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<EnergyPoint>> groups;
  for (const auto& r : results) {
    if (!has_energy(r)) continue;
    std::string group = group_of(r, size_names);
    if (!groups.count(group)) order.push_back(group);
    groups[group].push_back({r.value("point_id", ""), number_at(r, "timing", "median_ms"), number_at(r, "energy", "joules_per_launch")});
  }
  std::vector<EnergyFront> fronts;
  for (const auto& group : order) fronts.push_back(summarize(group, groups[group]));
  return fronts;
}

ordered_json to_json(const EnergyFront& f) {
  ordered_json pareto = ordered_json::array();
  for (const auto& p : f.pareto) pareto.push_back(to_json(p));
  return {{"group", f.group},          {"points", f.points},          {"fastest", to_json(f.fastest)},
          {"least_energy", to_json(f.least_energy)}, {"energy_saving", f.energy_saving}, {"time_cost", f.time_cost},
          {"pareto", pareto}};
}

}  // namespace occbench
