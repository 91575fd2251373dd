#include "harness/search/search_walkers.hpp"

#include <algorithm>
#include <set>

namespace occbench {

namespace {

bool all_in(const SearchBatch& batch) {
  return std::all_of(batch.results.begin(), batch.results.end(), [](const auto& r) { return r.has_value(); });
}

}  // namespace

std::size_t walkers_for(const std::string& strategy, std::size_t budget) {
  if (strategy != "local" || budget < kTwoWalkersFrom) return 1;
  return std::min(kMaxWalkers, budget / kPointsPerWalker);
}

SearchWalkers::SearchWalkers(const std::string& strategy, const SearchSpace& space, std::uint64_t seed, std::size_t budget,
                             std::size_t walkers)
    : space_(space), strategy_(strategy), seed_(seed), budget_(budget) {
  std::size_t count = std::max<std::size_t>(1, walkers);
  for (std::size_t k = 0; k < count; ++k) add_walker(k, budget / count + (k < budget % count));
}

SearchWalkers::SearchWalkers(const std::string& strategy, const SearchSpace& space, std::uint64_t seed, std::size_t budget,
                             AdaptiveBatches adaptive)
    : SearchWalkers(strategy, space, seed, budget, std::size_t(1)) {
  adaptive_ = adaptive;
}

void SearchWalkers::add_walker(std::size_t k, std::size_t budget) {
  Walker w;
  // Walker 0 searches as a single search of the seed would; the others draw unrelated streams.
  w.searcher = make_searcher(strategy_, space_, seed_ ^ (k * 0x9E3779B97F4A7C15ULL));
  w.budget = budget;
  walkers_.push_back(std::move(w));
}

void SearchWalkers::ask(std::size_t batch_size) {
  do {
    for (std::size_t k = 0; k < walkers_.size(); ++k)
      while (!walkers_[k].done) {
        Walker& w = walkers_[k];
        if (!w.batch.members.empty()) {
          if (!all_in(w.batch)) break;  // in flight
          tell_batch(w);
        }
        // A batch of candidates measured before is told at once, and the next asked.
        ask_next(w, batch_size > 0 || !adaptive_ ? batch_size : width_of(k));
      }
  } while ((done() && share_what_is_left()) || widen());
}

void SearchWalkers::tell_batch(Walker& w) {
  for (std::size_t i = 0; i < w.batch.members.size(); ++i)
    if (auto known = results_.find(w.batch.members[i]); w.batch.results[i] && known != results_.end()) w.times.add(known->second.times);
  w.batch.tell(*w.searcher);
}

std::size_t SearchWalkers::width_of(std::size_t k) {
  BatchWidth width = batch_width(adaptive_->rule, walkers_[k].times, walkers_[k].searcher->free_room());
  bool changed = widths_.empty() || widths_.back().width.width != width.width || widths_.back().width.for_compiling != width.for_compiling;
  if (k == 0 && changed) widths_.push_back({told(), width});
  return width.width;
}

bool SearchWalkers::widen() {
  if (!adaptive_ || walkers_.size() != 1 || adaptive_->walkers <= 1 || widths_.empty() || widths_.back().width.for_compiling <= 1)
    return false;
  Walker& first = walkers_.front();
  std::size_t committed = first.searcher->told() + first.batch.members.size();
  std::size_t left = first.budget > committed ? first.budget - committed : 0;
  std::size_t count = adaptive_->walkers;
  if (first.done || left < count) return false;
  first.budget = committed + left / count + (left % count > 0);
  for (std::size_t k = 1; k < count; ++k) {
    add_walker(k, left / count + (k < left % count));
    walkers_.back().times = walkers_.front().times;  // as wide as walker 0 from the start
  }
  return true;
}

// Decided where every walker is done, all told: the same for the same records.
bool SearchWalkers::share_what_is_left() {
  std::size_t left = budget_ > results_.size() ? budget_ - results_.size() : 0;
  std::vector<Walker*> able;
  for (Walker& w : walkers_)
    if (!w.exhausted) able.push_back(&w);
  if (left == 0 || able.empty()) return false;
  for (std::size_t k = 0; k < able.size(); ++k) {
    able[k]->budget = able[k]->searcher->told() + left / able.size() + (k < left % able.size());
    able[k]->done = false;
  }
  return true;
}

void SearchWalkers::ask_next(Walker& w, std::size_t batch_size) {
  std::size_t told = w.searcher->told();
  if (told < w.budget) w.batch = SearchBatch(w.searcher->ask_batch(std::min(std::max<std::size_t>(1, batch_size), w.budget - told)));
  w.exhausted = told < w.budget && w.batch.members.empty();
  w.done = told >= w.budget || w.exhausted;
  if (w.done) return;
  ++asked_;
  for (std::size_t i = 0; i < w.batch.members.size(); ++i)
    if (auto known = results_.find(w.batch.members[i]); known != results_.end()) {
      w.batch.handed[i] = 1;
      w.batch.results[i] = known->second.cost;
      w.batch.compile_s[i] = known->second.times.compile_s;
    }
}

std::vector<SearchWalkers::Member> SearchWalkers::open() const {
  std::vector<Member> out;
  std::set<std::size_t> seen;
  for (std::size_t k = 0; k < walkers_.size(); ++k)
    for (std::size_t i = 0; i < walkers_[k].batch.members.size(); ++i)
      if (!walkers_[k].batch.handed[i] && seen.insert(walkers_[k].batch.members[i]).second)
        out.push_back({k, i, walkers_[k].batch.members[i]});
  return out;
}

void SearchWalkers::hand(const Member& member) {
  for (Walker& w : walkers_)
    if (std::optional<std::size_t> i = w.batch.index_of(member.candidate)) w.batch.handed[*i] = 1;
}

bool SearchWalkers::result(std::size_t candidate, std::optional<double> cost, PointTimes times) {
  results_[candidate] = {cost, times};
  bool held = false;
  for (Walker& w : walkers_)
    if (std::optional<std::size_t> i = w.batch.index_of(candidate)) {
      w.batch.handed[*i] = 1;
      w.batch.results[*i] = cost;
      w.batch.compile_s[*i] = times.compile_s;
      held = true;
    }
  return held;
}

void SearchWalkers::tell_what_came_in() {
  for (Walker& w : walkers_) tell_batch(w);
}

std::vector<std::size_t> SearchWalkers::likely_next(std::size_t limit) const {
  std::vector<std::vector<std::size_t>> each;
  for (const Walker& w : walkers_) each.push_back(w.batch.likely_next(*w.searcher, space_, limit));
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < limit; ++i)
    for (const auto& likely : each)
      if (i < likely.size() && std::find(out.begin(), out.end(), likely[i]) == out.end()) out.push_back(likely[i]);
  return out;
}

bool SearchWalkers::done() const {
  return std::all_of(walkers_.begin(), walkers_.end(), [](const Walker& w) { return w.done; });
}

std::size_t SearchWalkers::told() const {
  std::size_t total = 0;
  for (const Walker& w : walkers_) total += w.searcher->told();
  return total;
}

bool SearchWalkers::was_told(std::size_t candidate) const {
  return std::any_of(walkers_.begin(), walkers_.end(), [&](const Walker& w) { return w.searcher->was_told(candidate); });
}

}  // namespace occbench
