#include "harness/measure/settings.hpp"

namespace occbench {

using json = nlohmann::ordered_json;

json to_json(const MeasurementSettings& m) {
  json j{{"mode", m.mode},           {"warmup_runs", m.warmup_runs}, {"min_samples", m.min_samples},
              {"max_samples", m.max_samples}, {"target_noise", m.target_noise}, {"min_time_s", m.min_time_s},
              {"timeout_s", m.timeout_s}, {"seed", m.seed}, {"counters", m.counters}, {"profiled_samples", m.profiled_samples},
              {"instrumented_max_kernel_ms", m.instrumented_max_kernel_ms}, {"counters_l2_flush", m.counters_l2_flush}};
  // Only when asked for: a run without energy echoes what it always did.
  if (m.energy) {
    j["energy"] = true;
    j["energy_window_s"] = m.energy_window_s;
  }
  return j;
}

}  // namespace occbench
