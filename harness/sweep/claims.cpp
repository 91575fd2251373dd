#include "harness/sweep/claims.hpp"

#include "harness/sweep/shard.hpp"
#include "harness/core/files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <unistd.h>

namespace occbench {

namespace fs = std::filesystem;

namespace {

// A file name for a point id ("family/variant/n=1 block=2" has slashes and spaces): its
// characters kept where safe, the rest as hex, so two ids never share a name.
std::string claim_file_name(const std::string& point_id) {
  std::string name;
  for (unsigned char c : point_id) {
    if (std::isalnum(c) || c == '=' || c == '-' || c == '.') name += char(c);
    else name += fmt::format("_{:02x}", c);
  }
  return name;
}

// claim_file_name undone: every '_' starts a hex byte ('_' itself is written as "_5f").
std::string point_id_of_claim_file(const std::string& name) {
  std::string id;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '_' && i + 2 < name.size()) {
      id += char(std::stoi(name.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      id += name[i];
    }
  }
  return id;
}

// ':' never starts a point id's file name.
const std::string kGroupPrefix = "group:";

}  // namespace

bool claim_point(const std::string& claim_dir, const std::string& point_id) {
  std::string path = (fs::path(claim_dir) / claim_file_name(point_id)).string();
  int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
  if (fd >= 0) {
    ::close(fd);
    return true;
  }
  if (errno == EEXIST) return false;
  throw std::runtime_error(fmt::format("{}: cannot create the claim of point {}: {}", path, point_id, std::strerror(errno)));
}

void release_claim(const std::string& claim_dir, const std::string& point_id) {
  std::error_code ec;
  fs::remove(fs::path(claim_dir) / claim_file_name(point_id), ec);
}

void mark_claimed(const std::string& claim_dir, const std::vector<std::string>& point_ids) {
  for (const auto& id : point_ids) claim_point(claim_dir, id);
}

bool is_claimed(const std::string& claim_dir, const std::string& point_id) {
  return fs::exists(fs::path(claim_dir) / claim_file_name(point_id));
}

bool claim_group(const std::string& claim_dir, const std::string& group_key, const std::string& owner) {
  std::string path = (fs::path(claim_dir) / claim_file_name(kGroupPrefix + group_key)).string();
  int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
  if (fd >= 0) {
    bool written = ::write(fd, owner.data(), owner.size()) == ssize_t(owner.size());
    ::close(fd);
    if (!written) throw std::runtime_error(fmt::format("{}: cannot write the claim of group {}", path, group_key));
    return true;
  }
  if (errno != EEXIST)
    throw std::runtime_error(fmt::format("{}: cannot create the claim of group {}: {}", path, group_key, std::strerror(errno)));
  // The owner's own claim: a worker its supervisor restarted after a fault goes on with its group.
  return read_file(path).value_or("") == owner;
}

std::vector<std::string> claimed_point_ids(const std::string& claim_dir) {
  const std::string group_prefix = claim_file_name(kGroupPrefix);
  std::vector<std::string> ids;
  for (const auto& entry : fs::directory_iterator(claim_dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(group_prefix, 0) != 0) ids.push_back(point_id_of_claim_file(name));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<HandoutGroup> handout_groups(const std::vector<Point>& points, const MeasurementSettings& settings) {
  std::vector<HandoutGroup> groups;
  std::map<std::string, std::size_t> group_of;
  for (const auto& point : points) {
    std::string key = point.sizes.to_string();
    for (const auto& axis : point.family->reference_axes)
      if (point.params.has(axis)) key += fmt::format(" {}={}", axis, point.params.get(axis));
    auto [it, added] = group_of.emplace(key, groups.size());
    if (added) groups.push_back({key, {}, 0});
    HandoutGroup& group = groups[it->second];
    group.points.push_back(point);
    group.estimated_s += estimated_point_seconds(point, settings);
  }
  // Each size's total cost and first place in the sweep: the sort keys that keep a size's groups together.
  std::map<std::string, std::pair<double, std::size_t>> size_rank;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    auto [it, added] = size_rank.emplace(groups[i].points.front().sizes.to_string(), std::make_pair(0.0, i));
    it->second.first += groups[i].estimated_s;
  }
  for (auto& group : groups)
    std::stable_sort(group.points.begin(), group.points.end(), [&](const Point& a, const Point& b) {
      return estimated_point_seconds(a, settings) > estimated_point_seconds(b, settings);
    });
  std::stable_sort(groups.begin(), groups.end(), [&](const HandoutGroup& a, const HandoutGroup& b) {
    const auto& rank_a = size_rank[a.points.front().sizes.to_string()];
    const auto& rank_b = size_rank[b.points.front().sizes.to_string()];
    if (rank_a.first != rank_b.first) return rank_a.first > rank_b.first;
    if (rank_a.second != rank_b.second) return rank_a.second < rank_b.second;
    return a.estimated_s > b.estimated_s;
  });
  return groups;
}

ClaimSource::ClaimSource(const std::vector<Point>& points, const MeasurementSettings& settings, std::string claim_dir,
                         std::string owner, std::set<std::string> finished, std::function<void(const Point&)> prepare)
    : points_(points),
      groups_(handout_groups(points, settings)),
      claim_dir_(std::move(claim_dir)),
      owner_(std::move(owner)),
      finished_(std::move(finished)),
      prepare_(std::move(prepare)) {}

const Point* ClaimSource::next() {
  if (const Point* point = next_finished()) return point;
  if (stopped_) return nullptr;
  if (!helping_) {
    if (const Point* point = next_owned()) return point;
    helping_ = true;
    group_ = 0;
  }
  return next_helped();
}

const Point* ClaimSource::next_finished() {
  while (finished_at_ < points_.size()) {
    const Point& point = points_[finished_at_++];
    if (finished_.count(point.id)) return &point;
  }
  return nullptr;
}

const Point* ClaimSource::next_owned() {
  for (; group_ < groups_.size(); ++group_, in_group_ = 0, owns_group_ = false) {
    if (stopped_) return nullptr;
    if (!owns_group_ && !(owns_group_ = claim_group(claim_dir_, groups_[group_].key, owner_))) continue;
    const std::vector<Point>& points = groups_[group_].points;
    while (in_group_ < points.size()) {
      if (stopped_) return nullptr;
      const Point& point = points[in_group_++];
      if (!finished_.count(point.id) && claim_point(claim_dir_, point.id)) return &point;
    }
  }
  return nullptr;
}

std::vector<const Point*> ClaimSource::open_points(std::size_t group) const {
  std::vector<const Point*> open;
  const std::vector<Point>& points = groups_[group].points;
  for (auto it = points.rbegin(); it != points.rend(); ++it)
    if (!finished_.count(it->id) && !is_claimed(claim_dir_, it->id)) open.push_back(&*it);
  if (open.size() < 2) open.clear();
  return open;
}

const Point* ClaimSource::next_helped() {
  while (group_ < groups_.size()) {
    if (open_at_ == 0 && open_.empty()) {
      open_ = open_points(group_);
      // While the problem is built, the owner goes on with the group.
      if (!open_.empty()) prepare_(*open_.front());
    }
    while (open_at_ < open_.size()) {
      if (stopped_) return nullptr;
      const Point* point = open_[open_at_++];
      if (claim_point(claim_dir_, point->id)) return point;
    }
    ++group_;
    open_.clear();
    open_at_ = 0;
  }
  return nullptr;
}

}  // namespace occbench
