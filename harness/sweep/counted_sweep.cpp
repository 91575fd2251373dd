#include "harness/sweep/counted_sweep.hpp"

#include "harness/family/random.hpp"
#include "harness/sweep/cartesian.hpp"
#include "harness/sweep/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace occbench {

// Named, not in an anonymous namespace: CountedSweep::Block (declared in the header) holds them.
namespace counted_sweep_detail {

using Key = std::vector<std::int64_t>;

struct KeyHash {
  std::size_t operator()(const Key& key) const {
    std::uint64_t h = 1469598103934665603ull;
    for (auto v : key) h = (h ^ std::uint64_t(v)) * 1099511628211ull;
    return std::size_t(h ^ (h >> 29));
  }
};

}  // namespace counted_sweep_detail

using counted_sweep_detail::Key;
using counted_sweep_detail::KeyHash;

// More valid combinations than a 64-bit count holds (20 axes of ten values: 10^20).
struct SpaceTooLarge {};
// Counting would take more than kCountSteps partial points: restrictions that tie far-apart axes
// together leave the walk little to remember (a 3.6 * 10^9 space of eight such axes ran for
// minutes and grew to 24 GB); refused at once instead, within seconds and a bounded memory.
struct SpaceTooCostly {};
constexpr std::uint64_t kCountSteps = 250'000;  // 6 times the largest shipped space's (38,892); 0.3 s natively, 20 times that under the fuzzer's sanitizers

// One size combination and one variant: its axes, walked first to last, and the counts remembered.
struct CountedSweep::Block {
  const Variant* variant = nullptr;
  Params sizes;
  AxisValues axes;
  ChecksByDepth checks;
  // Per depth: the axes bound before it that a restriction decided at or after it reads (all of
  // them where one reads the whole point); what the completions below a partial point depend on.
  std::vector<std::vector<std::size_t>> live;
  mutable std::vector<std::unordered_map<Key, std::uint64_t, KeyHash>> memo;
  // Counts kept, in all blocks (a bound on memory: a block per size combination, each with its own
  // memo, made a space of many sizes grow to gigabytes).
  std::shared_ptr<std::size_t> remembered;
  static constexpr std::size_t kRememberedAtMost = std::size_t(1) << 20;
  std::uint64_t* steps = nullptr;  // while the block is counted: partial points visited, in all blocks
  std::uint64_t total = 0;

  Block(const Variant* v, Params s, AxisValues a, const std::vector<Restriction>& restrictions, const AxisValues& size_axes,
        std::uint64_t& counted_steps, std::shared_ptr<std::size_t> remembered_in_all)
      : variant(v), sizes(std::move(s)), axes(std::move(a)), checks(restrictions_by_depth(restrictions, size_axes, axes)),
        remembered(std::move(remembered_in_all)) {
    find_live_axes();
    memo.resize(axes.size() + 1);
    steps = &counted_steps;
    total = count(0, sizes);
    steps = nullptr;
  }

  void find_live_axes() {
    live.resize(axes.size() + 1);
    std::set<std::string> read;
    bool reads_all = false;
    for (std::size_t depth = axes.size() + 1; depth-- > 0;) {
      for (const Restriction* r : checks[depth]) {
        reads_all = reads_all || r->uses.empty();
        read.insert(r->uses.begin(), r->uses.end());
      }
      for (std::size_t j = 0; j < depth; ++j)
        if (reads_all || read.count(axes[j].first)) live[depth].push_back(j);
    }
  }

  // Remembered below the root and above the leaves, up to a bound on memory: a key of a few axes
  // is shared by many partial points, and building a point asks again for the counts the walk found.
  bool remembers(std::size_t depth) const { return depth > 0 && depth < axes.size() && *remembered < kRememberedAtMost; }

  Key key_of(std::size_t depth, const Params& params) const {
    Key key;
    for (std::size_t j : live[depth]) key.push_back(params.get(axes[j].first));
    return key;
  }

  // The valid completions of `params` (the sizes and the axes before `depth` bound, no others).
  std::uint64_t count(std::size_t depth, const Params& params) const {
    if (steps && ++*steps > kCountSteps) throw SpaceTooCostly();
    Key key;
    if (remembers(depth)) {
      key = key_of(depth, params);
      if (auto found = memo[depth].find(key); found != memo[depth].end()) return found->second;
    }
    if (!allows(depth, params)) return remember(depth, std::move(key), 0);
    if (depth == axes.size()) return 1;
    std::uint64_t n = 0;
    Params next = params;
    for (auto value : axes[depth].second) {
      next.set(axes[depth].first, value);
      if (__builtin_add_overflow(n, count(depth + 1, next), &n)) throw SpaceTooLarge();
    }
    return remember(depth, std::move(key), n);
  }

  std::uint64_t remember(std::size_t depth, Key key, std::uint64_t n) const {
    if (remembers(depth)) *remembered += memo[depth].emplace(std::move(key), n).second;
    return n;
  }

  bool allows(std::size_t depth, const Params& params) const {
    for (const Restriction* r : checks[depth])
      if (!r->allows(params)) return false;
    return true;
  }

  // The valid combination `index` (< total) in the walk's order: at each depth, the value whose
  // completions hold it.
  Params at(std::uint64_t index) const {
    Params params = sizes;
    for (std::size_t depth = 0; depth < axes.size(); ++depth) {
      for (auto value : axes[depth].second) {
        params.set(axes[depth].first, value);
        std::uint64_t below = count(depth + 1, params);
        if (index < below) break;
        index -= below;
      }
    }
    return params;
  }
};

CountedSweep::CountedSweep(const SweepSpec& spec, const Registry& registry, bool check_points) {
  family_ = sweep_family(spec, registry);
  if (!family_) throw std::invalid_argument("unknown family " + spec.family);
  if (!is_countable(spec)) throw std::invalid_argument("a sweep with a --filter is expanded, not counted");
  std::uint64_t steps = 0;
  auto remembered = std::make_shared<std::size_t>(0);
  try {
    cartesian(spec.sizes, ChecksByDepth(spec.sizes.size() + 1), family_->empty_params(), 0, [&](const Params& sizes) {
      for (const auto& variant_name : spec.variants) {
        const Variant* variant = family_->find_variant(variant_name);
        auto block = std::make_unique<Block>(variant, sizes, walked_axis_values(spec, *variant, check_points), spec.restrictions,
                                             spec.sizes, steps, remembered);
        if (block->total == 0) continue;
        starts_.push_back(total_);
        if (__builtin_add_overflow(total_, block->total, &total_)) throw SpaceTooLarge();
        blocks_.push_back(std::move(block));
      }
    });
  } catch (const SpaceTooLarge&) {
    throw ConfigError(spec.source, "$.axes",
                      fmt::format("a space of at most {} (2^64 - 1) valid combinations, which occbench counts exactly; this one "
                                  "holds more (its axes multiply past that under its restrictions): narrow an axis or add a "
                                  "restriction",
                                  std::numeric_limits<std::uint64_t>::max()));
  } catch (const SpaceTooCostly&) {
    throw ConfigError(spec.source, "$.restrictions",
                      fmt::format("restrictions occbench can count the space under in at most {} steps; these tie together axes "
                                  "far apart in $.axes, so counting would visit nearly every combination: put the axes a "
                                  "restriction reads next to each other in $.axes, or narrow them",
                                  kCountSteps));
  }
}

CountedSweep::~CountedSweep() = default;
CountedSweep::CountedSweep(CountedSweep&&) noexcept = default;

Point CountedSweep::at(std::uint64_t index) const {
  if (index >= total_) throw std::out_of_range("point index past the sweep's points");
  std::size_t b = std::size_t(std::upper_bound(starts_.begin(), starts_.end(), index) - starts_.begin()) - 1;
  const Block& block = *blocks_[b];
  Point point;
  point.index = std::size_t(index);
  point.family = family_;
  point.variant = block.variant;
  point.sizes = block.sizes;
  point.params = block.at(index - starts_[b]);
  point.id = point_id(family_->name, block.variant->name, point.params);
  return point;
}

std::vector<Point> CountedSweep::firsts_of_blocks() const {
  std::vector<Point> points;
  for (auto start : starts_) points.push_back(at(start));
  return points;
}

std::vector<Point> CountedSweep::first(std::uint64_t count) const {
  std::vector<Point> points;
  for (std::uint64_t i = 0; i < std::min(count, total_); ++i) points.push_back(at(i));
  return points;
}

std::vector<Point> CountedSweep::sample(std::uint64_t count, std::uint64_t seed, bool in_sweep_order) const {
  std::vector<std::uint64_t> order = distinct_below(total_, count, seed);
  if (in_sweep_order) std::sort(order.begin(), order.end());
  std::vector<Point> points;
  for (auto index : order) points.push_back(at(index));
  return points;
}

}  // namespace occbench
