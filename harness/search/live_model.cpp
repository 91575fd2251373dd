#include "harness/search/live_model.hpp"

#include "harness/search/search_batch.hpp"

#include <algorithm>
#include <cmath>

namespace occbench {

namespace {

constexpr double kNever = HUGE_VAL;

// The compile workers and the kernels' compilations: a free worker takes the newest offer's first
// kernel nobody has started; one with nothing left to take waits for the next offer.
class Workers {
 public:
  Workers(std::size_t count, const std::vector<double>& compile_s)
      : free_at_(std::max<std::size_t>(1, count), 0.0), idle_(free_at_.size(), 0), done_at_(compile_s.size(), kNever), compile_s_(compile_s) {}

  // A new offer at `now`: what the workers took before followed the one before it.
  void offer(double now, std::vector<std::size_t> candidates) {
    run_until(now);
    offer_ = std::move(candidates);
    for (std::size_t w = 0; w < free_at_.size(); ++w)
      if (idle_[w]) idle_[w] = 0, free_at_[w] = now;
    run_until(now);
  }

  // Every worker free by `t` takes its next kernel, the first free first.
  void run_until(double t) {
    for (std::optional<std::size_t> w = first_free(t); w; w = first_free(t)) {
      auto next = std::find_if(offer_.begin(), offer_.end(), [&](std::size_t c) { return done_at_[c] == kNever; });
      if (next == offer_.end()) {
        idle_[*w] = 1;
        continue;
      }
      free_at_[*w] = compile(*next, free_at_[*w]);
    }
  }

  // Compiles the candidate's kernel from `start` (a worker's, or the measuring process's): when it is done.
  double compile(std::size_t candidate, double start) { return done_at_[candidate] = start + compile_s_[candidate]; }
  double done_at(std::size_t candidate) const { return done_at_[candidate]; }  // kNever: not started

  // When the next busy worker comes free (kNever: none is busy).
  double next_free() const {
    double next = kNever;
    for (std::size_t w = 0; w < free_at_.size(); ++w)
      if (!idle_[w]) next = std::min(next, free_at_[w]);
    return next;
  }

 private:
  std::optional<std::size_t> first_free(double t) const {
    std::optional<std::size_t> first;
    for (std::size_t w = 0; w < free_at_.size(); ++w)
      if (!idle_[w] && free_at_[w] <= t && (!first || free_at_[w] < free_at_[*first])) first = w;
    return first;
  }

  std::vector<double> free_at_;
  std::vector<char> idle_;
  std::vector<double> done_at_;
  const std::vector<double>& compile_s_;
  std::vector<std::size_t> offer_;
};

// The open member to measure next, moving `gpu` on while it waits (ReadiestFirst beside the
// workers): the first, in the walkers' and strategies' order, whose kernel is compiled; else the
// first one a worker finishes; where no worker compiles any, the measuring process compiles the first.
SearchWalkers::Member next_compiled(const std::vector<SearchWalkers::Member>& open, Workers& workers, double& gpu) {
  for (;;) {
    workers.run_until(gpu);
    double first_done = kNever;
    for (const auto& member : open) {
      double done = workers.done_at(member.candidate);
      if (done <= gpu) return member;
      first_done = std::min(first_done, done);
    }
    if (first_done == kNever) {  // nobody compiles any: this process does
      gpu = workers.compile(open.front().candidate, gpu);
      return open.front();
    }
    gpu = std::min(first_done, std::max(gpu, workers.next_free()));
  }
}

}  // namespace

LiveSearch simulate_live_search(SearchWalkers& search, const LiveCosts& costs, const LiveModel& model) {
  Workers workers(model.compilers, costs.compile_s);
  LiveSearch out;
  double gpu = 0;
  for (;;) {
    search.ask(model.batch);
    std::vector<SearchWalkers::Member> open = search.open();
    if (open.empty()) break;
    workers.offer(gpu, search.likely_next(model.lookahead));  // new batches, as they start
    SearchWalkers::Member member = next_compiled(open, workers, gpu);
    search.hand(member);
    workers.offer(gpu, search.likely_next(model.lookahead));  // as the run loop, before each point
    gpu += costs.measure_s[member.candidate];
    search.result(member.candidate, costs.cost[member.candidate], {costs.compile_s[member.candidate], costs.measure_s[member.candidate]});
    out.measured.push_back(member.candidate);
    out.measured_at_s.push_back(gpu);
  }
  return out;
}

}  // namespace occbench
