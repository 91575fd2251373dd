#include "harness/search/search_batch.hpp"

#include <algorithm>

namespace occbench {

SearchBatch::SearchBatch(std::vector<std::size_t> asked)
    : members(std::move(asked)), handed(members.size(), 0), results(members.size()), compile_s(members.size(), 0.0) {}

std::optional<std::size_t> SearchBatch::index_of(std::size_t candidate) const {
  auto found = std::find(members.begin(), members.end(), candidate);
  return found == members.end() ? std::nullopt : std::optional<std::size_t>(std::size_t(found - members.begin()));
}

void SearchBatch::tell(Searcher& searcher) {
  for (std::size_t i = 0; i < members.size(); ++i)
    if (results[i]) {
      searcher.tell_compile_s(members[i], compile_s[i]);
      searcher.tell(members[i], *results[i]);
    }
  *this = SearchBatch{};
}

std::optional<std::size_t> SearchBatch::best() const {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < members.size(); ++i)
    if (results[i] && *results[i] && (!best || **results[i] < **results[*best])) best = i;
  return best;
}

std::vector<std::size_t> SearchBatch::likely_next(const Searcher& searcher, const SearchSpace& space, std::size_t limit) const {
  std::vector<std::size_t> likely;
  for (std::size_t i = 0; i < members.size() && likely.size() < limit; ++i)
    if (!handed[i]) likely.push_back(members[i]);
  std::optional<std::size_t> best = this->best();
  if (best && (!searcher.best_cost() || **results[*best] < *searcher.best_cost()))
    for (std::size_t n : space.neighbours(members[*best]))
      if (likely.size() < limit && !searcher.is_evaluated(n)) likely.push_back(n);
  for (std::size_t candidate : searcher.likely_next(limit)) likely.push_back(candidate);
  return likely;
}

}  // namespace occbench
