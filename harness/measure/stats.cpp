#include "harness/measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace occbench {

TimingStats summarize(const std::vector<double>& samples_ms, const std::string& mode) {
  TimingStats stats;
  stats.mode = mode;
  stats.samples = int(samples_ms.size());
  if (samples_ms.empty()) return stats;
  stats.samples_ms.assign(samples_ms.begin(), samples_ms.begin() + std::ptrdiff_t(std::min(samples_ms.size(), TimingStats::kKeptSamples)));
  std::vector<double> sorted = samples_ms;
  std::sort(sorted.begin(), sorted.end());
  std::size_t n = sorted.size();
  stats.median_ms = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  stats.min_ms = sorted.front();
  stats.max_ms = sorted.back();
  stats.total_ms = std::accumulate(sorted.begin(), sorted.end(), 0.0);
  stats.mean_ms = stats.total_ms / double(n);
  double squares = 0;
  for (double s : sorted) squares += (s - stats.mean_ms) * (s - stats.mean_ms);
  stats.stddev_ms = n > 1 ? std::sqrt(squares / double(n - 1)) : 0.0;
  stats.noise = stats.mean_ms > 0 ? stats.stddev_ms / stats.mean_ms : 0.0;
  return stats;
}

std::string stop_reason(const TimingStats& so_far, double elapsed_wall_s, const MeasurementSettings& settings) {
  if (so_far.samples >= settings.max_samples) return "max_samples";
  bool enough_samples = so_far.samples >= std::max(settings.min_samples, 2);
  bool enough_time = so_far.total_ms >= settings.min_time_s * 1e3;
  if (enough_samples && enough_time && so_far.noise <= settings.target_noise) return "converged";
  if (so_far.samples >= 1 && elapsed_wall_s >= settings.timeout_s) return "timeout";
  return "";
}

}  // namespace occbench
