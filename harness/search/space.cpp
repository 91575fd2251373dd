#include "harness/search/space.hpp"

#include <algorithm>
#include <cstdlib>

namespace occbench {

namespace {

using plain_json = nlohmann::json;  // the search's values (not the records' ordered_json)

// Null (absent) first, then numbers ascending, then text as first seen.
void order_values(SearchDimension& dimension) {
  std::vector<plain_json> nulls, numbers, other;
  for (auto& value : dimension.values) (value.is_null() ? nulls : value.is_number() ? numbers : other).push_back(value);
  std::stable_sort(numbers.begin(), numbers.end(), [](const plain_json& a, const plain_json& b) { return a.get<double>() < b.get<double>(); });
  dimension.ordered = other.empty() && nulls.empty();
  dimension.values = nulls;
  dimension.values.insert(dimension.values.end(), numbers.begin(), numbers.end());
  dimension.values.insert(dimension.values.end(), other.begin(), other.end());
}

std::vector<SearchDimension> collect_dimensions(const std::vector<Coordinates>& candidates) {
  std::vector<SearchDimension> dimensions;
  auto dimension_of = [&](const std::string& name) -> SearchDimension& {
    for (auto& d : dimensions)
      if (d.name == name) return d;
    dimensions.push_back({name, {}, true});
    return dimensions.back();
  };
  for (const auto& candidate : candidates)
    for (const auto& [name, value] : candidate) {
      auto& values = dimension_of(name).values;
      if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
    }
  for (auto& dimension : dimensions) {
    bool absent_somewhere = std::any_of(candidates.begin(), candidates.end(), [&](const Coordinates& c) {
      return std::none_of(c.begin(), c.end(), [&](const auto& item) { return item.first == dimension.name; });
    });
    if (absent_somewhere) dimension.values.push_back(nullptr);
    order_values(dimension);
  }
  return dimensions;
}

int value_index(const SearchDimension& dimension, const Coordinates& candidate) {
  plain_json value = nullptr;
  for (const auto& [name, v] : candidate)
    if (name == dimension.name) value = v;
  return int(std::find(dimension.values.begin(), dimension.values.end(), value) - dimension.values.begin());
}

}  // namespace

SearchSpace::SearchSpace(const std::vector<Coordinates>& candidates) : dimensions_(collect_dimensions(candidates)) {
  for (const auto& candidate : candidates) {
    std::vector<int> indices;
    for (const auto& dimension : dimensions_) indices.push_back(value_index(dimension, candidate));
    lookup_.emplace(indices, indices_.size());  // a repeated candidate keeps its first index
    indices_.push_back(std::move(indices));
  }
}

std::optional<std::size_t> SearchSpace::find(const std::vector<int>& indices) const {
  auto found = lookup_.find(indices);
  return found == lookup_.end() ? std::nullopt : std::optional<std::size_t>(found->second);
}

// One dimension to any other value (Kernel Tuner's Hamming neighbours), not only to the next one:
// on the convolution space measured in full (its searched variant), stepping to the next value
// left 50 local optima and a basin of 374 points around one at 0.915 of the optimum (a 1 x 8 tile,
// the optimum's 4 x 4 three steps away), any value 12 optima, the optimum's basin the largest; the
// local search (next values first) found the optimum in 19 of 50 seeds at 2% of the space instead
// of 13 (scripts/search/kt_simulation.py).
std::vector<std::size_t> SearchSpace::one_change(std::size_t candidate) const {
  std::vector<std::size_t> out;
  const std::vector<int>& here = indices_[candidate];
  for (std::size_t d = 0; d < dimensions_.size(); ++d) {
    std::vector<int> there = here;
    for (int v = 0; v < int(dimensions_[d].values.size()); ++v) {
      if (v == here[d]) continue;  // the candidate itself
      there[d] = v;
      if (auto found = find(there)) out.push_back(*found);
    }
  }
  return out;
}

const std::vector<std::size_t>& SearchSpace::neighbours(std::size_t candidate) const {
  {
    std::lock_guard<std::mutex> lock(neighbours_mutex_);
    auto found = neighbours_.find(candidate);
    if (found != neighbours_.end()) return found->second;  // a map's elements stay where they are
  }
  std::vector<std::size_t> out = one_change(candidate);
  std::lock_guard<std::mutex> lock(neighbours_mutex_);
  return neighbours_.emplace(candidate, std::move(out)).first->second;
}

bool SearchSpace::one_step(std::size_t from, std::size_t to) const {
  const std::vector<int>&a = indices_[from], &b = indices_[to];
  for (std::size_t d = 0; d < a.size(); ++d)
    if (a[d] != b[d]) return !dimensions_[d].ordered || std::abs(a[d] - b[d]) == 1;
  return false;
}

std::vector<double> SearchSpace::features(std::size_t candidate) const {
  std::vector<double> out;
  for (std::size_t d = 0; d < dimensions_.size(); ++d) {
    int count = int(dimensions_[d].values.size());
    out.push_back(count > 1 ? double(indices_[candidate][d]) / (count - 1) : 0.0);
  }
  if (!extra_.empty()) out.insert(out.end(), extra_[candidate].begin(), extra_[candidate].end());
  return out;
}

void SearchSpace::add_features(std::vector<std::vector<double>> extra) {
  if (extra.size() != indices_.size() || extra.empty()) return;
  for (std::size_t f = 0; f < extra[0].size(); ++f) {
    double lo = extra[0][f], hi = lo;
    for (const auto& row : extra) lo = std::min(lo, row[f]), hi = std::max(hi, row[f]);
    for (auto& row : extra) row[f] = hi > lo ? (row[f] - lo) / (hi - lo) : 0.0;
  }
  extra_ = std::move(extra);
}

}  // namespace occbench
