#include "harness/model/occupancy_model.hpp"

#include <algorithm>
#include <cmath>

namespace occbench {

std::optional<LittlesLaw> littles_law(double bandwidth_gbps, double latency_ns, int sm_count, int max_warps_per_sm,
                                      double bytes_in_flight_per_warp) {
  if (bandwidth_gbps <= 0 || latency_ns <= 0 || sm_count <= 0 || max_warps_per_sm <= 0 || bytes_in_flight_per_warp <= 0)
    return std::nullopt;
  LittlesLaw m;
  m.bandwidth_gbps = bandwidth_gbps;
  m.latency_ns = latency_ns;
  m.bytes_in_flight_per_sm = bandwidth_gbps * latency_ns / sm_count;  // GB/s x ns = bytes
  m.bytes_in_flight_per_warp = bytes_in_flight_per_warp;
  m.warps_per_sm_needed = int(std::ceil(m.bytes_in_flight_per_sm / bytes_in_flight_per_warp));
  m.reachable = m.warps_per_sm_needed <= max_warps_per_sm;
  m.predicted_knee_occupancy = std::min(1.0, double(m.warps_per_sm_needed) / max_warps_per_sm);
  return m;
}

nlohmann::ordered_json to_json(const LittlesLaw& m) {
  return {{"bandwidth_gbps", m.bandwidth_gbps},
          {"dram_latency_ns", m.latency_ns},
          {"bytes_in_flight_per_sm_needed", m.bytes_in_flight_per_sm},
          {"bytes_in_flight_per_warp", m.bytes_in_flight_per_warp},
          {"warps_per_sm_needed", m.warps_per_sm_needed},
          {"predicted_knee_occupancy", m.predicted_knee_occupancy},
          {"reachable", m.reachable}};
}

}  // namespace occbench
