#pragma once
// Little's law for a memory-bound kernel: to sustain a bandwidth B with a latency L, B x L bytes
// must be in flight; per SM that is B x L / SMs. A warp that keeps b bytes in flight needs
// ceil(B L / (SMs b)) warps per SM, and the occupancy at which the kernel should stop gaining
// (the knee) is that many warps over the SM's maximum (capped at 1: a kernel that needs more warps
// than an SM holds never reaches B). B is the device's measured copy bandwidth, L its measured
// DRAM latency (harness/measure/latency_probe), b the variant's WorkModel::bytes_in_flight_per_warp.
#include <nlohmann/json.hpp>

#include <optional>

namespace occbench {

struct LittlesLaw {
  double bandwidth_gbps = 0;            // GB/s (1e9 B/s)
  double latency_ns = 0;
  double bytes_in_flight_per_sm = 0;    // needed, B x L / SMs
  double bytes_in_flight_per_warp = 0;  // the kernel's
  int warps_per_sm_needed = 0;
  double predicted_knee_occupancy = 0;  // warps needed / max warps per SM, at most 1
  bool reachable = true;                // false when more warps are needed than an SM holds
};

// Empty when an input is missing or not positive.
std::optional<LittlesLaw> littles_law(double bandwidth_gbps, double latency_ns, int sm_count, int max_warps_per_sm,
                                      double bytes_in_flight_per_warp);

nlohmann::ordered_json to_json(const LittlesLaw& model);

}  // namespace occbench
