#include "harness/compile/compile_order.hpp"

#include <algorithm>
#include <cmath>

namespace occbench {

namespace {

// Each worker starts at its own request (index) and walks on through all of them; a lone worker
// (two cores) starts from the end while the measuring process compiles from the start what it
// needs: they meet, and neither waits for the other.
std::vector<std::size_t> walk_order(std::size_t n, unsigned index, unsigned count) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i) order.push_back(count == 1 ? n - 1 - i : (index + i) % n);
  return order;
}

double log_ms(double compile_ms) { return std::log(std::max(compile_ms, 1.0)); }

}  // namespace

void CompileCostGuess::add(const Params& params, double compile_ms) {
  add_log(params, log_ms(compile_ms));
  ++finished_;
}

void CompileCostGuess::add_unfinished(const Params& params, double at_least_ms) { add_log(params, log_ms(at_least_ms)); }

void CompileCostGuess::add_log(const Params& params, double y) {
  all_.sum += y, ++all_.count;
  for (const auto& [name, value] : params.items()) {
    Mean& mean = by_value_[name][value];
    mean.sum += y, ++mean.count;
  }
}

std::optional<double> CompileCostGuess::guess_log_ms(const Params& params) const {
  if (finished_ < min_samples_) return std::nullopt;
  double mean = all_.value(), guess = mean;
  for (const auto& [name, value] : params.items()) {
    auto seen = by_value_.find(name);
    if (seen == by_value_.end()) continue;
    auto same = seen->second.find(value);
    if (same != seen->second.end()) {
      guess += same->second.value() - mean;
      continue;
    }
    double costliest = mean;  // a value not seen yet: not finished yet, like the costliest of its parameter
    for (const auto& [other, m] : seen->second) costliest = std::max(costliest, m.value());
    guess += costliest - mean;
  }
  return guess;
}

CompileTurns::CompileTurns(std::vector<NvrtcRequest> requests, std::vector<Params> params, unsigned index, unsigned count,
                           std::string cache_dir)
    : requests_(std::move(requests)),
      entries_(requests_.size()),
      params_(std::move(params)),
      cache_dir_(std::move(cache_dir)),
      order_(walk_order(requests_.size(), index, count)),
      settled_(requests_.size(), 0) {}

const NvrtcCacheEntry& CompileTurns::entry(std::size_t i) {
  if (!entries_[i]) entries_[i].emplace(requests_[i], cache_dir_);
  return *entries_[i];
}

// The next kWindow requests in this worker's order that no process has compiled or claimed;
// those compiled or claimed elsewhere are left to their process, their times learned (guess_now).
std::vector<std::size_t> CompileTurns::open_window() {
  std::vector<std::size_t> open;
  for (std::size_t k = cursor_; k < order_.size() && open.size() < kWindow; ++k) {
    std::size_t i = order_[k];
    if (settled_[i]) continue;
    if (entry(i).state() == CompileState::not_compiled) {
      open.push_back(i);
      continue;
    }
    settled_[i] = 1;
    elsewhere_.push_back(i);
  }
  while (cursor_ < order_.size() && settled_[order_[cursor_]]) ++cursor_;
  return open;
}

// The finished compilations of other processes learned for good; those still running added to a
// copy, each as taking at least as long as it has so far and as was guessed from the finished.
CompileCostGuess CompileTurns::guess_now() {
  std::vector<std::pair<std::size_t, double>> running;
  std::vector<std::size_t> unfinished;
  for (std::size_t i : elsewhere_) {
    std::optional<CompileTime> time = entry(i).compile_time();
    if (!time) continue;  // given up (failed, its process gone) or no time kept: nothing to learn
    if (time->finished) {
      guess_.add(params_[i], time->ms);
      continue;
    }
    running.emplace_back(i, time->ms);
    unfinished.push_back(i);
  }
  elsewhere_ = std::move(unfinished);
  CompileCostGuess guess = guess_;
  for (const auto& [i, ms] : running) {
    std::optional<double> guessed = guess_.guess_log_ms(params_[i]);
    guess.add_unfinished(params_[i], guessed ? std::max(ms, std::exp(*guessed)) : ms);
  }
  return guess;
}

std::optional<std::size_t> CompileTurns::next() {
  std::vector<std::size_t> open = open_window();
  if (open.empty()) return std::nullopt;
  CompileCostGuess now = guess_now();
  std::size_t chosen = open.front();
  std::optional<double> costliest = now.guess_log_ms(params_[chosen]);
  for (std::size_t i : open) {
    std::optional<double> guess = now.guess_log_ms(params_[i]);
    if (guess && costliest && *guess > *costliest) chosen = i, costliest = guess;
  }
  settled_[chosen] = 1;
  return chosen;
}

void CompileTurns::compiled(std::size_t i, double compile_ms) {
  if (compile_ms > 0) guess_.add(params_[i], compile_ms);
}

}  // namespace occbench
