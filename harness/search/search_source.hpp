#pragma once
// A search as a point source of the run loop (harness/sweep/point_source.hpp): the sweep's points
// of each size are one search space, searched one size after another with its share of the budget
// (--max-points split evenly, --time-limit likewise); each point's record is told to the strategy
// as the objective's value, failed and skipped points as results without one. The same seed and
// the same records give the same points, so a resumed search goes on where the killed one was.
// SharedSearchSource is the same search shared by the workers of run --devices.
#include "harness/records/best.hpp"
#include "harness/search/search_walkers.hpp"
#include "harness/search/searcher.hpp"
#include "harness/sweep/point_source.hpp"

#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
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
  bool learns() const override { return true; }
  std::vector<const Point*> likely_next(std::size_t limit) const override;
  // The CUDA context is lost: no more points (a supervised run goes on in a new process, which
  // resumes the search where this one stopped).
  void device_lost() override { lost_ = true; }
  // Batches (of at most `size` points, 1: none): the strategy proposes what it can before it needs
  // results (Searcher::ask_batch), the run loop gets the batch's points readiest first
  // (ReadiestFirst: one already recorded or compiled, then one to compile here, ties in the
  // strategy's order), and the strategy is told the batch's results in its own order once all are
  // in. So while the GPU measures the points already compiled, the compile workers compile the
  // rest of the batch (likely_next names them first), and the search still chooses the same
  // points for the same seed, batch size and results. A local search of 100 points or more takes
  // two to four walkers (SearchWalkers, walkers_for), each with its batch in flight. Not for a shared search.
  // Beside few compile workers this process compiles a batch's kernel that no worker has started;
  // beside many (`compile_here_alongside` false) it waits for the first one a worker finishes, as
  // a list's does. `offer` is called as new batches are asked: their kernels to the workers at once.
  void set_batches(std::size_t size, ReadinessOf readiness, bool compile_here_alongside = true, std::function<void()> offer = {});
  // Before set_batches: batches as wide as the rule says (harness/search/batch_width.hpp), at most
  // set_batches' `size`; `note` is told each width walker 0 takes, and why (the run's log).
  void adapt_batches(std::function<void(const std::string&)> note) {
    adaptive_ = true;
    note_ = std::move(note);
  }
  double take_compiler_wait_s() override { return ready_.take_waited_s(); }
  // At most this many points (the budget, or every point where only a time limit is given).
  std::size_t planned() const;
  std::size_t candidates() const { return points_.size(); }
  std::size_t spaces() const { return groups_.size(); }

 protected:
  // Before each choice: results measured elsewhere are told (a shared search reads them).
  virtual void before_choosing() {}
  // Whether this process measures the point the strategy chose (a shared search claims it), another
  // worker does, or the space's budget is spent (a shared search's slots are all taken).
  enum class Take { mine, elsewhere, budget_spent };
  virtual Take take(const Point& point, std::size_t space) {
    (void)point, (void)space;
    return Take::mine;
  }
  // Tells the strategy a point's record, once: what next() chose, or a point measured elsewhere.
  void learn(const std::string& point_id, const nlohmann::ordered_json& record);
  std::size_t spaces_count() const { return groups_.size(); }
  std::size_t budget_of(std::size_t space) const { return groups_[space].budget; }
  std::size_t told_of(std::size_t space) const { return groups_[space].walkers->told(); }

 private:
  struct Group {
    std::vector<std::size_t> members;  // candidate -> index into points_
    std::unique_ptr<SearchSpace> space;
    std::unique_ptr<SearchWalkers> walkers;  // one walker; in batches, walkers_for's (a local search of 100 points or more: 2-4)
    std::size_t budget = 0;
    std::uint64_t seed = 0;
    double seconds = 0;
    std::size_t widths_noted = 0;
  };
  void note_widths(Group& group);
  bool exhausted(const Group& group) const;
  bool out_of_time(const Group& group) const;
  const Point* next_of_batch();
  const Point* readiest_of_batch(Group& group);
  std::vector<Point> points_;
  std::vector<Group> groups_;
  std::string strategy_;
  std::map<std::string, std::pair<std::size_t, std::size_t>> place_;  // point id -> (group, candidate)
  Objective objective_;
  std::optional<double> seconds_per_group_;
  std::size_t current_ = 0;
  bool lost_ = false;
  std::size_t batch_size_ = 1;
  bool adaptive_ = false;
  std::function<void(const std::string&)> note_;
  ReadiestFirst ready_;
  std::function<void()> offer_;
};

// One search shared by the workers of run --devices, each on its GPU with its own copy of the
// strategy (the same seed): before each choice a worker reads the records every worker has
// written so far (their .jsonl parts) and tells them to its strategy; the point it chooses is
// claimed (harness/sweep/claims.hpp), one another worker claimed first is set aside, and each
// point takes a slot of the budget, so the workers together measure at most --max-points. Which
// worker measures what depends on timing: a shared search is not repeatable point for point.
class SharedSearchSource : public SearchSource {
 public:
  // `claim_dir`: the workers' claims folder; their parts are the .jsonl files in the folders
  // beside it, the budget's slots in `claim_dir`/../slots.
  SharedSearchSource(std::vector<Point> points, const Strategy& strategy, std::string claim_dir);

 protected:
  void before_choosing() override;
  Take take(const Point& point, std::size_t space) override;

 private:
  bool take_slot(std::size_t space);
  std::string claim_dir_, parts_dir_, slots_dir_;
  std::map<std::string, std::size_t> read_bytes_;  // per part file: what was read of it
};

}  // namespace occbench
