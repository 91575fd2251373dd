#pragma once
// Points shared out among the workers of `run --devices` (harness/run/multi_device.hpp) as the
// GPUs free up: each worker claims work with O_EXCL files in one claims folder. First whole groups
// (the points that share one problem and reference, handout_groups), so each problem's random
// inputs and CPU reference are built by one worker only; once no group is left, an idle worker
// helps with the points of groups still being measured (claimed one by one from the cheap end), so
// no GPU idles while another has a queue. A worker's ClaimSource is its point source.
#include "harness/family/point.hpp"
#include "harness/measure/settings.hpp"
#include "harness/sweep/point_source.hpp"

#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace occbench {

// True when this process claimed the point (first to create its file in `claim_dir`).
bool claim_point(const std::string& claim_dir, const std::string& point_id);
// Gives a claim back (the claimer will not measure the point after all).
void release_claim(const std::string& claim_dir, const std::string& point_id);
// Marks the points as taken (those a resumed run already finished).
void mark_claimed(const std::string& claim_dir, const std::vector<std::string>& point_ids);
// True when some worker holds the point's claim (finished or measuring it).
bool is_claimed(const std::string& claim_dir, const std::string& point_id);
// The ids of every point claimed in `claim_dir` (group claims left out), sorted.
std::vector<std::string> claimed_point_ids(const std::string& claim_dir);

// The unit a worker claims whole: the points that share one problem instance (the same sizes)
// and, for a family with reference_axes (stencil's filter_size), one reference. A worker that
// holds a group builds its problem and reference alone; the other workers build it only to help
// with a group's last points once no group is left unclaimed.
struct HandoutGroup {
  std::string key;            // "width=4096 height=4096 filter_size=31": the sizes, then the reference axes
  std::vector<Point> points;  // the slowest first by estimated cost, so a helper takes the cheap end
  double estimated_s = 0;     // estimated_point_seconds summed (only ratios matter)
};
// Groups in the order workers claim them: sizes by their estimated cost, the costliest first (the
// longest work starts first), and within one size its groups the costliest first, so a worker
// that takes consecutive groups reuses its problem.
std::vector<HandoutGroup> handout_groups(const std::vector<Point>& points, const MeasurementSettings& settings);
// True when the group is `owner`'s ("device1"): claimed now (its file in `claim_dir`, beside the
// points', holds the owner), or earlier by the same owner (a worker its supervisor restarted).
bool claim_group(const std::string& claim_dir, const std::string& group_key, const std::string& owner);

// A worker's points: first those a resumed run finished (in the sweep's order, their records kept
// and their claims standing); then every group `owner` claims, whole, each point claimed as it
// comes; then, with no group left, the groups other workers still measure: `prepare` (build the
// problem) runs before their open points are claimed from the cheap end, so owner and helper meet
// in the middle. A group with one open point is left to its owner. After device_lost() it claims
// nothing more (a worker whose CUDA context is lost leaves the rest to the others).
class ClaimSource : public PointSource {
 public:
  ClaimSource(const std::vector<Point>& points, const MeasurementSettings& settings, std::string claim_dir,
              std::string owner, std::set<std::string> finished, std::function<void(const Point&)> prepare);
  const Point* next() override;
  void device_lost() override { stopped_ = true; }

 private:
  const Point* next_finished();
  const Point* next_owned();
  const Point* next_helped();
  // The open points of groups_[group] from the cheap end, or none where fewer than two are open.
  std::vector<const Point*> open_points(std::size_t group) const;

  std::vector<Point> points_;  // the sweep's order, for the finished ones
  std::vector<HandoutGroup> groups_;
  std::string claim_dir_, owner_;
  std::set<std::string> finished_;
  std::function<void(const Point&)> prepare_;
  bool stopped_ = false;
  std::size_t finished_at_ = 0;              // next of points_ to look at for a finished one
  std::size_t group_ = 0, in_group_ = 0;     // owning: the group and its next point
  bool owns_group_ = false;                  // owning: groups_[group_] was claimed by this worker
  bool helping_ = false;
  std::vector<const Point*> open_;           // helping: the open points of groups_[group_]
  std::size_t open_at_ = 0;
};

}  // namespace occbench
