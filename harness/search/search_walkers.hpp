#pragma once
// A search in batches by one or more walkers: independent searches of one space by one strategy,
// each with its own seed, its share of the budget and its own batch in flight. While one walker's
// batch waits for its kernels to compile, the GPU measures another's: a local search in batches
// waits at each step for the slowest compilation of a neighbourhood (on the H100, 1-13 s of a
// 20-40 s search), and two walkers each take half as many steps, three a third (the waits of
// walkers that reach a local optimum beside costly kernels overlap).
// Deterministic for a seed: the walkers share only results. A walker that asks for a candidate
// another one measured (or is about to) gets that one's result instead of measuring it again, the
// same record either way, so each walker's choices depend on the records alone, never on which
// kernel compiled first or which walker asked first. No walker waits for another's batch. A
// candidate two walkers want is measured once; once every walker has spent its share, what the
// budget has left is shared out again, so the search measures its budget.
// The live search (search_source) and its simulation (live_model) both drive one.
#include "harness/search/batch_width.hpp"
#include "harness/search/search_batch.hpp"
#include "harness/search/searcher.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace occbench {

// How many walkers a search in batches of `budget` points takes: for a local search of at least
// kTwoWalkersFrom points, one per kPointsPerWalker (each long enough to descend from its start and
// restart; fewer points would lose at 1-2% of the replayed spaces), at most kMaxWalkers: 2 from
// 100 points, 3 from 120, 4 from 160. Else one.
std::size_t walkers_for(const std::string& strategy, std::size_t budget);
constexpr std::size_t kTwoWalkersFrom = 100;
constexpr std::size_t kPointsPerWalker = 40;
constexpr std::size_t kMaxWalkers = 4;

// Batches as wide as the rule says (batch_width.hpp): the search starts as one walker with the whole
// budget, asking one point at a time until it has measured something; the first time walker 0's
// width passes 1, the budget it has left is shared with `walkers` - 1 more (walkers_for), each of
// which starts from walker 0's times. Each walker's width follows its own results, so the same
// records give the same search.
struct AdaptiveBatches {
  std::size_t walkers = 1;
  BatchWidthRule rule;
};

class SearchWalkers {
 public:
  // Throws std::invalid_argument for an unknown strategy (make_searcher).
  SearchWalkers(const std::string& strategy, const SearchSpace& space, std::uint64_t seed, std::size_t budget, std::size_t walkers = 1);
  SearchWalkers(const std::string& strategy, const SearchSpace& space, std::uint64_t seed, std::size_t budget, AdaptiveBatches adaptive);

  // Tells each batch whose results are all in, then asks each walker without a batch in flight
  // for its next, of at most `batch_size` (0: the width the rule gives that walker, an adaptive
  // search); a walker whose budget is spent or whose strategy proposes nothing is done.
  void ask(std::size_t batch_size = 0);
  struct Member {
    std::size_t walker = 0, index = 0, candidate = 0;
  };
  // The batches' members not handed out yet, each candidate once: walker by walker, each in its
  // strategy's order.
  std::vector<Member> open() const;
  void hand(const Member& member);  // in every batch that holds its candidate
  // A candidate's result, for every batch in flight that holds it (and any that asks for it
  // later): false where no batch holds it.
  // `times`: what compiling (told to the strategy too) and measuring it took, for the width rule.
  bool result(std::size_t candidate, std::optional<double> cost, PointTimes times);
  // Every batch told as far as its results came in (a time limit cut the search).
  void tell_what_came_in();
  // What the walkers are likely to ask for next (SearchBatch::likely_next), up to `limit` of each,
  // taken from each in turn: a walker's candidates put off as costly to compile still compile ahead.
  std::vector<std::size_t> likely_next(std::size_t limit) const;

  bool done() const;  // every walker is done
  std::size_t told() const;
  bool was_told(std::size_t candidate) const;
  std::size_t count() const { return walkers_.size(); }
  std::size_t asked() const { return asked_; }  // batches asked so far, by every walker
  // Walker 0: a search one point at a time (no batches) is its alone.
  Searcher& first() { return *walkers_.front().searcher; }
  // Walker 0's widths as they changed (an adaptive search): each with the points told before it.
  struct WidthChange {
    std::size_t after_points = 0;
    BatchWidth width;
  };
  const std::vector<WidthChange>& width_changes() const { return widths_; }
  BatchWidthRule rule() const { return adaptive_ ? adaptive_->rule : BatchWidthRule{}; }

 private:
  struct Walker {
    std::unique_ptr<Searcher> searcher;
    SearchBatch batch;
    std::size_t budget = 0;
    bool done = false;       // its share spent, or its strategy has nothing left
    bool exhausted = false;  // its strategy has nothing left
    TimesTold times;         // of the points it was told, for its width
  };
  struct Result {
    std::optional<double> cost;
    PointTimes times;
  };
  void add_walker(std::size_t k, std::size_t budget);
  // Tells the walker's batch, its times first.
  void tell_batch(Walker& walker);
  // The walker's width by the rule (an adaptive search), walker 0's changes kept.
  std::size_t width_of(std::size_t k);
  // An adaptive search's walker 0 first wider than 1: the budget it has left shared with the
  // rest of its walkers (true where some were added).
  bool widen();
  // The walker's next batch, its members measured before filled in, or the walker done.
  void ask_next(Walker& walker, std::size_t batch_size);
  // Once every walker is done: the budget not measured yet, shared among those that can go on.
  bool share_what_is_left();
  const SearchSpace& space_;
  std::string strategy_;
  std::uint64_t seed_ = 0;
  std::optional<AdaptiveBatches> adaptive_;  // none: batches of the width each ask() names
  std::vector<WidthChange> widths_;
  std::vector<Walker> walkers_;
  std::map<std::size_t, Result> results_;  // every candidate measured, by candidate
  std::size_t budget_;
  std::size_t asked_ = 0;
};

}  // namespace occbench
