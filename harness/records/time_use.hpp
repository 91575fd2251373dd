#pragma once
// Where a run's time went, and the timing flags of its points, for the run block and the lines
// under the final table. Pure CPU code over result records.
#include "harness/core/clock.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace occbench {

struct RunTimeUse {
  double wall_s = 0;   // from the first point's setup to the last point's record
  double timed_s = 0;  // sum of the timed samples (timing.total_ms), device and host
  double timed_fraction() const { return wall_s > 0 ? timed_s / wall_s : 0.0; }
  // Where the wall time went, from the points' time_use blocks (seconds): building each size's
  // problem (inputs, reference), the verification run (poison, launch, compare), the sampling
  // loop (warm-up, flushes, samples), and each point in all; outside_points_s is the rest
  // (the timing floor, the flush buffer, the records).
  double problem_s = 0, verify_s = 0, sampling_s = 0, points_s = 0;
  // A user kernel's compilation at its point (compile.compile_ms), or its wait for the compile
  // workers that compile ahead (compile.waited_ms): the time the GPU waited for the compiler.
  double compile_s = 0;
  double outside_points_s() const { return wall_s - points_s; }
  // The points' time none of the parts above names (launch and occupancy checks, observers,
  // records): with it, the parts add up to the wall.
  double rest_of_points_s() const { return points_s - problem_s - verify_s - sampling_s - compile_s; }
  // A resumed run's records kept from earlier processes: their time is not this wall's, so they
  // are left out of the sums above.
  std::size_t kept_points = 0;
};
nlohmann::ordered_json to_json(const RunTimeUse& use);

// NVRTC's seconds for the point's kernel, whoever compiled it and when (compile.nvrtc_ms, kept
// with the kernel in the cache): what compiling it costs, even where this run found it compiled.
// 0 where the record has none (not a user kernel, or a cache entry of an older occbench).
double kernel_compile_s(const nlohmann::ordered_json& record);

// The sums over `results` (the points this process measured) in `wall_s`.
RunTimeUse run_time_use(const std::vector<nlohmann::ordered_json>& results, double wall_s);

// "timing floor 0.0046 ms (empty kernel); 2 point(s) within 5x of it: ...", "N point(s) measured
// while throttled or below the start clock: ...", and the time use. Empty lines are left out.
std::string format_timing_flags(const std::vector<nlohmann::ordered_json>& results, double floor_ms, const RunTimeUse& use);

}  // namespace occbench
