#include "harness/search/searcher.hpp"

#include "harness/search/strategies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace occbench {

Searcher::Searcher(const SearchSpace& space, std::uint64_t seed)
    : space_(space), generator_(seed), evaluated_flags_(space.size(), 0), told_flags_(space.size(), 0), costs_(space.size()) {}

std::optional<std::size_t> Searcher::ask() {
  if (evaluated_count_ >= space_.size()) return std::nullopt;
  std::optional<std::size_t> choice = propose();
  if (!choice || is_evaluated(*choice)) choice = random_unevaluated();
  if (choice) last_asked_ = choice;
  return choice;
}

std::vector<std::size_t> Searcher::likely_next(std::size_t limit) const { return likely_after({}, limit); }

std::vector<std::size_t> Searcher::likely_after(const std::deque<std::size_t>& first, std::size_t limit) const {
  std::vector<std::size_t> likely;
  // Adds `c` if unevaluated and new; false once `limit` are there.
  auto add = [&](std::size_t c) {
    if (likely.size() >= limit) return false;
    if (!is_evaluated(c) && std::find(likely.begin(), likely.end(), c) == likely.end()) likely.push_back(c);
    return true;
  };
  for (std::size_t c : first)
    if (!add(c)) return likely;
  for (const auto& around : {best_candidate_, last_asked_})
    if (around)
      for (std::size_t n : space_.neighbours(*around))
        if (!add(n)) return likely;
  return likely;
}

void Searcher::tell(std::size_t candidate, std::optional<double> cost) {
  reserve(candidate);
  if (told_flags_[candidate]) return;  // told once: a record read again changes nothing
  told_flags_[candidate] = 1;
  history_.push_back(candidate);
  costs_[candidate] = cost;
  if (better(cost, best_cost_)) {
    best_cost_ = cost;
    best_candidate_ = candidate;
  }
  learn(candidate, cost);
}

std::vector<std::size_t> Searcher::ask_batch(std::size_t limit) {
  std::vector<std::size_t> batch;
  limit = std::min(limit, std::max<std::size_t>(1, batch_room()));
  while (batch.size() < limit) {
    std::optional<std::size_t> candidate = ask();
    if (!candidate) break;
    reserve(*candidate);
    batch.push_back(*candidate);
  }
  return batch;
}

std::vector<std::size_t> Searcher::pending() const {
  std::vector<std::size_t> out;
  if (evaluated_count_ == history_.size()) return out;
  for (std::size_t c = 0; c < evaluated_flags_.size(); ++c)
    if (evaluated_flags_[c] && !told_flags_[c]) out.push_back(c);
  return out;
}

void Searcher::reserve(std::size_t candidate) {
  if (evaluated_flags_[candidate]) return;
  evaluated_flags_[candidate] = 1;
  ++evaluated_count_;
}

std::optional<std::size_t> Searcher::random_unevaluated() {
  if (evaluated_count_ >= space_.size()) return std::nullopt;
  // Draws while most are free, then a draw among the free ones.
  if (evaluated_count_ * 2 < space_.size())
    for (;;) {
      std::size_t c = uniform_below(generator_, space_.size());
      if (!evaluated_flags_[c]) return c;
    }
  std::vector<std::size_t> free;
  for (std::size_t c = 0; c < space_.size(); ++c)
    if (!evaluated_flags_[c]) free.push_back(c);
  return free[uniform_below(generator_, free.size())];
}

std::unique_ptr<Searcher> make_searcher(const std::string& name, const SearchSpace& space, std::uint64_t seed) {
  if (name == "random") return std::make_unique<RandomSearch>(space, seed);
  if (name == "local") return std::make_unique<LocalSearch>(space, seed);
  if (name == "genetic") return std::make_unique<GeneticSearch>(space, seed);
  if (name == "model") return std::make_unique<ModelSearch>(space, seed);
  throw std::invalid_argument(fmt::format("no search strategy '{}': expected random, local, genetic or model", name));
}

}  // namespace occbench
