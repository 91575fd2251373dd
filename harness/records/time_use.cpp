#include "harness/records/time_use.hpp"

#include "harness/core/json.hpp"
#include "harness/measure/timer.hpp"

#include <fmt/format.h>

#include <cmath>

namespace occbench {

namespace {

const nlohmann::ordered_json* timing_of(const nlohmann::ordered_json& r) {
  auto it = r.find("timing");
  return it != r.end() && it->is_object() ? &*it : nullptr;
}

}  // namespace

double kernel_compile_s(const nlohmann::ordered_json& record) {
  double ms = number_at(record, "compile", "nvrtc_ms", 0.0);
  return std::isfinite(ms) && ms > 0 ? ms / 1e3 : 0.0;
}

RunTimeUse run_time_use(const std::vector<nlohmann::ordered_json>& results, double wall_s) {
  RunTimeUse use;
  use.wall_s = wall_s;
  for (const auto& r : results) {
    if (const auto* t = timing_of(r)) {
      use.timed_s += t->value("total_ms", 0.0) / 1e3;
      use.sampling_s += t->value("sampling_wall_s", 0.0);
    }
    auto phases = r.find("time_use");
    if (phases == r.end() || !phases->is_object()) continue;  // a record of a run before time_use
    use.problem_s += phases->value("problem_s", 0.0);
    use.verify_s += phases->value("verify_s", 0.0);
    use.points_s += phases->value("point_s", 0.0);
    use.compile_s += phases->value("compiler_wait_s", 0.0);  // before the point was given: a worker compiled what came next
    auto compile = r.find("compile");
    if (compile != r.end() && compile->is_object())
      use.compile_s += (compile->value("compile_ms", 0.0) + compile->value("waited_ms", 0.0)) / 1e3;
  }
  return use;
}

nlohmann::ordered_json to_json(const RunTimeUse& use) {
  return {{"problem_s", use.problem_s}, {"verify_s", use.verify_s},
          {"sampling_s", use.sampling_s}, {"compile_s", use.compile_s},
          {"rest_of_points_s", use.rest_of_points_s()}, {"points_s", use.points_s},
          {"outside_points_s", use.outside_points_s()}, {"kept_points", use.kept_points}};
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
  text += fmt::format("time: {:.1f} s of timed samples in {:.1f} s of wall time ({:.0f}%); sampling loops {:.1f} s, "
                      "problems {:.1f} s, verification {:.1f} s, {}the rest of the points {:.1f} s, outside the points {:.1f} s{}\n",
                      use.timed_s, use.wall_s, 100 * use.timed_fraction(), use.sampling_s, use.problem_s, use.verify_s,
                      use.compile_s > 0 ? fmt::format("waiting for the compiler {:.1f} s, ", use.compile_s) : "",
                      use.rest_of_points_s(), use.outside_points_s(),
                      use.kept_points ? fmt::format(" (this process's points, not the {} kept)", use.kept_points) : "");
  return text;
}

}  // namespace occbench
