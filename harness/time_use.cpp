#include "harness/time_use.hpp"

#include "harness/timer.hpp"

#include <fmt/format.h>

namespace occbench {

namespace {

const nlohmann::ordered_json* timing_of(const nlohmann::ordered_json& r) {
  auto it = r.find("timing");
  return it != r.end() && it->is_object() ? &*it : nullptr;
}

}  // namespace

RunTimeUse run_time_use(const std::vector<nlohmann::ordered_json>& results, double wall_s) {
  RunTimeUse use;
  use.wall_s = wall_s;
  for (const auto& r : results)
    if (const auto* t = timing_of(r)) use.timed_s += t->value("total_ms", 0.0) / 1e3;
  return use;
}

std::string format_timing_flags(const std::vector<nlohmann::ordered_json>& results, double floor_ms, const RunTimeUse& use) {
  std::vector<std::string> near_floor, conditions;
  for (const auto& r : results) {
    const auto* t = timing_of(r);
    if (!t) continue;
    std::string id = r.value("point_id", "?");
    if (t->value("near_timing_floor", false)) near_floor.push_back(id);
    if (t->contains("conditions") && (*t)["conditions"].is_object()) {
      const auto& flags = (*t)["conditions"]["flags"];
      if (flags.is_array() && !flags.empty()) conditions.push_back(fmt::format("{} ({})", id, flags[0].get<std::string>()));
    }
  }
  std::string text;
  if (floor_ms > 0)
    text += fmt::format("timing floor {:.4f} ms (an empty kernel between two events); {} point(s) within {:g}x of it (!floor){}{}\n",
                        floor_ms, near_floor.size(), kNearFloorFactor, near_floor.empty() ? "" : ": ",
                        fmt::join(near_floor, ", "));
  text += fmt::format("{} point(s) measured while throttled or below the run's start clock (!clocks){}{}\n", conditions.size(),
                      conditions.empty() ? "" : ": ", fmt::join(conditions, "; "));
  text += fmt::format("time: {:.1f} s of timed samples in {:.1f} s of wall time ({:.0f}%)\n", use.timed_s, use.wall_s,
                      100 * use.timed_fraction());
  return text;
}

}  // namespace occbench
