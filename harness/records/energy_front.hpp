#pragma once
// Time against energy in a sweep run with energy (harness/measure/energy/energy.hpp): for each group of
// points of the same sizes, the fastest point (lowest median), the least-energy point (fewest
// joules per launch), what choosing the second over the first saves in energy and costs in time,
// and the Pareto front: the points no other point beats in both time and energy. `occbench
// report` shows them; plots/occplot.py draws the same front.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace occbench {

struct EnergyPoint {
  std::string point_id;
  double median_ms = 0;
  double joules_per_launch = 0;
};

struct EnergyFront {
  std::string group;  // the sizes, "n=16777216"; "" when the config names none
  int points = 0;     // timed points with an energy reading
  EnergyPoint fastest, least_energy;
  double energy_saving = 0;  // 1 - least_energy J / fastest J (0 when the fastest is the least-energy point)
  double time_cost = 0;      // least_energy median / fastest median - 1
  std::vector<EnergyPoint> pareto;  // by median, fastest first
};

// The Pareto front of (median_ms, joules_per_launch), lowest both; ties keep the first. Pure.
std::vector<EnergyPoint> pareto_front(std::vector<EnergyPoint> points);

// Groups of `results` by the values of `size_names` (the config's sizes), in first-seen order;
// only groups with a point that has an energy reading.
std::vector<EnergyFront> energy_fronts(const nlohmann::ordered_json& results, const std::vector<std::string>& size_names);

nlohmann::ordered_json to_json(const EnergyFront& front);

}  // namespace occbench
