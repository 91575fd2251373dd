#pragma once
// A search as a point source of the run loop (harness/sweep/point_source.hpp): the sweep's points
// of each size are one search space, searched one size after another with its share of the budget
// (--max-points split evenly, --time-limit likewise); each point's record is told to the strategy
// as the objective's value, failed and skipped points as results without one. The same seed and
// the same records give the same points, so a resumed search goes on where the killed one was.
#include "harness/records/best.hpp"
#include "harness/search/searcher.hpp"
#include "harness/sweep/point_source.hpp"

#include <memory>
#include <vector>

namespace occbench {

// The point's place in a search space: its variant and its launch axes (not its sizes).
Coordinates point_coordinates(const Point& point);

class SearchSource : public PointSource {
 public:
  // Throws std::invalid_argument where the strategy's objective does not parse.
  SearchSource(std::vector<Point> points, const Strategy& strategy);
  const Point* next() override;
  void tell(const Point& point, const nlohmann::ordered_json& record) override;
  // The CUDA context is lost: no more points (a supervised run goes on in a new process, which
  // resumes the search where this one stopped).
  void device_lost() override { lost_ = true; }
  // At most this many points (the budget, or every point where only a time limit is given).
  std::size_t planned() const;
  std::size_t candidates() const { return points_.size(); }
  std::size_t spaces() const { return groups_.size(); }

 private:
  struct Group {
    std::vector<std::size_t> members;  // candidate -> index into points_
    std::unique_ptr<SearchSpace> space;
    std::unique_ptr<Searcher> searcher;
    std::size_t budget = 0, told = 0;
    double seconds = 0;
  };
  bool exhausted(const Group& group) const;
  std::vector<Point> points_;
  std::vector<Group> groups_;
  Objective objective_;
  std::optional<double> seconds_per_group_;
  std::size_t current_ = 0;
  std::optional<std::size_t> asked_;  // the candidate of the point next gave last
  bool lost_ = false;
};

}  // namespace occbench
