#include "harness/model/metrics.hpp"

#include "harness/core/json.hpp"
#include "harness/core/optional_number.hpp"

namespace occbench {

using json = nlohmann::ordered_json;

std::optional<double> cgma_flop_per_byte(const WorkModel& work) {
  if (work.global_bytes <= 0) return std::nullopt;
  return work.flops / work.global_bytes;
}

Metrics compute_metrics(const WorkModel& work, double median_ms, double peak_bandwidth_gbps,
                        std::optional<double> measured_bandwidth_gbps) {
  Metrics m;
  if (median_ms <= 0) return m;
  double seconds = median_ms / 1e3;
  m.achieved_bandwidth_gbps = work.dram_bytes / seconds / 1e9;
  m.gflops = work.flops / seconds / 1e9;
  if (work.equivalent_flops > 0) m.gflops_equivalent = work.equivalent_flops / seconds / 1e9;
  if (measured_bandwidth_gbps && *measured_bandwidth_gbps > 0)
    m.pct_of_measured_bandwidth = 100.0 * m.achieved_bandwidth_gbps / *measured_bandwidth_gbps;
  if (peak_bandwidth_gbps > 0) m.pct_of_peak_bandwidth = 100.0 * m.achieved_bandwidth_gbps / peak_bandwidth_gbps;
  return m;
}

namespace {

bool timed_ok(const json& r) {
  return r.contains("status") && r["status"] == "ok" && number_at(r, "timing", "median_ms") > 0;  // NaN where missing
}

// A record's params, or none where a log's record lacks them (a const operator[] on a missing key
// reads past the object).
const json* params_of(const json& r) {
  auto it = r.find("params");
  return it != r.end() && it->is_object() ? &*it : nullptr;
}

bool params_agree(const json* a, const json* b) {
  if (!a || !b) return false;
  for (const auto& item : a->items())
    if (b->contains(item.key()) && (*b)[item.key()] != item.value()) return false;
  return true;
}

}  // namespace

void assign_speedups(std::vector<json>& results, const std::string& baseline_variant) {
  for (auto& r : results) {
    if (!timed_ok(r) || !r.contains("metrics") || !r["metrics"].is_object()) continue;
    const json* best = nullptr;
    for (const auto& b : results) {
      if (!b.contains("variant") || b["variant"] != baseline_variant || !timed_ok(b)) continue;
      if (!params_agree(params_of(r), params_of(b))) continue;
      if (!best || b["timing"]["median_ms"].get<double>() < (*best)["timing"]["median_ms"].get<double>()) best = &b;
    }
    r["metrics"]["speedup_vs_baseline"] =
        best ? json((*best)["timing"]["median_ms"].get<double>() / r["timing"]["median_ms"].get<double>()) : json(nullptr);
  }
}

json to_json(const Metrics& m) {
  return {{"achieved_bandwidth_gbps", m.achieved_bandwidth_gbps},
          {"gflops", m.gflops},
          {"gflops_equivalent", optional_number(m.gflops_equivalent)},
          {"pct_of_measured_bandwidth", optional_number(m.pct_of_measured_bandwidth)},
          {"pct_of_peak_bandwidth", m.pct_of_peak_bandwidth},
          {"speedup_vs_baseline", optional_number(m.speedup_vs_baseline)}};
}

json to_json(const WorkModel& w) {
  auto cgma = cgma_flop_per_byte(w);
  return {{"flops", w.flops},
          {"equivalent_flops", w.equivalent_flops > 0 ? json(w.equivalent_flops) : json(nullptr)},
          {"global_bytes", w.global_bytes},
          {"dram_bytes", w.dram_bytes},
          {"cgma_flop_per_byte", optional_number(cgma)},
          {"bytes_in_flight_per_warp", w.bytes_in_flight_per_warp > 0 ? json(w.bytes_in_flight_per_warp) : json(nullptr)}};
}

}  // namespace occbench
