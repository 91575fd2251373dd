#include "harness/sweep/point_source.hpp"

#include "harness/family/random.hpp"
#include "harness/sweep/counted_sweep.hpp"
#include "harness/sweep/shard.hpp"
#include "harness/sweep/sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

namespace occbench {

namespace {

std::vector<Point> first(const std::vector<Point>& points, std::optional<std::size_t> count) {
  if (!count || *count >= points.size()) return points;
  return {points.begin(), points.begin() + std::ptrdiff_t(*count)};
}

// `in_sweep_order`: measured in the sweep's order (each problem built once); else in the order
// drawn, so that any prefix of it is a uniform sample too (a run a time limit stops).
std::vector<Point> random_sample(const std::vector<Point>& points, std::size_t count, std::uint64_t seed, bool in_sweep_order) {
  std::vector<std::uint64_t> order = distinct_below(points.size(), count, seed);
  if (in_sweep_order) std::sort(order.begin(), order.end());
  std::vector<Point> sample;
  for (auto i : order) sample.push_back(points[std::size_t(i)]);
  return sample;
}

}  // namespace

void drive(PointSource& source, const std::function<nlohmann::ordered_json(const Point&)>& record) {
  while (const Point* point = source.next()) source.tell(*point, record(*point));
}

std::size_t ReadiestFirst::pick(std::size_t count, const std::function<const Point&(std::size_t)>& candidate) {
  if (!readiness_) return 0;
  auto start = std::chrono::steady_clock::now();
  auto chosen = [&](std::size_t i) {
    waited_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return i;
  };
  for (;;) {
    std::optional<std::size_t> to_compile;
    bool compiling_elsewhere = false;
    for (std::size_t i = 0; i < count; ++i) {
      Readiness readiness = readiness_(candidate(i));
      if (readiness == Readiness::kept || readiness == Readiness::compiled) return chosen(i);
      if (readiness == Readiness::compile_here && !to_compile) to_compile = i;
      compiling_elsewhere = compiling_elsewhere || readiness == Readiness::compiling_elsewhere;
    }
    if (to_compile && (compile_here_alongside_ || !compiling_elsewhere)) return chosen(*to_compile);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the first another process compiles goes first
  }
}

double ReadiestFirst::take_waited_s() { return std::exchange(waited_s_, 0.0); }

const Point* ListSource::next() {
  if (time_limit_s_ && spent_s_ >= *time_limit_s_) return nullptr;
  while (position_ < points_.size() && given_[position_]) ++position_;
  if (position_ >= points_.size()) return nullptr;
  std::size_t chosen = position_;
  if (ready_ && !time_limit_s_) {
    std::vector<std::size_t> window = ready_window();
    chosen = window[ready_.pick(window.size(), [&](std::size_t i) -> const Point& { return points_[window[i]]; })];
  }
  given_[chosen] = 1;
  return &points_[chosen];
}

// The next points not given, up to kReadyWindow, while they share the first one's problem (its
// family and sizes: each problem is built once).
std::vector<std::size_t> ListSource::ready_window() const {
  const Point& first = points_[position_];
  std::vector<std::size_t> window;
  for (std::size_t i = position_; i < points_.size() && window.size() < kReadyWindow; ++i) {
    if (points_[i].family != first.family || !(points_[i].sizes == first.sizes)) break;
    if (!given_[i]) window.push_back(i);
  }
  return window;
}

void ListSource::tell(const Point& point, const nlohmann::ordered_json& record) {
  (void)point;
  // The points' own measuring time (time_use.point_s, kept in the record): a resumed run counts
  // its kept records the same and stops where the killed run would have.
  if (record.contains("time_use") && record["time_use"].is_object() && record["time_use"].contains("point_s") &&
      record["time_use"]["point_s"].is_number())
    spent_s_ += record["time_use"]["point_s"].get<double>();
}

ExhaustiveSource::ExhaustiveSource(const std::vector<Point>& points, std::optional<std::size_t> max_points)
    : ListSource(first(points, max_points)) {}

ShardShare::ShardShare(const std::vector<Point>& points, const MeasurementSettings& settings, int index, int count)
    : ListSource(select_shard(points, settings, {index, count})) {}

RandomSample::RandomSample(const std::vector<Point>& points, std::size_t max_points, std::uint64_t seed, bool in_sweep_order)
    : ListSource(random_sample(points, max_points, seed, in_sweep_order)) {}

void check_listable(const SweepSpec& spec, const Registry& registry) {
  SweepSpec unfiltered = spec;
  unfiltered.selection.filter.clear();
  if (!CountedSweep::is_countable(unfiltered)) return;
  std::uint64_t count = CountedSweep(unfiltered, registry, false).size();
  if (count <= kListedAtMost) return;
  const PointSelection& s = spec.selection;
  std::string what = s.shard_count > 0 ? fmt::format("--shard {}/{}", s.shard_index, s.shard_count)
                     : !s.filter.empty() ? "--filter " + s.filter
                                         : std::string("$");
  throw ConfigError(spec.source, what,
                    fmt::format("a sweep of at most {} points, which this lists one by one; this one has {}: narrow it (--set, "
                                "restrictions) or measure a sample (--strategy random --max-points N)",
                                kListedAtMost, count));
}

std::vector<Point> selected_points(const SweepSpec& spec, const Registry& registry) {
  check_listable(spec, registry);
  std::vector<Point> points = expand_sweep(spec, registry);
  const PointSelection& selection = spec.selection;
  if (selection.shard_count > 0)
    points = ShardShare(points, spec.measurement, selection.shard_index, selection.shard_count).points();
  return points;
}

namespace {

// A random sample or the first points of a sweep too large to expand, drawn from its count (the
// same points the expanded list gives); nullptr where the sweep is small enough to expand, or a
// shard or --filter needs every point.
std::unique_ptr<ListSource> counted_source(const SweepSpec& spec, const Registry& registry, const Strategy& strategy) {
  bool random = strategy.name == "random";
  if (!CountedSweep::is_countable(spec) || spec.selection.shard_count > 0 || (!random && !strategy.max_points)) return nullptr;
  CountedSweep counted(spec, registry);
  if (counted.size() <= kExpandedUpTo) return nullptr;
  if (!random) return std::make_unique<ExhaustiveSource>(counted.first(*strategy.max_points), std::nullopt);
  std::uint64_t count = strategy.max_points.value_or(std::min<std::uint64_t>(counted.size(), kDrawnAtMost));
  return std::make_unique<ExhaustiveSource>(counted.sample(count, strategy.seed, /*in_sweep_order=*/!strategy.time_limit_s),
                                            std::nullopt);
}

}  // namespace

std::vector<Point> search_candidates(const SweepSpec& spec, const Registry& registry, const Strategy& strategy) {
  if (CountedSweep::is_countable(spec) && spec.selection.shard_count == 0) {
    CountedSweep counted(spec, registry);
    if (counted.size() > kSearchCandidatesAtMost) return counted.sample(kSearchCandidatesAtMost, strategy.seed, true);
  }
  return selected_points(spec, registry);
}

std::unique_ptr<ListSource> make_point_source(const SweepSpec& spec, const Registry& registry, const Strategy& strategy) {
  std::unique_ptr<ListSource> source = counted_source(spec, registry, strategy);
  if (source) {
    source->set_time_limit(strategy.time_limit_s);
    return source;
  }
  std::vector<Point> points = selected_points(spec, registry);
  if (strategy.name == "random")
    source = std::make_unique<RandomSample>(points, strategy.max_points.value_or(points.size()), strategy.seed,
                                            /*in_sweep_order=*/!strategy.time_limit_s);
  else
    source = std::make_unique<ExhaustiveSource>(points, strategy.max_points);
  source->set_time_limit(strategy.time_limit_s);
  return source;
}

}  // namespace occbench
