#include "harness/sweep/point_source.hpp"

#include "harness/sweep/shard.hpp"
#include "harness/sweep/sweep.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <random>

namespace occbench {

namespace {

// A uniform integer in [0, n) from the generator's raw output (rejecting the biased top), so a
// seed draws the same sample with every standard library (uniform_int_distribution may not).
std::uint64_t uniform_below(std::mt19937_64& generator, std::uint64_t n) {
  const std::uint64_t biased_below = (0 - n) % n;
  std::uint64_t r = generator();
  while (r < biased_below) r = generator();
  return r % n;
}

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

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {"exhaustive", "random"};
  return names;
}

void check_strategy(const Strategy& strategy) {
  const auto& names = strategy_names();
  if (std::find(names.begin(), names.end(), strategy.name) == names.end())
    throw ConfigError("command line", "--strategy " + strategy.name, fmt::format("expected one of: {}", fmt::join(names, ", ")));
  if (strategy.name == "random" && !strategy.max_points)
    throw ConfigError("command line", "--strategy random", "expected --max-points N: how many points to sample");
  if (strategy.max_points && *strategy.max_points == 0)
    throw ConfigError("command line", "--max-points 0", "expected at least 1 point");
}

nlohmann::ordered_json to_json(const Strategy& strategy) {
  nlohmann::ordered_json j = {{"name", strategy.name}, {"max_points", nullptr}, {"seed", strategy.seed}};
  if (strategy.max_points) j["max_points"] = *strategy.max_points;
  return j;
}

Strategy strategy_from_json(const nlohmann::ordered_json& json, const std::string& source) {
  Strategy strategy;
  try {
    strategy.name = json.at("name").get<std::string>();
    if (!json.at("max_points").is_null()) strategy.max_points = json.at("max_points").get<std::size_t>();
    strategy.seed = json.at("seed").get<std::uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(source, "strategy", fmt::format("expected {{\"name\", \"max_points\", \"seed\"}}: {}", e.what()));
  }
  return strategy;
}

ExhaustiveSource::ExhaustiveSource(const std::vector<Point>& points, std::optional<std::size_t> max_points)
    : ListSource(first(points, max_points)) {}

ShardShare::ShardShare(const std::vector<Point>& points, const MeasurementSettings& settings, int index, int count)
    : ListSource(select_shard(points, settings, {index, count})) {}

RandomSample::RandomSample(const std::vector<Point>& points, std::size_t max_points, std::uint64_t seed)
    : ListSource(random_sample(points, max_points, seed)) {}

std::unique_ptr<ListSource> make_point_source(const SweepSpec& spec, const Registry& registry, const Strategy& strategy) {
  std::vector<Point> points = expand_sweep(spec, registry);
  const PointSelection& selection = spec.selection;
  if (selection.shard_count > 0)
    points = ShardShare(points, spec.measurement, selection.shard_index, selection.shard_count).points();
  if (strategy.name == "random") return std::make_unique<RandomSample>(points, *strategy.max_points, strategy.seed);
  return std::make_unique<ExhaustiveSource>(points, strategy.max_points);
}

}  // namespace occbench
