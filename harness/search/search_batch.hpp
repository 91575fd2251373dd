#pragma once
// A search's batch in progress, as candidates: what the strategy proposed before it needs results
// (Searcher::ask_batch), which of them were handed out to be measured, and the results in so far
// (in any order). The live search (search_source) and its simulation (live_model) share it, so the
// simulation offers the compile workers what the run does.
#include "harness/search/searcher.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace occbench {

struct SearchBatch {
  std::vector<std::size_t> members;  // candidates, in the strategy's order
  std::vector<char> handed;          // given out to be measured
  std::vector<std::optional<std::optional<double>>> results;  // in, in any order (none: no value)
  std::vector<double> compile_s;                              // each kernel's NVRTC seconds, with its result

  explicit SearchBatch(std::vector<std::size_t> asked = {});
  // The member with the lowest cost in so far, if any has one.
  std::optional<std::size_t> best() const;
  // The member's index, or nullopt where the candidate is not in the batch.
  std::optional<std::size_t> index_of(std::size_t candidate) const;
  // The results in, told in the strategy's order (a time limit may cut a batch); then empty.
  void tell(Searcher& searcher);
  // What the search is likely to ask for next, most wanted first, at most `limit`: the batch's
  // points not handed out yet, then the neighbours of its best result so far where that beats the
  // best before it (where a local search goes next, known before the batch ends), then the
  // strategy's own guess (Searcher::likely_next).
  std::vector<std::size_t> likely_next(const Searcher& searcher, const SearchSpace& space, std::size_t limit) const;
};

}  // namespace occbench
