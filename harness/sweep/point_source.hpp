#pragma once
// A point source decides which point a run measures next. The run loop asks it for a point,
// measures the point (or keeps its record from a resumed run), tells it the record, and asks
// again, until it has none left: exhaustive expansion, a shard's share, a random sample and a
// GPU's claims (harness/sweep/claims.hpp) are sources, and a search strategy, which reads the
// results so far to choose, is one more. The loop itself does not change with the source.
#include "harness/family/point.hpp"
#include "harness/family/registry.hpp"
#include "harness/measure/settings.hpp"
#include "harness/sweep/spec.hpp"
#include "harness/sweep/strategy.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

// The points a source is likely to give next that the run offers its compile workers at a time
// (PointSource::likely_next); replay's model of a live search offers as many.
constexpr std::size_t kCompileLookahead = 32;

class PointSource {
 public:
  virtual ~PointSource() = default;
  // The next point to measure, or nullptr when there is none. The point stays valid while the
  // source lives. A point a resumed run finished may come again: the run keeps its record.
  virtual const Point* next() = 0;
  // The point's record, once it is recorded (measured, skipped, failed or kept from a resumed
  // run): what a source that reads the results so far decides from.
  virtual void tell(const Point& point, const nlohmann::ordered_json& record) {
    (void)point;
    (void)record;
  }
  // Whether tell() decides from the record: the loop then completes each record (every observer's
  // section) before telling it, instead of letting sections of several points settle together.
  virtual bool learns() const { return false; }
  // Up to `limit` points it is likely to give soon, not given yet (a search's guess; empty where
  // the points are known ahead): compiled ahead while the GPU measures.
  virtual std::vector<const Point*> likely_next(std::size_t limit) const {
    (void)limit;
    return {};
  }
  // This process can measure nothing more (its CUDA context is lost): a source that shares points
  // with other workers stops taking them; the others go on (the run records the rest as skipped).
  virtual void device_lost() {}
  // Seconds next() has waited for another process's compiler since this was last asked (a source
  // that hands out what is compiled first waits while every point it may give is being compiled).
  virtual double take_compiler_wait_s() { return 0; }
};

// How ready a point is to be measured, readiest first: its record kept from a resumed run, its
// kernel compiled, its kernel for this process to compile, or being compiled by another process.
enum class Readiness { kept, compiled, compile_here, compiling_elsewhere };
using ReadinessOf = std::function<Readiness(const Point&)>;

// Chooses which of a source's candidates the run loop gets next: the first that is kept or
// compiled, else the first for this process to compile; while every one is being compiled by
// another process, it waits for the first to be done (and counts the wait). With
// `compile_here_alongside` false, it also waits rather than compile while any candidate is being
// compiled elsewhere: the compile workers keep up, and a kernel compiled here (seconds, for a
// large tile) would hold back the measurement of every point they compile meanwhile. Without a
// readiness (nullptr), the first candidate.
class ReadiestFirst {
 public:
  ReadiestFirst() = default;
  explicit ReadiestFirst(ReadinessOf readiness, bool compile_here_alongside = true)
      : readiness_(std::move(readiness)), compile_here_alongside_(compile_here_alongside) {}
  explicit operator bool() const { return bool(readiness_); }
  // The index of the chosen one of `count` candidates (count > 0), `candidate(i)` the i-th.
  std::size_t pick(std::size_t count, const std::function<const Point&(std::size_t)>& candidate);
  double take_waited_s();

 private:
  ReadinessOf readiness_;
  bool compile_here_alongside_ = true;
  double waited_s_ = 0;
};

// The run loop's protocol: ask the source for a point, record it (`record` returns the point's
// record), tell the source that record, and ask again, until it has none left.
void drive(PointSource& source, const std::function<nlohmann::ordered_json(const Point&)>& record);

// A fixed list of points, given in their order; with a time limit, none once the points told so
// far took that long to measure (their records' time_use.point_s).
class ListSource : public PointSource {
 public:
  explicit ListSource(std::vector<Point> points) : points_(std::move(points)), given_(points_.size(), 0) {}
  const Point* next() override;
  void tell(const Point& point, const nlohmann::ordered_json& record) override;
  const std::vector<Point>& points() const { return points_; }
  void set_time_limit(std::optional<double> seconds) { time_limit_s_ = seconds; }
  // With a time limit, each record is told whole (its observers' time in time_use.point_s, as a
  // resumed run reads it back), so the killed and the resumed run stop at the same point.
  bool learns() const override { return time_limit_s_.has_value(); }
  // Gives the readiest of the next kReadyWindow points of the same problem first (ReadiestFirst):
  // the GPU measures what the compile workers have compiled instead of waiting for the kernel
  // that is next in order. The same points are measured; only their order changes. Not with a
  // time limit: the points measured before it runs out are then the first in the list's order.
  void set_readiness(ReadinessOf readiness, bool compile_here_alongside) {
    ready_ = ReadiestFirst(std::move(readiness), compile_here_alongside);
  }
  double take_compiler_wait_s() override { return ready_.take_waited_s(); }
  static constexpr std::size_t kReadyWindow = 64;

 private:
  std::vector<std::size_t> ready_window() const;
  std::vector<Point> points_;
  std::vector<char> given_;
  std::size_t position_ = 0;  // the first point not given
  std::optional<double> time_limit_s_;
  double spent_s_ = 0;
  ReadiestFirst ready_;
};

// Every point of the sweep, in its order (sizes outermost), or the first max_points of them.
class ExhaustiveSource : public ListSource {
 public:
  ExhaustiveSource(const std::vector<Point>& points, std::optional<std::size_t> max_points);
};

// Shard K of N of the points (run --shard, harness/sweep/shard.hpp), in the sweep's order.
class ShardShare : public ListSource {
 public:
  ShardShare(const std::vector<Point>& points, const MeasurementSettings& settings, int index, int count);
};

// A uniform sample of max_points distinct points (all of them when there are fewer), the same
// for the same seed on every machine, measured in the sweep's order so each problem is built once.
class RandomSample : public ListSource {
 public:
  RandomSample(const std::vector<Point>& points, std::size_t max_points, std::uint64_t seed, bool in_sweep_order = true);
};

// The sweep's points, expanded, then narrowed to the shard's share where run --shard asks.
std::vector<Point> selected_points(const SweepSpec& spec, const Registry& registry);

// A sweep of more than kExpandedUpTo points (harness/sweep/sweep.hpp) is not expanded to draw a
// random sample or take the first --max-points. A random run of such a sweep with a time limit and
// no --max-points draws at most this many.
constexpr std::uint64_t kDrawnAtMost = 100000;
// plan plans a uniform sample of this many of such a sweep's points.
constexpr std::uint64_t kPlannedAtMost = 10000;
// A search of such a sweep chooses among a uniform sample of this many of its points (drawn by
// the strategy's seed, so a resumed search has the same ones); a smaller sweep's, among all.
constexpr std::uint64_t kSearchCandidatesAtMost = 100000;
// A shard, a --filter and a run of every point list the whole sweep (a few hundred bytes a point):
// beyond this many points they are refused at once, naming the count (a --shard of a 10^10-point
// space grew to 12 GB before).
constexpr std::uint64_t kListedAtMost = 2000000;
// Throws ConfigError naming the flag (--shard, --filter) or the config where the sweep, counted
// without its --filter, has more than kListedAtMost points.
void check_listable(const SweepSpec& spec, const Registry& registry);
std::vector<Point> search_candidates(const SweepSpec& spec, const Registry& registry, const Strategy& strategy);

// The selected points as a list strategy (exhaustive, random) picks them: what a run measures,
// what `run --dry-run` lists and `plan` plans. A search (Strategy::is_adaptive) chooses while it
// runs: harness/search/search_source.hpp.
std::unique_ptr<ListSource> make_point_source(const SweepSpec& spec, const Registry& registry,
                                              const Strategy& strategy = {});

}  // namespace occbench
