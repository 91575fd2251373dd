#include "harness/sweep/point_source.hpp"

#include "harness/family/random.hpp"
#include "harness/sweep/shard.hpp"
#include "harness/sweep/sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <random>

namespace occbench {

namespace {

std::vector<Point> first(const std::vector<Point>& points, std::optional<std::size_t> count) {
  if (!count || *count >= points.size()) return points;
  return {points.begin(), points.begin() + std::ptrdiff_t(*count)};
}

std::vector<Point> random_sample(const std::vector<Point>& points, std::size_t count, std::uint64_t seed) {
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  count = std::min(count, order.size());
  std::mt19937_64 generator(seed);
  for (std::size_t i = 0; i < count; ++i) std::swap(order[i], order[i + uniform_below(generator, order.size() - i)]);
  order.resize(count);
  std::sort(order.begin(), order.end());
  std::vector<Point> sample;
  for (std::size_t i : order) sample.push_back(points[i]);
  return sample;
}

}  // namespace

void drive(PointSource& source, const std::function<nlohmann::ordered_json(const Point&)>& record) {
  while (const Point* point = source.next()) source.tell(*point, record(*point));
}

ExhaustiveSource::ExhaustiveSource(const std::vector<Point>& points, std::optional<std::size_t> max_points)
    : ListSource(first(points, max_points)) {}

ShardShare::ShardShare(const std::vector<Point>& points, const MeasurementSettings& settings, int index, int count)
    : ListSource(select_shard(points, settings, {index, count})) {}

RandomSample::RandomSample(const std::vector<Point>& points, std::size_t max_points, std::uint64_t seed)
    : ListSource(random_sample(points, max_points, seed)) {}

std::vector<Point> selected_points(const SweepSpec& spec, const Registry& registry) {
  std::vector<Point> points = expand_sweep(spec, registry);
  const PointSelection& selection = spec.selection;
  if (selection.shard_count > 0)
    points = ShardShare(points, spec.measurement, selection.shard_index, selection.shard_count).points();
  return points;
}

std::unique_ptr<ListSource> make_point_source(const SweepSpec& spec, const Registry& registry, const Strategy& strategy) {
  std::vector<Point> points = selected_points(spec, registry);
  if (strategy.name == "random") return std::make_unique<RandomSample>(points, *strategy.max_points, strategy.seed);
  return std::make_unique<ExhaustiveSource>(points, strategy.max_points);
}

}  // namespace occbench
