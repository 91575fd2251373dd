#include "harness/search/searcher.hpp"

#include "harness/search/strategies.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace occbench {

Searcher::Searcher(const SearchSpace& space, std::uint64_t seed)
    : space_(space),
      generator_(seed),
      evaluated_flags_(space.size(), 0),
      told_flags_(space.size(), 0),
      costs_(space.size()),
      compile_told_flags_(space.size(), 0) {}

namespace {

// A candidate as the compile-cost guess sees it: each dimension's value index.
Params value_indices(const SearchSpace& space, std::size_t candidate) {
  Params params;
  const std::vector<int>& indices = space.indices(candidate);
  for (std::size_t d = 0; d < indices.size(); ++d) params.set(space.dimensions()[d].name, indices[d]);
  return params;
}

}  // namespace

void Searcher::tell_compile_s(std::size_t candidate, double seconds) {
  if (compile_told_flags_[candidate] || !(seconds > 0)) return;
  compile_told_flags_[candidate] = 1;
  double ms = seconds * 1e3;
  compile_guess_.add(value_indices(space_, candidate), ms);
  compile_ms_told_.insert(std::upper_bound(compile_ms_told_.begin(), compile_ms_told_.end(), ms), ms);
}

bool Searcher::costly_to_compile(std::size_t candidate) const {
  std::optional<double> guess = compile_guess_.guess_log_ms(value_indices(space_, candidate));
  if (!guess) return false;
  double median_ms = compile_ms_told_[compile_ms_told_.size() / 2];
  return *guess > std::log(std::max(2 * median_ms, 1.0));
}

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

std::optional<std::size_t> Searcher::random_unevaluated(std::mt19937_64& generator, const std::deque<std::size_t>& drawn) const {
  auto taken = [&](std::size_t c) { return evaluated_flags_[c] || std::find(drawn.begin(), drawn.end(), c) != drawn.end(); };
  std::size_t count = evaluated_count_ + drawn.size();
  if (count >= space_.size()) return std::nullopt;
  // Draws while most are free, then a draw among the free ones.
  if (count * 2 < space_.size())
    for (;;) {
      std::size_t c = uniform_below(generator, space_.size());
      if (!taken(c)) return c;
    }
  std::vector<std::size_t> free;
  for (std::size_t c = 0; c < space_.size(); ++c)
    if (!taken(c)) free.push_back(c);
  return free[uniform_below(generator, free.size())];
}

std::deque<std::size_t> Searcher::next_draws(std::size_t count) const {
  // The draws so far are the few a likely_next names (no flags the size of the space: a search's
  // space may hold 10^8 points).
  std::deque<std::size_t> out;
  std::mt19937_64 copy = generator_;
  while (out.size() < count) {
    std::optional<std::size_t> c = random_unevaluated(copy, out);
    if (!c) break;
    out.push_back(*c);
  }
  return out;
}

double Searcher::Training::scaled(std::optional<double> cost) const {
  if (!cost) return worst;
  return sign > 0 ? std::log(*cost) : sign < 0 ? -std::log(-*cost) : *cost;
}

double Searcher::Training::add(std::optional<double> cost) {
  double y = scaled(cost);
  if (cost) best = std::min(best, y), worst = std::max(worst, y);
  return y;
}

std::vector<std::size_t> Searcher::Training::keep_best(std::size_t limit) {
  std::vector<std::size_t> kept(y.size());
  std::iota(kept.begin(), kept.end(), 0);
  std::stable_sort(kept.begin(), kept.end(), [this](std::size_t a, std::size_t b) { return y[a] < y[b]; });
  kept.resize(std::min(kept.size(), limit));
  std::vector<std::vector<double>> best_x;
  std::vector<double> best_y;
  for (std::size_t i : kept) best_x.push_back(std::move(x[i])), best_y.push_back(y[i]);
  x = std::move(best_x), y = std::move(best_y);
  return kept;
}

Searcher::Training Searcher::training_set() const {
  bool all_positive = true, all_negative = true;
  for (std::size_t c : history())
    if (auto cost = cost_of(c)) all_positive &= *cost > 0, all_negative &= *cost < 0;
  Training out;
  out.sign = all_positive ? 1 : all_negative ? -1 : 0;
  out.worst = -HUGE_VAL;
  for (std::size_t c : history())
    if (auto cost = cost_of(c)) out.worst = std::max(out.worst, out.scaled(cost));
  for (std::size_t c : history()) {
    out.x.push_back(space_.features(c));
    out.y.push_back(out.scaled(cost_of(c)));
  }
  if (best_cost()) out.best = out.scaled(best_cost());
  return out;
}

std::unique_ptr<Searcher> make_searcher(const std::string& name, const SearchSpace& space, std::uint64_t seed) {
  if (name == "random") return std::make_unique<RandomSearch>(space, seed);
  if (name == "local") return std::make_unique<LocalSearch>(space, seed);
  if (name == "genetic") return std::make_unique<GeneticSearch>(space, seed);
  if (name == "model") return std::make_unique<ModelSearch>(space, seed);
  if (name == "bayes") return std::make_unique<BayesSearch>(space, seed);
  throw std::invalid_argument(fmt::format("no search strategy '{}': expected random, local, genetic, model or bayes", name));
}

}  // namespace occbench
