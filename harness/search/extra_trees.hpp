#pragma once
// Extremely randomized regression trees (Geurts et al. 2006): each split tries one random
// threshold per feature and keeps the one that lowers the variance most. The spread of the trees'
// predictions is the model's uncertainty, which expected improvement weighs against the mean.
#include <cstddef>
#include <random>
#include <vector>

namespace occbench {

struct Prediction {
  double mean = 0, spread = 0;
};

class ExtraTrees {
 public:
  // features: one row per sample, all rows of the same length.
  ExtraTrees(const std::vector<std::vector<double>>& features, const std::vector<double>& targets, std::mt19937_64& generator,
             int trees = 24, std::size_t min_split = 4);
  Prediction predict(const std::vector<double>& features) const;

 private:
  struct Node {
    int feature = -1;  // -1: a leaf
    double threshold = 0, value = 0;
    int left = -1, right = -1;
  };
  struct Grower;
  std::vector<std::vector<Node>> trees_;
};

// Expected improvement below `best` of a prediction (minimisation).
double expected_improvement(const Prediction& p, double best);
// Probability that a prediction is below `best`.
double probability_of_improvement(const Prediction& p, double best);

}  // namespace occbench
