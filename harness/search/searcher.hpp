#pragma once
// A search strategy, ask and tell (as Optuna's): ask for a candidate of the space not evaluated
// yet, evaluate it, tell its cost (lower is better; none where the point failed or was skipped,
// which the strategy learns from like any result), ask again. The same seed and the same costs
// give the same candidates, so a resumed search proposes what the killed one would have.
#include "harness/search/space.hpp"
#include "harness/compile/compile_order.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace occbench {

class Searcher {
 public:
  Searcher(const SearchSpace& space, std::uint64_t seed);
  virtual ~Searcher() = default;
  // A candidate not evaluated yet, or nullopt when every one has been.
  std::optional<std::size_t> ask();
  // The cost of a candidate (nullopt: failed, skipped, no value): the one ask gave last, or one
  // measured elsewhere (another GPU of a shared search), or one reserved earlier.
  void tell(std::size_t candidate, std::optional<double> cost);
  // What compiling the candidate's kernel took (NVRTC's seconds, whoever compiled it: its record's
  // compile.nvrtc_ms), told before its cost, once. A strategy may put off candidates guessed costly
  // to compile: a batch waits for its slowest compilation. Told from the records, so a resumed
  // search and a replay still choose what the live one did.
  void tell_compile_s(std::size_t candidate, double seconds);
  // Never to be asked for: another GPU of a shared search measures it; its cost may be told later.
  void reserve(std::size_t candidate);
  // Up to `limit` candidates to evaluate before the strategy decides again (each reserved): what
  // it would ask for one after another without a result in between, stopping where it needs
  // results (batch_room). The caller tells all of their costs, in this order, before asking
  // again: then what the strategy does next depends on the costs, not on the order they came in.
  std::vector<std::size_t> ask_batch(std::size_t limit);

  std::size_t evaluated() const { return evaluated_count_; }  // told or reserved
  std::size_t told() const { return history_.size(); }
  bool was_told(std::size_t candidate) const { return told_flags_[candidate]; }
  bool is_evaluated(std::size_t candidate) const { return evaluated_flags_[candidate]; }  // told or reserved
  std::optional<double> best_cost() const { return best_cost_; }
  // Up to `limit` candidates not evaluated yet that the strategy is likely to ask for soon: the
  // neighbours of the best candidate so far, then of the one asked last (what a local search
  // moves to; other strategies go there too once they converge). A guess, for compiling ahead.
  // A strategy that knows its next asks (a local search's untried neighbours, a genetic search's
  // queued children) names them first.
  virtual std::vector<std::size_t> likely_next(std::size_t limit) const;
  // How many candidates the strategy asks next whatever the results of those asked before them
  // (a random start, a genetic search's generation): a batch as wide chooses what one point at a
  // time would. 0 where the next one depends on results.
  virtual std::size_t free_room() const { return 0; }

 protected:
  // The strategy's choice; may return an evaluated candidate, which ask replaces by a random one.
  virtual std::optional<std::size_t> propose() = 0;
  virtual void learn(std::size_t candidate, std::optional<double> cost) = 0;
  // How many candidates the strategy can propose, from here, before it needs their results.
  virtual std::size_t batch_room() const { return SIZE_MAX; }

  std::optional<double> cost_of(std::size_t candidate) const { return costs_[candidate]; }
  // Whether compiling the candidate is guessed to take over twice the median of the compilations
  // told (from each axis value's effect, CompileCostGuess); false before kCompileSamples were told.
  bool costly_to_compile(std::size_t candidate) const;
  static constexpr int kCompileSamples = 4;
  // Lower is better; a failed candidate is worse than any with a cost.
  bool better(std::optional<double> a, std::optional<double> b) const { return a && (!b || *a < *b); }
  std::optional<std::size_t> random_unevaluated() { return random_unevaluated(generator_); }
  // `drawn` (candidates not evaluated, a few): drawn as though they were evaluated too (next_draws).
  std::optional<std::size_t> random_unevaluated(std::mt19937_64& generator, const std::deque<std::size_t>& drawn = {}) const;
  // The strategy's next `count` random draws (random_unevaluated, each after those before it),
  // drawn with a copy of its generator: where they go before they are asked.
  std::deque<std::size_t> next_draws(std::size_t count) const;
  // `first` (the strategy's own queue), then the default guess, unevaluated and each once, at most `limit`.
  std::vector<std::size_t> likely_after(const std::deque<std::size_t>& first, std::size_t limit) const;
  // The evaluated candidates, in the order they were told.
  const std::vector<std::size_t>& history() const { return history_; }
  // The candidates asked for (or reserved) whose costs were not told yet: a batch's earlier asks.
  std::vector<std::size_t> pending() const;
  std::size_t pending_count() const { return evaluated_count_ - history_.size(); }  // pending().size(), without the scan
  // What a model learns from the told candidates (in the order told): their features and scaled
  // costs (log costs where they share a sign: time and energy span decades; a failed one as the
  // worst seen), and the best so scaled.
  struct Training {
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    double best = 0, worst = 0;
    int sign = 0;  // +1: log costs, -1: -log(-cost), 0: costs as they are
    double scaled(std::optional<double> cost) const;
    // A result told after the set was made: its scaled cost, the best and worst kept up to date.
    double add(std::optional<double> cost);
    // Only the `limit` rows of lowest target kept, best first (what a Gaussian process is fitted
    // to: a fit costs samples^3); the told order's index of each row kept.
    std::vector<std::size_t> keep_best(std::size_t limit);
  };
  Training training_set() const;

  const SearchSpace& space_;
  std::mt19937_64 generator_;

 private:
  std::vector<char> evaluated_flags_, told_flags_;
  std::vector<std::optional<double>> costs_;
  std::vector<std::size_t> history_;
  std::size_t evaluated_count_ = 0;
  std::optional<double> best_cost_;
  std::optional<std::size_t> best_candidate_, last_asked_;
  CompileCostGuess compile_guess_{kCompileSamples};  // by each dimension's value index
  std::vector<double> compile_ms_told_;               // ascending
  std::vector<char> compile_told_flags_;
};

// A searcher of the strategy (harness/sweep/strategy.hpp names them): random, local, genetic,
// model or bayes; throws std::invalid_argument for any other name.
std::unique_ptr<Searcher> make_searcher(const std::string& name, const SearchSpace& space, std::uint64_t seed);

}  // namespace occbench
