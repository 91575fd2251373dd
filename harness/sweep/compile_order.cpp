#include "harness/sweep/compile_order.hpp"

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
  double y = log_ms(compile_ms);
  all_.sum += y, ++all_.count;
  for (const auto& [name, value] : params.items()) {
    Mean& mean = by_value_[name][value];
    mean.sum += y, ++mean.count;
  }
}

std::optional<double> CompileCostGuess::guess_log_ms(const Params& params) const {
  if (all_.count < kMinSamples) return std::nullopt;
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
      params_(std::move(params)),
      cache_dir_(std::move(cache_dir)),
      order_(walk_order(requests_.size(), index, count)),
      settled_(requests_.size(), 0) {}

// The next kWindow requests in this worker's order that no process has compiled or claimed;
// those found compiled elsewhere are learned from, those claimed elsewhere left to their process.
std::vector<std::size_t> CompileTurns::open_window() {
  std::vector<std::size_t> open;
  for (std::size_t k = cursor_; k < order_.size() && open.size() < kWindow; ++k) {
    std::size_t i = order_[k];
    if (settled_[i]) continue;
    CompileState state = nvrtc_cache_state(requests_[i], cache_dir_);
    if (state == CompileState::not_compiled) {
      open.push_back(i);
      continue;
    }
    settled_[i] = 1;
    if (state == CompileState::compiled)
      if (auto ms = nvrtc_cached_compile_ms(requests_[i], cache_dir_)) guess_.add(params_[i], *ms);
  }
  while (cursor_ < order_.size() && settled_[order_[cursor_]]) ++cursor_;
  return open;
}

std::optional<std::size_t> CompileTurns::next() {
  std::vector<std::size_t> open = open_window();
  if (open.empty()) return std::nullopt;
  std::size_t chosen = open.front();
  std::optional<double> costliest = guess_.guess_log_ms(params_[chosen]);
  for (std::size_t i : open) {
    std::optional<double> guess = guess_.guess_log_ms(params_[i]);
    if (guess && costliest && *guess > *costliest) chosen = i, costliest = guess;
  }
  settled_[chosen] = 1;
  return chosen;
}

void CompileTurns::compiled(std::size_t i, double compile_ms) {
  if (compile_ms > 0) guess_.add(params_[i], compile_ms);
}

}  // namespace occbench
