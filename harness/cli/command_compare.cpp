// occbench compare: two runs point by point, with noise-aware verdicts (harness/records/compare.hpp).
#include "harness/cli/cli.hpp"
#include "harness/cli/commands.hpp"
#include "harness/records/compare.hpp"

#include <iostream>
#include <memory>

namespace occbench {

namespace {

// occbench compare: exit 1 only for a regression under --fail-on-regression.
int compare_command(const std::string& base_path, const std::string& new_path, const CompareOptions& options) {
  ResultsFile base = load_results_file(base_path), next = load_results_file(new_path);
  Comparison comparison = compare_runs(base, next, options);
  std::cout << format_comparison(comparison, base, next, options);
  return comparison_exit_code(comparison, options);
}

struct CompareFlags {
  std::string base, next;
  double fail_on_regression = -1, noise_factor = 1.0, min_change_pct = 1.0;
};

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto flags = std::make_shared<CompareFlags>();
  auto* compare = app.add_subcommand("compare", "Compare two runs point by point: time ratios, noise-aware verdicts, a summary");
  compare->add_option("base", flags->base, "Results of the reference run (.json)")->required();
  compare->add_option("new", flags->next, "Results of the run to judge (.json)")->required();
  compare->add_option("--fail-on-regression", flags->fail_on_regression,
                      "Exit 1 when a point is slower by more than PCT percent, beyond the runs' noise")
      ->check(finite_number(0, false));
  compare->add_option("--noise-factor", flags->noise_factor, "A change counts beyond this many times the combined noise")
      ->check(finite_number(0, true))->capture_default_str();
  compare->add_option("--min-change", flags->min_change_pct, "A change counts only beyond this many percent, however quiet the runs")
      ->check(finite_number(0, false))->capture_default_str();
  return {compare, [flags](const std::vector<std::string>&) {
            CompareOptions options;
            options.noise_factor = flags->noise_factor;
            options.min_change = flags->min_change_pct / 100;
            if (flags->fail_on_regression >= 0) options.fail_on_regression_pct = flags->fail_on_regression;
            return compare_command(flags->base, flags->next, options);
          }};
}

}  // namespace occbench
