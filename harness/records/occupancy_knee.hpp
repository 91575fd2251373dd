#pragma once
// The occupancy knee of a sweep over the occupancy_limit axis (harness/model/occupancy_limit): for each
// curve (the points that differ only in occupancy_limit), the lowest theoretical occupancy whose
// median time is within 5% of the curve's best. `occbench report` shows it beside the Little's-law
// prediction (harness/model/occupancy_model) and, where the records carry counters, the achieved
// occupancy at the knee.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace occbench {

inline constexpr double kKneeTolerance = 0.05;  // "within 5% of the best time"

struct OccupancyKnee {
  std::string curve;  // the point id without its occupancy_limit part
  std::string family, variant;
  int points = 0;                   // timed points of the curve
  double best_median_ms = 0;
  double best_occupancy = 0;        // theoretical occupancy of the fastest point
  double occupancy_knee = 0;        // lowest theoretical occupancy within kKneeTolerance of the best
  int knee_blocks_per_sm = 0;
  std::optional<double> achieved_occupancy_knee;  // counters.achieved_occupancy of the knee point
  double lowest_occupancy = 0;      // the curve's lowest theoretical occupancy ...
  double slowdown_at_lowest = 0;    // ... and its median / the best median
  std::optional<double> predicted_knee_occupancy;  // littles_law.predicted_knee_occupancy
  // With an occupancy_limit 0 point (the launch as it is, default carveout) in the curve: its
  // median, and the forced point at the same occupancy (no ballast, carveout at max shared) over it:
  // what the forced carveout alone costs (> 1: slower than the unchanged launch).
  std::optional<double> unforced_median_ms;
  std::optional<double> carveout_slowdown;
};

// Curves with at least two timed forced points at different theoretical occupancies, in first-seen
// order; occupancy_limit 0 points are the curves' unforced references, not points of the curves.
std::vector<OccupancyKnee> occupancy_knees(const nlohmann::ordered_json& results);

nlohmann::ordered_json to_json(const OccupancyKnee& knee);

}  // namespace occbench
