#pragma once
// The search strategies (make_searcher builds them by name; docs/search.md compares them).
#include "harness/search/extra_trees.hpp"
#include "harness/search/gaussian_process.hpp"
#include "harness/search/searcher.hpp"

#include <algorithm>
#include <deque>
#include <memory>
#include <unordered_map>
#include <utility>

namespace occbench {

// Candidates in a uniformly random order: the baseline every other strategy must beat.
class RandomSearch : public Searcher {
 public:
  using Searcher::Searcher;
  std::size_t free_room() const override { return SIZE_MAX; }

 protected:
  std::optional<std::size_t> propose() override { return random_unevaluated(); }
  void learn(std::size_t, std::optional<double>) override {}
};

// Iterated first-improvement local search (as Kernel Tuner's greedy_ils): from the best of a
// random sample of one point per axis (at least two), evaluate the neighbours (one axis changed
// to any value: the next values up or down first, in random order, then the farther ones) and
// move to the first that is better; at a local optimum, start again from the best so far with two
// or three axes changed at random, or (one time in four) anywhere: of 32 such starts drawn, the
// one of highest expected improvement under a Gaussian process of the results (as the bayes
// search's; SYRK's optimum in 90 of 200 fresh seeds at 5% of the space, not 72; the convolution's
// fractions unchanged).
// Known costs are used before new ones. Where compile times are told, a neighbourhood's candidates
// guessed costly to compile (Searcher::costly_to_compile) come after the others, in their own
// batch: a better neighbour among the cheap ones is moved to without waiting for a heavy compile
// (on the H100 a local search's batch waited 12.8 s for an 8 x 8 tile beside 0.2-3 s ones).
class LocalSearch : public Searcher {
 public:
  using Searcher::Searcher;

 protected:
  std::optional<std::size_t> propose() override;
  std::vector<std::size_t> likely_next(std::size_t limit) const override;
  void learn(std::size_t candidate, std::optional<double> cost) override;
  // The initial sample, or the current neighbourhood's untried candidates (the cheap to compile,
  // else the costly), or one restart.
  std::size_t batch_room() const override;

 public:
  // The rest of the initial sample (a random draw).
  std::size_t free_room() const override { return evaluated() < initial_sample() ? initial_sample() - evaluated() : 0; }

 private:
  void move_to(std::size_t candidate);
  // A start, drawn with `generator` (this search's, or a copy of it to see where the next restart
  // goes before it is asked): of kRestartDraws jumps, the one of highest expected improvement
  // under the guide (the first jump before the guide is fitted).
  std::optional<std::size_t> restart(std::mt19937_64& generator) const;
  // From the best so far with two or three axes changed, or (one time in four) anywhere.
  std::optional<std::size_t> jump(std::mt19937_64& generator) const;
  std::size_t initial_sample() const;
  // The guide brought up to the results told: fitted again as they grow by a fifth, else added to.
  void update_guide();
  static constexpr int kRestartDraws = 32;
  std::unique_ptr<GaussianProcess> guide_;  // of the (scaled) results, once the sample is told
  Training guide_scale_;                    // its scaling of costs; best kept up to date
  std::size_t guide_fitted_ = 0, guide_synced_ = 0;  // results told at its fit, and in it
  // restart() drawn with a copy of the generator, kept until a result or an ask changes it
  // (likely_next asks for it at every ask; 32 guided predictions each).
  std::optional<std::size_t> next_restart() const;
  mutable std::optional<std::pair<std::size_t, std::size_t>> next_restart_at_;  // (told, evaluated)
  mutable std::optional<std::size_t> next_restart_;
  std::optional<std::size_t> current_;
  std::deque<std::size_t> untried_;   // the current candidate's neighbours not evaluated yet
  std::deque<std::size_t> deferred_;  // those of them guessed costly to compile: after untried_
};

// A genetic algorithm (as Kernel Tuner's): a population of the best candidates so far; each
// generation's children cross two parents chosen by tournament value by value and mutate a value
// one step; a child that is not in the space (a restriction) or was evaluated becomes the nearest
// candidate that was not.
class GeneticSearch : public Searcher {
 public:
  GeneticSearch(const SearchSpace& space, std::uint64_t seed, std::size_t population = 20);

 protected:
  std::optional<std::size_t> propose() override;
  std::vector<std::size_t> likely_next(std::size_t limit) const override { return likely_after(queued_, limit); }
  void learn(std::size_t candidate, std::optional<double> cost) override;
  // The rest of this generation, or the next whole one.
  std::size_t batch_room() const override { return queued_.empty() ? population_size_ : queued_.size(); }

 public:
  // A generation is bred from the whole one before it: the rest of this one, or the next.
  std::size_t free_room() const override { return batch_room(); }

 private:
  void next_generation();
  std::size_t tournament();
  std::vector<int> child(std::size_t a, std::size_t b);
  std::size_t population_size_;
  std::vector<std::size_t> population_;  // best first
  std::deque<std::size_t> queued_;       // this generation's children not proposed yet
  std::vector<char> queued_flags_;
};

// The most results a Gaussian process is fitted to (Training::keep_best): a fit costs samples^3.
constexpr std::size_t kMaxModelSamples = 500;

// A search by a model of the costs: a random start of max(8, 2 x axes + 2) candidates that the
// model's first fit waits for, then a model's choices, any number at once (a batch's later asks
// believe the earlier ones cost what the model predicts).
class ModelGuidedSearch : public Searcher {
 public:
  ModelGuidedSearch(const SearchSpace& space, std::uint64_t seed)
      : Searcher(space, seed), initial_random_(std::max<std::size_t>(8, 2 * space.dimensions().size() + 2)) {}
  // The rest of the random start.
  std::size_t free_room() const override { return start_left(); }

 protected:
  void learn(std::size_t, std::optional<double>) override {}
  // The rest of the random start, then any number.
  std::size_t batch_room() const override { return in_random_start() ? start_left() : SIZE_MAX; }
  bool in_random_start() const { return start_left() > 0; }
  // The rest of the random start as it will be drawn, then `ranking` (unevaluated, at most `limit`).
  std::vector<std::size_t> likely_after_start(const std::vector<std::size_t>& ranking, std::size_t limit) const;
  // The candidates a model ranks: every one not evaluated where there are few; else a random
  // 2000 and the neighbours one step from the ten best so far (all of them: 0.958 to 0.887 of the
  // optimum at 2% of the convolution space, the model's few picks spread over too many).
  std::vector<std::size_t> model_pool();

 private:
  std::size_t start_left() const { return evaluated() < initial_random_ ? initial_random_ - evaluated() : 0; }
  std::size_t initial_random_;
};

// Model-based search (as SMAC): after the random start, fit an ensemble of randomized regression
// trees to the log costs so far (failed candidates count as the worst seen) and evaluate the
// candidates of highest expected improvement; every tenth choice is random, so the model keeps
// learning about the whole space. The model is fitted again once the results grew by 5%. In a
// batch, the candidates asked but not told yet count as costing what the model predicts.
class ModelSearch : public ModelGuidedSearch {
 public:
  using ModelGuidedSearch::ModelGuidedSearch;

 protected:
  std::optional<std::size_t> propose() override;
  // The rest of the random start, then, one point at a time, the model's ranking (until it is
  // fitted again): what the search asks next, compiled ahead. (A batch's next asks come from a
  // fit with its pending points believed, not from this ranking.)
  std::vector<std::size_t> likely_next(std::size_t limit) const override;

 private:
  void fit_and_rank();
  std::size_t proposals_ = 0, fitted_at_ = 0;
  std::deque<std::size_t> ranked_;  // by expected improvement under the last fit, best first
};

// Bayesian optimisation (as Kernel Tuner's bayes_opt): after the random start, a Gaussian process
// fitted to the log costs so far (failed candidates count as the worst seen), and next the best
// candidate by one of three acquisitions in turn, as Kernel Tuner's default portfolio: expected
// improvement, probability of improvement and the lower confidence bound, each with an
// exploration term of kExploration times the pool's mean predicted spread. Fitted again (its
// length scale, its pool: model_pool) once the results grew by a fifth, on the best
// kMaxModelSamples at most; in between, each result updates it. In a batch, the candidates asked
// but not told yet count as costing what it predicts (the kriging believer) until they are told.
class BayesSearch : public ModelGuidedSearch {
 public:
  using ModelGuidedSearch::ModelGuidedSearch;

 protected:
  std::optional<std::size_t> propose() override;
  // As the model search's: the rest of the random start, then one point at a time the ranking.
  std::vector<std::size_t> likely_next(std::size_t limit) const override;

 private:
  // The candidate of highest expected improvement, the model brought up to date first.
  std::optional<std::size_t> propose_by_model();
  // Up to `limit` candidates the model ranks best, where it was fitted (else none): what
  // propose_by_model asks next while the results change nothing.
  std::vector<std::size_t> model_ranking(std::size_t limit) const;
  // The pool's unevaluated candidates, each with its score by the acquisition of this turn (lower
  // is better), in pool order.
  std::vector<std::pair<double, std::size_t>> scored_pool() const;
  // Replayed on SYRK's full space (seeds 1000-1099): 1 finds the optimum at 5% in 62 seeds, 2 in
  // 68, 3 in 77, 6 in 73, 12 in 47 (expected improvement alone, no exploration term: 45).
  static constexpr double kExploration = 3.0;
  void fit();
  // The results told since, and the last ask if it is not told yet (believed).
  void update();
  void add_sample(std::size_t candidate, double y);
  std::unique_ptr<GaussianProcess> model_;
  Training scale_;                     // the fit's scaling of costs; its best kept up to date
  std::vector<std::size_t> pool_;      // the candidate of each of the model's pool rows
  std::unordered_map<std::size_t, std::size_t> sample_of_;  // candidate: its sample in the model
  std::size_t fitted_at_ = 0, synced_ = 0;  // results told at the fit, and in the model
  std::optional<std::size_t> last_;    // the last candidate proposed by the model
};

}  // namespace occbench
