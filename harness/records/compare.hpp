#pragma once
// `occbench compare BASE.json NEW.json`: per point present in both runs, the time ratio and
// whether the change is beyond the two runs' measured noise; a summary; an exit code that can
// gate a change. Pure CPU code over result records.
//
// The verdict, for a point that is "ok" with a median in both runs:
//   ratio     r = median_NEW / median_BASE                      (> 1: NEW is slower)
//   noise     n = sqrt(noise_BASE² + noise_NEW²)                (noise = stddev / mean of a run's samples)
//   threshold t = max(noise_factor × n, min_change, resolution_ms / median_BASE)
//   slower    when r - 1 >  t;   faster when 1 - r > t;   unchanged otherwise;
//   unknown   when either run has fewer than 2 samples (no noise estimate).
// This follows nvbench's compare script (a point is SAME while |relative diff| <= noise), with
// the two runs' noises combined in quadrature, as for the ratio of two independent measurements,
// instead of taking the smaller one, so it calls fewer changes than nvbench does. The floor
// keeps differences below the timer's resolution (cudaEventElapsedTime: about 0.5 us) from
// counting however quiet both runs were. The min-max ranges are not used: they widen with every
// sample taken, and one outlier sample would hide any change.
// min_change (default 0.01, --min-change PCT) is the smallest relative change a user calls a
// change at all: two quiet runs on two H100s differed by 0.1% at 929 µs, which is noise of the
// cards, not of the code, and nvbench's rule alone called it "slower".
//
// Where both runs measured energy (run --energy), the table shows joules per launch and their
// ratio beside the time; energy does not enter the verdict.
//
// --fail-on-regression PCT: a regression is a point judged slower whose slowdown (r - 1) × 100
// is more than PCT, or a point that was ok in BASE and failed (wrong result) in NEW.
#include "harness/records/report.hpp"

#include <optional>
#include <string>
#include <vector>

namespace occbench {

struct CompareOptions {
  double noise_factor = 1.0;
  double resolution_ms = 0.0005;
  double min_change = 0.01;  // relative: 0.01 = 1%
  std::optional<double> fail_on_regression_pct;
};

enum class Verdict { faster, slower, unchanged, unknown };
const char* to_string(Verdict verdict);

struct PointComparison {
  std::string point_id;
  double base_ms = 0, new_ms = 0;        // medians
  double base_noise = 0, new_noise = 0;  // stddev / mean
  int base_samples = 0, new_samples = 0;
  double ratio = 0;      // new / base
  double threshold = 0;  // relative change needed to count
  Verdict verdict = Verdict::unknown;
  bool regression = false;  // with fail_on_regression_pct: slower by more than PCT
  // Joules per launch where both runs measured energy (run --energy); shown beside the time.
  std::optional<double> base_joules, new_joules;
};

struct NotCompared {
  std::string point_id, base_status, new_status, reason;
  bool regression = false;  // ok in BASE, failed in NEW
};

struct Comparison {
  std::vector<PointComparison> points;  // ok in both, in BASE's order
  std::vector<NotCompared> not_compared;  // in both, not ok in one or both
  std::vector<std::string> only_in_base, only_in_new;
  std::size_t faster = 0, slower = 0, unchanged = 0, unknown = 0, regressions = 0;
};

// The verdict rule above, on two medians with their noises and sample counts.
PointComparison compare_point(const std::string& point_id, const ordered_json& base, const ordered_json& next,
                              const CompareOptions& options);

// Throws ResultsFileError when the two files have no point_id in common (nothing to compare).
Comparison compare_runs(const ResultsFile& base, const ResultsFile& next, const CompareOptions& options);

// Header, a markdown table of the compared points, the points not compared, and the summary.
std::string format_comparison(const Comparison& comparison, const ResultsFile& base, const ResultsFile& next,
                              const CompareOptions& options);

// 1 when fail_on_regression_pct is set and a point regressed; else 0.
int comparison_exit_code(const Comparison& comparison, const CompareOptions& options);

}  // namespace occbench
