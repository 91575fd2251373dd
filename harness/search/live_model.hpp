#pragma once
// A live search's wall, simulated with no GPU (replay's compile-cost model of a run with compile
// workers). The strategy asks in batches as run does (SearchWalkers). Before each point is
// measured the run offers its workers what the search is likely to ask next
// (SearchWalkers::likely_next), and a free worker compiles the newest offer's first kernel that
// nobody has compiled or is compiling (harness/run/compile_queue). The GPU measures the batch's
// compiled points first, in the strategy's order, and waits where none is: the measuring process
// compiles a kernel only where no worker compiles any of them. The strategy is told a batch's
// results once all are in.
// Each kernel takes its compile time, each point its measuring time, as recorded.
#include "harness/search/search_walkers.hpp"
#include "harness/sweep/point_source.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace occbench {

struct LiveModel {
  std::size_t batch = 16;      // points a batch at most (1: one at a time; 0: as the search's width rule says)
  std::size_t compilers = 16;  // compile workers
  std::size_t lookahead = kCompileLookahead;  // candidates an offer names (the run loop's)
};

// Per candidate of the space: its cost (none: it failed), and the seconds its kernel takes to
// compile and the point to measure.
struct LiveCosts {
  std::vector<std::optional<double>> cost;
  std::vector<double> compile_s, measure_s;
};

// The candidates in the order measured, and when each one's measurement ended.
struct LiveSearch {
  std::vector<std::size_t> measured;
  std::vector<double> measured_at_s;
};

// The search to its end (its budget, or where its strategy has nothing left to ask).
LiveSearch simulate_live_search(SearchWalkers& search, const LiveCosts& costs, const LiveModel& model);

}  // namespace occbench
