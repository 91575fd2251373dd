// The search strategies on the synthetic tuning space of the CPU tests (search_test_support.hpp),
// as JSON: for each strategy and budget (1, 2, 5, 10, 20% of the points), every seed's fraction
// of the optimum found. scripts/search/synthetic_space_table.py makes
// results/reference/h100/search.md's table of it.
//
//   occbench_synthetic_space_fractions [SEEDS]   (50 by default)
#include "search_test_support.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <iostream>

int main(int argc, char** argv) {
  using namespace occbench::testing_support;
  int seeds = argc > 1 ? std::atoi(argv[1]) : 50;
  if (seeds < 1) {
    std::cerr << "occbench_synthetic_space_fractions: SEEDS is a whole number of at least 1, got '" << argv[1] << "'\n";
    return 2;
  }
  SyntheticSpace s = synthetic_tuning_space();
  std::vector<double> percents = {1, 2, 5, 10, 20};
  std::vector<std::size_t> budgets = budgets_at(percents, s.candidates.size());
  std::size_t failed = 0;
  for (const auto& c : s.costs) failed += c ? 0 : 1;
  nlohmann::ordered_json out = {{"points", s.candidates.size()}, {"failed", failed}, {"seeds", seeds},
                                {"percents", percents}, {"budgets", budgets}, {"strategies", nlohmann::ordered_json::object()}};
  for (const char* name : {"random", "local", "genetic", "model"}) out["strategies"][name] = seed_fractions(name, s, budgets, seeds);
  std::cout << out.dump() << "\n";
}
