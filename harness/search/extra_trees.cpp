#include "harness/search/extra_trees.hpp"

#include "harness/search/space.hpp"

#include <algorithm>
#include <cmath>

namespace occbench {

// Grows one tree over the samples' rows, splitting while a node holds min_split rows or more.
struct ExtraTrees::Grower {
  const std::vector<std::vector<double>>& x;
  const std::vector<double>& y;
  std::mt19937_64& generator;
  std::size_t min_split;
  std::vector<Node>& tree;

  struct Split {
    int feature = -1;
    double threshold = 0, error = 0;
  };

  double mean(const std::vector<std::size_t>& rows, std::size_t begin, std::size_t end) const {
    double sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum += y[rows[i]];
    return sum / double(end - begin);
  }

  // The squared error of the two sides of one threshold.
  double split_error(const std::vector<std::size_t>& rows, std::size_t begin, std::size_t end, int f, double threshold) const {
    double sum[2] = {0, 0}, square[2] = {0, 0}, count[2] = {0, 0};
    for (std::size_t i = begin; i < end; ++i) {
      int side = x[rows[i]][f] < threshold ? 0 : 1;
      double v = y[rows[i]];
      sum[side] += v, square[side] += v * v, count[side] += 1;
    }
    double error = 0;
    for (int s = 0; s < 2; ++s)
      if (count[s] > 0) error += square[s] - sum[s] * sum[s] / count[s];
    return error;
  }

  // One random threshold per feature that varies in the node; the best of them.
  Split choose(const std::vector<std::size_t>& rows, std::size_t begin, std::size_t end) const {
    Split best;
    for (int f = 0; f < int(x[rows[begin]].size()); ++f) {
      double lo = x[rows[begin]][f], hi = lo;
      for (std::size_t i = begin; i < end; ++i) lo = std::min(lo, x[rows[i]][f]), hi = std::max(hi, x[rows[i]][f]);
      if (hi <= lo) continue;
      double threshold = lo + (hi - lo) * (0.01 + 0.98 * uniform_unit(generator));
      double error = split_error(rows, begin, end, f, threshold);
      if (best.feature < 0 || error < best.error) best = {f, threshold, error};
    }
    return best;
  }

  int grow(std::vector<std::size_t>& rows, std::size_t begin, std::size_t end, int depth) {
    int node = int(tree.size());
    tree.push_back({-1, 0, mean(rows, begin, end), -1, -1});
    if (end - begin < min_split || depth >= 40) return node;
    Split split = choose(rows, begin, end);
    if (split.feature < 0) return node;
    auto middle = std::partition(rows.begin() + std::ptrdiff_t(begin), rows.begin() + std::ptrdiff_t(end),
                                 [&](std::size_t r) { return x[r][split.feature] < split.threshold; });
    std::size_t mid = std::size_t(middle - rows.begin());
    if (mid == begin || mid == end) return node;
    int left = grow(rows, begin, mid, depth + 1);
    int right = grow(rows, mid, end, depth + 1);
    tree[node].feature = split.feature, tree[node].threshold = split.threshold;
    tree[node].left = left, tree[node].right = right;
    return node;
  }
};

ExtraTrees::ExtraTrees(const std::vector<std::vector<double>>& features, const std::vector<double>& targets,
                       std::mt19937_64& generator, int trees, std::size_t min_split) {
  for (int t = 0; t < trees && !features.empty(); ++t) {
    std::vector<Node> tree;
    std::vector<std::size_t> rows(features.size());
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
    Grower{features, targets, generator, min_split, tree}.grow(rows, 0, rows.size(), 0);
    trees_.push_back(std::move(tree));
  }
}

Prediction ExtraTrees::predict(const std::vector<double>& features) const {
  double sum = 0, square = 0;
  for (const auto& tree : trees_) {
    int node = 0;
    while (tree[node].feature >= 0)
      node = features[tree[node].feature] < tree[node].threshold ? tree[node].left : tree[node].right;
    sum += tree[node].value, square += tree[node].value * tree[node].value;
  }
  double n = double(std::max<std::size_t>(trees_.size(), 1));
  double mean = sum / n;
  return {mean, std::sqrt(std::max(0.0, square / n - mean * mean))};
}

double expected_improvement(const Prediction& p, double best) {
  double gain = best - p.mean;
  if (p.spread < 1e-12) return std::max(gain, 0.0);
  double z = gain / p.spread;
  double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
  return gain * probability_of_improvement(p, best) + p.spread * pdf;
}

double probability_of_improvement(const Prediction& p, double best) {
  double gain = best - p.mean;
  if (p.spread < 1e-12) return gain > 0 ? 1.0 : 0.0;
  return 0.5 * std::erfc(-gain / p.spread / std::sqrt(2.0));
}

}  // namespace occbench
