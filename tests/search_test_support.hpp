#pragma once
// A synthetic tuning space for the search tests: six axes of a register-tiled kernel (block
// shape, thread tile, unrolling, vector width), restricted as such a kernel is, with a cost
// shaped like a tuned kernel's (an optimum inside the space, axes that interact, 3% of
// deterministic noise) and failed points (over a shared-memory budget) that have no cost.
#include "harness/search/searcher.hpp"
#include "harness/search/space.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace occbench::testing_support {

struct SyntheticSpace {
  std::vector<occbench::Coordinates> candidates;
  std::vector<std::optional<double>> costs;
};

inline double hash_unit(std::uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdULL, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ULL, x ^= x >> 33;
  return double(x >> 11) * 0x1.0p-53;
}

inline SyntheticSpace synthetic_tuning_space() {
  SyntheticSpace space;
  std::uint64_t n = 0;
  for (int bx : {8, 16, 32, 64, 128})
    for (int by : {1, 2, 4, 8, 16})
      for (int tx : {1, 2, 4, 8})
        for (int ty : {1, 2, 4, 8})
          for (int unroll : {1, 2, 4})
            for (int vec : {1, 2, 4}) {
              int threads = bx * by;
              if (threads < 32 || threads > 1024 || tx * ty > 32 || vec > tx) continue;  // the restrictions
              ++n;
              space.candidates.push_back({{"block_x", bx}, {"block_y", by}, {"tile_x", tx}, {"tile_y", ty}, {"unroll", unroll}, {"vector", vec}});
              if (threads * tx * ty > 8192) {  // over the shared-memory budget: the point fails
                space.costs.push_back(std::nullopt);
                continue;
              }
              double occupancy = std::min(1.0, 2048.0 / (threads * std::ceil(2048.0 / threads) + tx * ty * 48.0));
              double reuse = 1.0 / (1.0 / tx + 1.0 / ty);
              double registers = std::max(1.0, tx * ty * unroll / 24.0);
              double shape = 1.0 + 0.15 * std::abs(std::log2(double(bx) / (4.0 * by)));
              double cost = shape * registers / (occupancy * reuse * (1.0 + 0.1 * std::log2(vec)) * (1.0 + 0.05 * unroll));
              space.costs.push_back(cost * (1.0 + 0.03 * hash_unit(n)));
            }
  return space;
}

// A search run to its end (or `limit` points): the candidates in the order asked; with `batch` > 1,
// asked in batches of at most that many and told each batch's costs after it.
inline std::vector<std::size_t> search_order(const std::string& strategy, const SearchSpace& space,
                                             const std::vector<std::optional<double>>& costs, std::uint64_t seed,
                                             std::size_t limit = SIZE_MAX, std::size_t batch = 1) {
  std::unique_ptr<Searcher> searcher = make_searcher(strategy, space, seed);
  std::vector<std::size_t> order;
  while (order.size() < limit) {
    std::vector<std::size_t> asked = searcher->ask_batch(std::min(batch, limit - order.size()));
    if (asked.empty()) break;
    for (std::size_t c : asked) order.push_back(c), searcher->tell(c, costs[c]);
  }
  return order;
}

// For each budget, each seed's optimum / best found within it (seeds 0 .. seeds-1).
inline std::vector<std::vector<double>> seed_fractions(const std::string& strategy, const SyntheticSpace& s,
                                                       const std::vector<std::size_t>& budgets, int seeds, std::size_t batch = 1) {
  SearchSpace space(s.candidates);
  double optimum = HUGE_VAL;
  for (const auto& c : s.costs)
    if (c) optimum = std::min(optimum, *c);
  std::vector<std::vector<double>> fractions(budgets.size());
  for (int seed = 0; seed < seeds; ++seed) {
    std::vector<std::size_t> order = search_order(strategy, space, s.costs, std::uint64_t(seed), budgets.back(), batch);
    for (std::size_t b = 0; b < budgets.size(); ++b) {
      double best = HUGE_VAL;
      for (std::size_t k = 0; k < budgets[b]; ++k)
        if (s.costs[order[k]]) best = std::min(best, *s.costs[order[k]]);
      fractions[b].push_back(optimum / best);
    }
  }
  return fractions;
}

// For each budget, the median over seeds of optimum / best found within it.
inline std::vector<double> median_fractions(const std::string& strategy, const SyntheticSpace& s,
                                            const std::vector<std::size_t>& budgets, int seeds, std::size_t batch = 1) {
  std::vector<double> medians;
  for (auto& f : seed_fractions(strategy, s, budgets, seeds, batch)) {
    std::sort(f.begin(), f.end());
    medians.push_back(f[f.size() / 2]);
  }
  return medians;
}

// The budgets at `percents` of the space's points, rounded up.
inline std::vector<std::size_t> budgets_at(const std::vector<double>& percents, std::size_t points) {
  std::vector<std::size_t> budgets;
  for (double p : percents) budgets.push_back(std::size_t(std::ceil(p / 100.0 * double(points))));
  return budgets;
}

}  // namespace occbench::testing_support
