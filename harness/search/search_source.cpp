#include "harness/search/search_source.hpp"

#include "harness/core/json.hpp"
#include "harness/measure/point.hpp"
#include "harness/records/time_use.hpp"
#include "harness/sweep/claims.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace occbench {

namespace fs = std::filesystem;

namespace {

// The name of slot k of a space's budget in the slots folder.
std::string slot_id(std::size_t space, std::size_t k) { return fmt::format("space{}-slot{}", space, k); }

}  // namespace

Coordinates point_coordinates(const Point& point) {
  Coordinates coordinates = {{"variant", point.variant->name}};
  // A labelled axis as its label: a string or boolean is categorical (SearchDimension::ordered), a float ordered.
  const ordered_json params = params_json(point.params);  // kept: items() of a temporary would dangle
  for (const auto& item : params.items())
    if (!point.sizes.has(item.key())) coordinates.emplace_back(item.key(), nlohmann::json(item.value()));
  return coordinates;
}

SearchSource::SearchSource(std::vector<Point> points, const Strategy& strategy)
    : points_(std::move(points)), strategy_(strategy.name), objective_(parse_objective(strategy.objective)) {
  std::map<std::string, std::size_t> group_of_sizes;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    auto [found, added] = group_of_sizes.emplace(points_[i].sizes.to_string(), groups_.size());
    if (added) groups_.emplace_back();
    place_[points_[i].id] = {found->second, groups_[found->second].members.size()};
    groups_[found->second].members.push_back(i);
  }
  std::size_t count = groups_.size();
  for (std::size_t g = 0; g < count; ++g) {
    Group& group = groups_[g];
    std::vector<Coordinates> candidates;
    for (std::size_t i : group.members) candidates.push_back(point_coordinates(points_[i]));
    group.space = std::make_unique<SearchSpace>(candidates);
    group.budget = group.members.size();
    if (strategy.max_points) group.budget = std::min(group.budget, *strategy.max_points / count + (g < *strategy.max_points % count));
    group.seed = strategy.seed + g;
    group.walkers = std::make_unique<SearchWalkers>(strategy.name, *group.space, group.seed, group.budget);
  }
  if (strategy.time_limit_s && count > 0) seconds_per_group_ = *strategy.time_limit_s / double(count);
}

bool SearchSource::exhausted(const Group& group) const { return group.walkers->told() >= group.budget || out_of_time(group); }

bool SearchSource::out_of_time(const Group& group) const { return seconds_per_group_ && group.seconds >= *seconds_per_group_; }

void SearchSource::set_batches(std::size_t size, ReadinessOf readiness, bool compile_here_alongside, std::function<void()> offer) {
  batch_size_ = std::max<std::size_t>(1, size);
  ready_ = ReadiestFirst(std::move(readiness), compile_here_alongside);
  offer_ = std::move(offer);
  if (batch_size_ <= 1) return;
  for (Group& group : groups_) {
    std::size_t walkers = walkers_for(strategy_, group.budget);
    group.walkers = adaptive_ ? std::make_unique<SearchWalkers>(strategy_, *group.space, group.seed, group.budget,
                                                                AdaptiveBatches{walkers, BatchWidthRule{batch_size_}})
                              : std::make_unique<SearchWalkers>(strategy_, *group.space, group.seed, group.budget, walkers);
  }
}

void SearchSource::note_widths(Group& group) {
  const auto& changes = group.walkers->width_changes();
  for (; note_ && group.widths_noted < changes.size(); ++group.widths_noted) {
    const auto& change = changes[group.widths_noted];
    std::string space = groups_.size() > 1 ? fmt::format("space {} of {}, ", &group - groups_.data() + 1, groups_.size()) : "";
    note_(fmt::format("search: {}from point {}: {}", space, change.after_points + 1, describe(change.width, group.walkers->rule())));
  }
}

const Point* SearchSource::next_of_batch() {
  for (; current_ < groups_.size() && !lost_; ++current_) {
    Group& group = groups_[current_];
    if (!out_of_time(group)) {
      std::size_t asked = group.walkers->asked();
      group.walkers->ask(adaptive_ ? 0 : batch_size_);
      note_widths(group);
      if (offer_ && group.walkers->asked() > asked) offer_();
      if (const Point* point = readiest_of_batch(group)) return point;
    }
    group.walkers->tell_what_came_in();
  }
  return nullptr;
}

// The batches' point not given out yet that is readiest, the walkers' and strategy's order breaking ties.
const Point* SearchSource::readiest_of_batch(Group& group) {
  std::vector<SearchWalkers::Member> open = group.walkers->open();
  if (open.empty()) return nullptr;
  auto point_of = [&](std::size_t k) -> const Point& { return points_[group.members[open[k].candidate]]; };
  std::size_t chosen = ready_.pick(open.size(), point_of);
  group.walkers->hand(open[chosen]);
  return &point_of(chosen);
}

const Point* SearchSource::next() {
  if (lost_) return nullptr;
  before_choosing();
  if (batch_size_ > 1) return next_of_batch();
  for (; current_ < groups_.size() && !lost_; ++current_) {
    Group& group = groups_[current_];
    while (!exhausted(group) && !lost_) {
      std::optional<std::size_t> asked = group.walkers->first().ask();
      if (!asked) break;
      const Point& point = points_[group.members[*asked]];
      Take taken = take(point, current_);
      if (taken == Take::mine) return &point;
      if (taken == Take::budget_spent) break;
      group.walkers->first().reserve(*asked);  // another worker measures it; its record comes later
    }
  }
  return nullptr;
}

void SearchSource::tell(const Point& point, const nlohmann::ordered_json& record) { learn(point.id, record); }

std::vector<const Point*> SearchSource::likely_next(std::size_t limit) const {
  std::vector<const Point*> likely;
  if (current_ >= groups_.size()) return likely;
  const Group& group = groups_[current_];
  for (std::size_t candidate : group.walkers->likely_next(limit))
    likely.push_back(&points_[group.members[candidate]]);
  return likely;
}

void SearchSource::learn(const std::string& point_id, const nlohmann::ordered_json& record) {
  auto found = place_.find(point_id);
  if (found == place_.end()) return;
  auto [g, candidate] = found->second;
  Group& group = groups_[g];
  if (group.walkers->was_told(candidate)) return;  // a record read again (a shared search reads its own too)
  std::optional<double> value = objective_value(record, objective_);
  if (value && objective_.maximize) *value = -*value;
  double point_s = number_at(record, "time_use", "point_s", 0.0);
  group.seconds += point_s;
  // The kernel's compile seconds whoever compiled it, whenever: a warm cache gives the same widths
  // as a cold one, so the same seed and records give the same search.
  double compile_s = kernel_compile_s(record);
  if (group.walkers->result(candidate, value, {compile_s, point_s})) return;  // told with the rest of its batch
  group.walkers->first().tell_compile_s(candidate, compile_s);
  group.walkers->first().tell(candidate, value);
}

std::size_t SearchSource::planned() const {
  std::size_t total = 0;
  for (const auto& group : groups_) total += group.budget;
  return total;
}

SharedSearchSource::SharedSearchSource(std::vector<Point> points, const Strategy& strategy, std::string claim_dir)
    : SearchSource(std::move(points), strategy),
      claim_dir_(std::move(claim_dir)),
      parts_dir_(fs::path(claim_dir_).parent_path().string()),
      slots_dir_((fs::path(parts_dir_) / "slots").string()) {
  fs::create_directories(slots_dir_);
  // A resumed search: the points recorded so far hold the first slots (every worker takes the
  // same ones; run --resume dropped those of points claimed but never recorded).
  before_choosing();
  for (std::size_t space = 0; space < spaces_count(); ++space)
    for (std::size_t k = 0; k < told_of(space); ++k) claim_point(slots_dir_, slot_id(space, k));
}

// The new complete lines of every worker's part (.jsonl files in the folders beside the claims).
void SharedSearchSource::before_choosing() {
  std::error_code ec;
  for (const auto& folder : fs::directory_iterator(parts_dir_, ec)) {
    if (!folder.is_directory() || folder.path() == fs::path(claim_dir_) || folder.path() == fs::path(slots_dir_)) continue;
    for (const auto& file : fs::directory_iterator(folder.path(), ec)) {
      if (file.path().extension() != ".jsonl") continue;
      std::ifstream in(file.path(), std::ios::binary);
      std::size_t& offset = read_bytes_[file.path().string()];
      in.seekg(std::streamoff(offset));
      std::string line;
      while (std::getline(in, line) && !in.eof()) {  // a last line without its newline is still being written
        offset += line.size() + 1;
        auto record = nlohmann::ordered_json::parse(line, nullptr, false);
        if (record.is_object() && record.contains("point_id")) learn(record["point_id"].get<std::string>(), record);
      }
    }
  }
}

SearchSource::Take SharedSearchSource::take(const Point& point, std::size_t space) {
  if (!claim_point(claim_dir_, point.id)) return Take::elsewhere;
  if (take_slot(space)) return Take::mine;
  release_claim(claim_dir_, point.id);  // the budget is spent: the point is given back
  return Take::budget_spent;
}

// A slot of the space's budget, the first free one (O_EXCL files, as the claims).
bool SharedSearchSource::take_slot(std::size_t space) {
  for (std::size_t k = 0; k < budget_of(space); ++k)
    if (claim_point(slots_dir_, slot_id(space, k))) return true;
  return false;
}

}  // namespace occbench
