#pragma once
// A sweep's points counted, drawn and built one at a time, never all expanded: how plan, validate,
// run --dry-run, a random sample and a search reach spaces of 10^8 combinations. Each block (a
// size combination and a variant) is walked as expand_sweep walks it, each restriction decided as
// soon as its names are bound, and the number of valid completions below a partial point is
// remembered by the values the restrictions still to come read (two partial points that agree on
// those have as many completions): a space whose restrictions each read a few axes is counted in
// far fewer steps than it has points. Point i is expand_sweep's point i (same id, same index).
#include "harness/family/point.hpp"
#include "harness/family/registry.hpp"
#include "harness/sweep/spec.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace occbench {

class CountedSweep {
 public:
  // `spec` must outlive this (its family and restrictions are used, not copied). With
  // check_points, every variant's own axes must all have values (the config was validated).
  // Throws std::invalid_argument where the spec has a --filter: ids are matched one by one, so a
  // filtered sweep is expanded (is_countable says which).
  CountedSweep(const SweepSpec& spec, const Registry& registry, bool check_points = true);
  ~CountedSweep();
  CountedSweep(CountedSweep&&) noexcept;

  static bool is_countable(const SweepSpec& spec) { return spec.selection.filter.empty(); }

  std::uint64_t size() const { return total_; }
  // expand_sweep's point `index` (< size()).
  Point at(std::uint64_t index) const;
  // The first point of each size combination and variant that has one.
  std::vector<Point> firsts_of_blocks() const;
  // The first `count` points (or all).
  std::vector<Point> first(std::uint64_t count) const;
  // `count` distinct points drawn uniformly, the same draw random_sample makes from the expanded
  // list for this seed (a partial Fisher-Yates shuffle, kept sparse); in sweep order or drawn order.
  std::vector<Point> sample(std::uint64_t count, std::uint64_t seed, bool in_sweep_order) const;

 private:
  struct Block;
  const Family* family_ = nullptr;
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<std::uint64_t> starts_;  // each block's first index
  std::uint64_t total_ = 0;
};

}  // namespace occbench
