#pragma once
// A search space: the candidates of one search (the points of one size of a sweep, live, or the
// records of one size of a run, in replay) as coordinates, one value index per dimension (the
// variant and each axis), and which candidates neighbour which. Restrictions leave holes: only
// the candidates exist, and neighbours are looked up among them.
#include "harness/family/random.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

// A candidate as its dimensions' values, e.g. {{"variant", "tiled"}, {"block_size", 16}}.
using Coordinates = std::vector<std::pair<std::string, nlohmann::json>>;

struct SearchDimension {
  std::string name;
  std::vector<nlohmann::json> values;  // numbers ascending, then text in first-seen order; null: absent
  bool ordered = true;                 // numbers only: a step to the next value is a small change
};

class SearchSpace {
 public:
  explicit SearchSpace(const std::vector<Coordinates>& candidates);

  std::size_t size() const { return indices_.size(); }
  const std::vector<SearchDimension>& dimensions() const { return dimensions_; }
  // The value index of each dimension of a candidate.
  const std::vector<int>& indices(std::size_t candidate) const { return indices_[candidate]; }
  std::optional<std::size_t> find(const std::vector<int>& indices) const;
  // Candidates one change away: one dimension to any other value (restrictions leave holes: only
  // the candidates that exist).
  const std::vector<std::size_t>& neighbours(std::size_t candidate) const;
  // Whether neighbour `to` is one step from `from`: an ordered dimension to the next value up or
  // down, or an unordered one to any value (the smaller changes among the neighbours).
  bool one_step(std::size_t from, std::size_t to) const;
  // Each coordinate scaled to [0, 1] by its value index, then the extra features: what a model is
  // fitted on.
  std::vector<double> features(std::size_t candidate) const;
  // Features of each candidate beyond its coordinates (e.g. what plan knows of a point before it
  // runs: occupancy, registers, shared memory), one row per candidate, each column scaled to [0, 1].
  void add_features(std::vector<std::vector<double>> extra);
  // The candidate nearest to `wanted` (value steps summed over dimensions) that `allowed` lets
  // through, ties broken by the generator; nullopt when none is allowed.
  template <class Allowed>
  std::optional<std::size_t> nearest(const std::vector<int>& wanted, Allowed allowed, std::mt19937_64& generator) const;

 private:
  std::vector<std::size_t> one_change(std::size_t candidate) const;
  std::vector<SearchDimension> dimensions_;
  std::vector<std::vector<int>> indices_;
  std::vector<std::vector<double>> extra_;  // per candidate, scaled
  std::map<std::vector<int>, std::size_t> lookup_;
  // Filled as asked; replay asks from several threads (a race here crashed a replay in ctest).
  mutable std::map<std::size_t, std::vector<std::size_t>> neighbours_;
  mutable std::mutex neighbours_mutex_;
};

template <class Allowed>
std::optional<std::size_t> SearchSpace::nearest(const std::vector<int>& wanted, Allowed allowed,
                                                std::mt19937_64& generator) const {
  std::vector<std::size_t> best;
  long best_distance = -1;
  for (std::size_t c = 0; c < indices_.size(); ++c) {
    if (!allowed(c)) continue;
    long distance = 0;
    for (std::size_t d = 0; d < wanted.size(); ++d) {
      long step = std::labs(long(indices_[c][d]) - long(wanted[d]));
      distance += dimensions_[d].ordered ? step : (step != 0);
    }
    if (best_distance >= 0 && distance > best_distance) continue;
    if (distance != best_distance) best.clear();
    best_distance = distance;
    best.push_back(c);
  }
  if (best.empty()) return std::nullopt;
  return best[uniform_below(generator, best.size())];
}

}  // namespace occbench
