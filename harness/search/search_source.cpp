#include "harness/search/search_source.hpp"

#include <map>

namespace occbench {

Coordinates point_coordinates(const Point& point) {
  Coordinates coordinates = {{"variant", point.variant->name}};
  for (const auto& [name, value] : point.params.items())
    if (!point.sizes.has(name)) coordinates.emplace_back(name, value);
  return coordinates;
}

SearchSource::SearchSource(std::vector<Point> points, const Strategy& strategy)
    : points_(std::move(points)), objective_(parse_objective(strategy.objective)) {
  std::map<std::string, std::size_t> group_of_sizes;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    auto [found, added] = group_of_sizes.emplace(points_[i].sizes.to_string(), groups_.size());
    if (added) groups_.emplace_back();
    groups_[found->second].members.push_back(i);
  }
  std::size_t count = groups_.size();
  for (std::size_t g = 0; g < count; ++g) {
    Group& group = groups_[g];
    std::vector<Coordinates> candidates;
    for (std::size_t i : group.members) candidates.push_back(point_coordinates(points_[i]));
    group.space = std::make_unique<SearchSpace>(candidates);
    group.searcher = make_searcher(strategy.name, *group.space, strategy.seed + g);
    group.budget = group.members.size();
    if (strategy.max_points) group.budget = std::min(group.budget, *strategy.max_points / count + (g < *strategy.max_points % count));
  }
  if (strategy.time_limit_s && count > 0) seconds_per_group_ = *strategy.time_limit_s / double(count);
}

bool SearchSource::exhausted(const Group& group) const {
  return group.told >= group.budget || (seconds_per_group_ && group.seconds >= *seconds_per_group_);
}

const Point* SearchSource::next() {
  if (lost_) return nullptr;
  for (; current_ < groups_.size(); ++current_) {
    Group& group = groups_[current_];
    if (exhausted(group)) continue;
    asked_ = group.searcher->ask();
    if (asked_) return &points_[group.members[*asked_]];
  }
  return nullptr;
}

void SearchSource::tell(const Point& point, const nlohmann::ordered_json& record) {
  if (!asked_ || current_ >= groups_.size()) return;
  Group& group = groups_[current_];
  if (&points_[group.members[*asked_]] != &point) return;  // not the point asked for
  std::optional<double> value = objective_value(record, objective_);
  if (value && objective_.maximize) *value = -*value;
  group.searcher->tell(*asked_, value);
  ++group.told;
  if (record.contains("time_use") && record["time_use"].contains("point_s") && record["time_use"]["point_s"].is_number())
    group.seconds += record["time_use"]["point_s"].get<double>();
  asked_.reset();
}

std::size_t SearchSource::planned() const {
  std::size_t total = 0;
  for (const auto& group : groups_) total += group.budget;
  return total;
}

}  // namespace occbench
