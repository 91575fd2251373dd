#pragma once
// Derived figures of one point, from its work model, its median time and the device's ceilings.
// Pure arithmetic; the definitions are docs/record.md's.
#include "harness/family/registry.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace occbench {

struct Metrics {
  double achieved_bandwidth_gbps = 0;          // dram_bytes / median time, 1e9 B/s
  double gflops = 0;                           // flops / median time, 1e9 FLOP/s
  std::optional<double> gflops_equivalent;     // equivalent_flops / median time, when the model has them
  std::optional<double> pct_of_measured_bandwidth;
  double pct_of_peak_bandwidth = 0;
  std::optional<double> speedup_vs_baseline;   // set once all points are in (assign_speedups)
};

// FLOPs per byte of global-memory traffic the kernel issues; nullopt when it issues none.
std::optional<double> cgma_flop_per_byte(const WorkModel& work);

Metrics compute_metrics(const WorkModel& work, double median_ms, double peak_bandwidth_gbps,
                        std::optional<double> measured_bandwidth_gbps);

// speedup_vs_baseline = baseline median / this median. The baseline point is the baseline
// variant's ok point that agrees on every parameter both points have (sizes, and e.g. block_size
// where both take it); the fastest of them where several agree. Works on result records (JSON).
void assign_speedups(std::vector<nlohmann::ordered_json>& results, const std::string& baseline_variant);

nlohmann::ordered_json to_json(const Metrics& metrics);
nlohmann::ordered_json to_json(const WorkModel& work);

}  // namespace occbench
