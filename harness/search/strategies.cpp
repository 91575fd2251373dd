#include "harness/search/strategies.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_set>

namespace occbench {

namespace {

template <class T>
void shuffle(std::vector<T>& items, std::mt19937_64& generator) {
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[uniform_below(generator, i)]);
}

}  // namespace

// --- local search ---

std::optional<std::size_t> LocalSearch::propose() {
  if (history().size() < initial_sample()) return random_unevaluated();
  while (current_ && !(untried_.empty() && deferred_.empty())) {
    if (untried_.empty()) untried_.swap(deferred_);  // no better cheap neighbour: the costly ones now
    std::size_t next = untried_.front();
    untried_.pop_front();
    if (!is_evaluated(next)) return next;
  }
  current_.reset();  // a local optimum: restart
  return restart(generator_);
}

// Random jumps are many; the results so far say which of them look promising, where a Gaussian
// process fits them (a smooth space such as SYRK's) and pick about at random where it does not.
std::optional<std::size_t> LocalSearch::restart(std::mt19937_64& generator) const {
  if (!guide_) return jump(generator);
  std::optional<std::size_t> chosen;
  double most = -HUGE_VAL;
  for (int i = 0; i < kRestartDraws; ++i) {
    std::optional<std::size_t> start = jump(generator);
    if (!start) continue;
    double improvement = expected_improvement(guide_->predict(space_.features(*start)), guide_scale_.best);
    if (improvement > most) most = improvement, chosen = start;
  }
  return chosen;
}

// Iterated local search: most restarts jump from the best optimum so far, changing two or three
// axes at random (good configurations share much); one in four starts anywhere.
std::optional<std::size_t> LocalSearch::jump(std::mt19937_64& generator) const {
  std::optional<double> best = best_cost();
  if (!best || uniform_unit(generator) < 0.25) return random_unevaluated(generator);
  std::size_t from = 0;
  for (std::size_t c : history())
    if (cost_of(c) == best) from = c;
  std::vector<int> wanted = space_.indices(from);
  const auto& dimensions = space_.dimensions();
  int jumps = 2 + int(uniform_below(generator, 2));
  for (int j = 0; j < jumps; ++j) {
    std::size_t d = uniform_below(generator, wanted.size());
    wanted[d] = int(uniform_below(generator, dimensions[d].values.size()));
  }
  return space_.nearest(wanted, [this](std::size_t c) { return !is_evaluated(c); }, generator);
}

std::size_t LocalSearch::batch_room() const {
  if (history().size() < initial_sample()) return initial_sample() - history().size();
  if (!current_) return 1;
  auto open = [this](const std::deque<std::size_t>& candidates) {
    return std::size_t(std::count_if(candidates.begin(), candidates.end(), [this](std::size_t c) { return !is_evaluated(c); }));
  };
  std::size_t cheap = open(untried_);
  return std::max<std::size_t>(1, cheap > 0 ? cheap : open(deferred_));
}

// The neighbourhood's untried candidates, then where the search restarts if none of them is
// better: the same draw as restart's will be, for the generator is not used until then (a
// restart's kernel compiles while the neighbourhood is measured, instead of after it).
std::vector<std::size_t> LocalSearch::likely_next(std::size_t limit) const {
  // The rest of the sample first, as propose will draw it (one point at a time, asked one by one).
  std::deque<std::size_t> next = next_draws(std::min(free_room(), limit));
  next.insert(next.end(), untried_.begin(), untried_.end());
  next.insert(next.end(), deferred_.begin(), deferred_.end());
  if (history().size() >= initial_sample())
    if (std::optional<std::size_t> start = next_restart()) next.push_back(*start);
  return likely_after(next, limit);
}

std::optional<std::size_t> LocalSearch::next_restart() const {
  std::pair<std::size_t, std::size_t> now{told(), evaluated()};
  if (next_restart_at_ != now) {
    std::mt19937_64 copy = generator_;
    next_restart_ = restart(copy), next_restart_at_ = now;
  }
  return next_restart_;
}

std::size_t LocalSearch::initial_sample() const { return std::max<std::size_t>(2, space_.dimensions().size()); }

void LocalSearch::update_guide() {
  if (!guide_ || told() - guide_fitted_ >= std::max<std::size_t>(1, guide_fitted_ / 5)) {
    guide_fitted_ = guide_synced_ = told();
    guide_scale_ = training_set();
    guide_scale_.keep_best(kMaxModelSamples);
    guide_ = std::make_unique<GaussianProcess>(guide_scale_.x, guide_scale_.y);
    guide_scale_.x.clear(), guide_scale_.y.clear();  // only its scaling and best are kept
  }
  for (; guide_synced_ < told(); ++guide_synced_) {
    std::size_t c = history()[guide_synced_];
    guide_->add(space_.features(c), guide_scale_.add(cost_of(c)));
  }
}

void LocalSearch::learn(std::size_t candidate, std::optional<double> cost) {
  if (history().size() < initial_sample()) return;
  if (best_cost()) update_guide();
  if (history().size() == initial_sample()) {  // the first descent starts from the best of the sample
    std::optional<std::size_t> best;
    for (std::size_t c : history())
      if (cost_of(c) && (!best || better(cost_of(c), cost_of(*best)))) best = c;
    if (best) move_to(*best);
    return;
  }
  if (!current_) {
    if (cost) move_to(candidate);  // a start; a failed one is followed by another start
    return;
  }
  if (better(cost, cost_of(*current_))) move_to(candidate);
}

void LocalSearch::move_to(std::size_t candidate) {
  for (bool moved = true; moved;) {  // known better neighbours first: they cost nothing
    moved = false;
    for (std::size_t n : space_.neighbours(candidate))
      if (is_evaluated(n) && better(cost_of(n), cost_of(candidate))) candidate = n, moved = true;
  }
  current_ = candidate;
  // The next value of an axis before a farther one (variable neighbourhood descent): a step is
  // usually the smaller change, and a farther value is tried where no step is better.
  std::vector<std::size_t> near, far;
  for (std::size_t n : space_.neighbours(candidate))
    if (!is_evaluated(n)) (space_.one_step(candidate, n) ? near : far).push_back(n);
  untried_.clear(), deferred_.clear();
  for (std::vector<std::size_t>* group : {&near, &far}) {
    shuffle(*group, generator_);
    for (std::size_t n : *group) (costly_to_compile(n) ? deferred_ : untried_).push_back(n);
  }
}

// --- genetic algorithm ---

GeneticSearch::GeneticSearch(const SearchSpace& space, std::uint64_t seed, std::size_t population)
    : Searcher(space, seed),
      population_size_(std::clamp<std::size_t>(space.size() / 25, 4, population)),
      queued_flags_(space.size(), 0) {}

std::optional<std::size_t> GeneticSearch::propose() {
  for (;;) {
    if (queued_.empty()) next_generation();
    if (queued_.empty()) return std::nullopt;
    std::size_t next = queued_.front();
    queued_.pop_front();
    queued_flags_[next] = 0;
    if (!is_evaluated(next)) return next;
  }
}

void GeneticSearch::learn(std::size_t, std::optional<double>) {}

void GeneticSearch::next_generation() {
  population_ = history();
  std::stable_sort(population_.begin(), population_.end(),
                   [this](std::size_t a, std::size_t b) { return better(cost_of(a), cost_of(b)); });
  std::size_t with_cost = std::size_t(std::count_if(population_.begin(), population_.end(), [this](std::size_t c) { return bool(cost_of(c)); }));
  population_.resize(std::min({population_.size(), population_size_, with_cost}));
  auto free = [this](std::size_t c) { return !is_evaluated(c) && !queued_flags_[c]; };
  for (std::size_t i = 0; i < population_size_; ++i) {
    std::optional<std::size_t> next;
    if (population_.size() < 2) {
      next = random_unevaluated();
      if (next && !free(*next)) next = space_.nearest(space_.indices(*next), free, generator_);
    } else {
      std::vector<int> wanted = child(tournament(), tournament());
      next = space_.find(wanted);
      if (!next || !free(*next)) next = space_.nearest(wanted, free, generator_);
    }
    if (!next) break;
    queued_.push_back(*next);
    queued_flags_[*next] = 1;
  }
}

std::size_t GeneticSearch::tournament() {
  std::size_t a = uniform_below(generator_, population_.size()), b = uniform_below(generator_, population_.size());
  return population_[std::min(a, b)];  // the population is sorted best first
}

std::vector<int> GeneticSearch::child(std::size_t a, std::size_t b) {
  std::vector<int> genes = space_.indices(a);
  const std::vector<int>& other = space_.indices(b);
  const auto& dimensions = space_.dimensions();
  for (std::size_t d = 0; d < genes.size(); ++d) {
    if (generator_() & 1) genes[d] = other[d];
    int count = int(dimensions[d].values.size());
    if (count < 2 || uniform_unit(generator_) >= 1.0 / double(genes.size())) continue;
    if (dimensions[d].ordered) {
      int step = (generator_() & 1) ? 1 : -1;
      genes[d] = std::clamp(genes[d] + (genes[d] + step < 0 || genes[d] + step >= count ? -step : step), 0, count - 1);
    } else {
      genes[d] = int((genes[d] + 1 + uniform_below(generator_, count - 1)) % count);
    }
  }
  return genes;
}

// --- model-based search ---

std::vector<std::size_t> ModelGuidedSearch::likely_after_start(const std::vector<std::size_t>& ranking, std::size_t limit) const {
  std::deque<std::size_t> next = next_draws(std::min(free_room(), limit));
  next.insert(next.end(), ranking.begin(), ranking.begin() + long(std::min(ranking.size(), limit)));
  return likely_after(next, limit);
}

std::vector<std::size_t> ModelGuidedSearch::model_pool() {
  std::vector<std::size_t> out;
  std::size_t free = space_.size() - evaluated();
  if (free <= 3000) {
    for (std::size_t c = 0; c < space_.size(); ++c)
      if (!is_evaluated(c)) out.push_back(c);
    return out;
  }
  std::unordered_set<std::size_t> taken;  // not flags the size of the space: it may hold 10^8 points
  for (int i = 0; i < 2000; ++i)
    if (auto c = random_unevaluated(); c && taken.insert(*c).second) out.push_back(*c);
  std::vector<std::size_t> best = history();
  std::stable_sort(best.begin(), best.end(), [this](std::size_t a, std::size_t b) { return better(cost_of(a), cost_of(b)); });
  best.resize(std::min<std::size_t>(best.size(), 10));
  for (std::size_t b : best)
    for (std::size_t n : space_.neighbours(b))
      if (space_.one_step(b, n) && !is_evaluated(n) && taken.insert(n).second) out.push_back(n);
  return out;
}

std::optional<std::size_t> ModelSearch::propose() {
  ++proposals_;
  if (in_random_start() || proposals_ % 10 == 0 || !best_cost()) return random_unevaluated();
  std::size_t n = evaluated();
  if (ranked_.empty() || n - fitted_at_ >= std::max<std::size_t>(1, n / 20)) fit_and_rank();
  while (!ranked_.empty()) {
    std::size_t next = ranked_.front();
    ranked_.pop_front();
    if (!is_evaluated(next)) return next;
  }
  return random_unevaluated();
}

std::vector<std::size_t> ModelSearch::likely_next(std::size_t limit) const {
  if (pending_count() > 1) return likely_after_start({}, limit);
  return likely_after_start({ranked_.begin(), ranked_.begin() + long(std::min(ranked_.size(), limit))}, limit);
}

void ModelSearch::fit_and_rank() {
  fitted_at_ = evaluated();
  Training told = training_set();
  ExtraTrees model(told.x, told.y, generator_);
  // A batch's earlier asks, not measured yet, are believed to cost what the model predicts (as
  // the kriging believer does): fitted again with them, the model is surer there, so the batch's
  // next asks go elsewhere instead of crowding the same best guess.
  if (std::vector<std::size_t> asked = pending(); !asked.empty()) {
    for (std::size_t c : asked) told.x.push_back(space_.features(c)), told.y.push_back(model.predict(told.x.back()).mean);
    model = ExtraTrees(told.x, told.y, generator_);
  }
  std::vector<std::pair<double, std::size_t>> scored;
  for (std::size_t c : model_pool()) scored.push_back({-expected_improvement(model.predict(space_.features(c)), told.best), c});
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ranked_.clear();
  for (const auto& item : scored) ranked_.push_back(item.second);
}

// --- Bayesian optimisation ---

std::optional<std::size_t> BayesSearch::propose() {
  if (in_random_start() || !best_cost()) return random_unevaluated();
  return propose_by_model();
}

std::vector<std::size_t> BayesSearch::likely_next(std::size_t limit) const { return likely_after_start(model_ranking(limit), limit); }

std::optional<std::size_t> BayesSearch::propose_by_model() {
  if (!model_ || told() - fitted_at_ >= std::max<std::size_t>(1, fitted_at_ / 5))
    fit();
  else
    update();
  std::vector<std::pair<double, std::size_t>> scored = scored_pool();
  auto best = std::min_element(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  last_ = best == scored.end() ? std::nullopt : std::optional<std::size_t>(best->second);
  return last_ ? last_ : random_unevaluated();  // the pool spent before the next fit
}

// One acquisition alone keeps asking alike (expected improvement with an exploration term far
// from the best, without one next to it); in turn, the exploiting two refine what it found.
std::vector<std::pair<double, std::size_t>> BayesSearch::scored_pool() const {
  std::vector<std::pair<std::size_t, Prediction>> open;  // each unevaluated candidate's prediction
  double spread = 0;
  for (std::size_t row = 0; row < pool_.size(); ++row)
    if (!is_evaluated(pool_[row])) open.push_back({pool_[row], model_->predict(row)}), spread += open.back().second.spread;
  double explore = open.empty() ? 0.0 : kExploration * spread / double(open.size());
  double target = scale_.best - explore;
  std::size_t turn = told() % 3;
  std::vector<std::pair<double, std::size_t>> scored;
  for (const auto& [candidate, p] : open) {
    double score = turn == 0 ? -expected_improvement(p, target)
                   : turn == 1 ? -probability_of_improvement(p, target)
                               : p.mean - explore * p.spread;  // the lower confidence bound
    scored.push_back({score, candidate});
  }
  return scored;
}

std::vector<std::size_t> BayesSearch::model_ranking(std::size_t limit) const {
  // One point at a time only: a batch's next asks come from the model with its pending points believed.
  if (!model_ || pending_count() > 1) return {};
  std::vector<std::pair<double, std::size_t>> scored = scored_pool();
  std::size_t count = std::min(limit, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + long(count), scored.end());
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(scored[i].second);
  return out;
}

void BayesSearch::fit() {
  fitted_at_ = synced_ = told();
  scale_ = training_set();
  pool_ = model_pool();
  std::vector<std::vector<double>> features;
  for (std::size_t c : pool_) features.push_back(space_.features(c));
  std::vector<std::size_t> kept = scale_.keep_best(kMaxModelSamples);
  sample_of_.clear();
  for (std::size_t k = 0; k < kept.size(); ++k) sample_of_[history()[kept[k]]] = k;
  model_ = std::make_unique<GaussianProcess>(scale_.x, scale_.y, std::move(features));
  scale_.x.clear(), scale_.y.clear();  // only its scaling and best are kept
  for (std::size_t c : pending()) add_sample(c, model_->predict(space_.features(c)).mean);
}

void BayesSearch::update() {
  for (; synced_ < told(); ++synced_) {
    std::size_t c = history()[synced_];
    double y = scale_.add(cost_of(c));
    if (auto sample = sample_of_.find(c); sample != sample_of_.end())
      model_->revise(sample->second, y);  // believed when asked, told now
    else
      add_sample(c, y);
  }
  if (last_ && !was_told(*last_) && !sample_of_.count(*last_)) add_sample(*last_, model_->predict(space_.features(*last_)).mean);
}

void BayesSearch::add_sample(std::size_t candidate, double y) {
  sample_of_[candidate] = model_->samples();
  model_->add(space_.features(candidate), y);
}

}  // namespace occbench
