#pragma once
// One point measured on the current device: prepare it (the launch fits, resources, occupancy,
// one verified run on poisoned outputs), time it (harness/measure/timer.hpp), derive its metrics,
// and let the observers add their sections (harness/measure/observer.hpp). The run loop
// (harness/run/runner.hpp), the Google Benchmark front end and the tests measure points this way.
#include "harness/family/point.hpp"
#include "harness/family/registry.hpp"
#include "harness/measure/context.hpp"
#include "harness/measure/device.hpp"
#include "harness/measure/observer.hpp"
#include "harness/measure/settings.hpp"
#include "harness/model/occupancy.hpp"

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

namespace occbench {

using ordered_json = nlohmann::ordered_json;

// The observers of every point measured in `context`: the clocks and throttle readings, and the
// hardware counters where context.counters is set (with `batch_counters`, the points of one
// problem are counted together once they are timed, harness/measure/counters/counters_observer.hpp; a
// change of how they are counted is said on `log`).
Observers point_observers(const PointContext& context, bool batch_counters = false, std::ostream* log = nullptr);

// Everything measure_point does before timing, shared with the Google Benchmark front end
// (bench/): the launch (device variants), the kernel's resources, launch_blocker (status
// "skipped" with the reason), the dynamic shared-memory opt-in, occupancy (calculator + API),
// then poison_outputs(), one run and verify() (status "failed" with the reason). The record is
// the point's result record without timing and metrics; only a ready() point may be timed.
struct PreparedPoint {
  ordered_json record;
  LaunchSpec launch;  // empty for host variants
  bool ready() const { return record.value("status", "") == "ok"; }
};
PreparedPoint prepare_point(const Point& point, Problem& problem, const PointContext& context);

// One run of the point on the stream: a device variant's launch (checked), or the host code.
void run_point_once(const Point& point, Problem& problem, const LaunchSpec& launch, cudaStream_t stream);

// prepare_point, then the timed samples (time_device / time_host), the metrics, and each
// observer's section (one may add it later: the record then owes it, PointRecord::sections_owed).
SharedRecord measure_point(const Point& point, Problem& problem, const PointContext& context, Observers& observers);
// The same with point_observers(context), settled: the whole record.
ordered_json measure_point(const Point& point, Problem& problem, const PointContext& context);

// The family's problem at the point's sizes, or nullptr with skip_reason set when the device has
// less free memory than the family needs plus reserved_bytes (e.g. the L2 flush buffer).
std::unique_ptr<Problem> make_point_problem(const Point& point, std::uint64_t seed, std::size_t reserved_bytes,
                                            std::string& skip_reason);

// The problem of the points being measured, kept while they share its family, sizes and seed
// (one alive at a time): each size's random inputs and CPU reference are built once.
class ProblemCache {
 public:
  // `before_release` runs before a problem goes (observers finish the launches kept on it).
  explicit ProblemCache(std::function<void()> before_release = {}) : before_release_(std::move(before_release)) {}
  // The point's problem, built unless the current one is it; nullptr with skip_reason() where the
  // device has too little free memory (reserved_bytes on top; none: no check, host code only).
  // A build that throws is tried again by the next point.
  Problem* get(const Point& point, std::uint64_t seed, std::optional<std::size_t> reserved_bytes);
  const std::string& skip_reason() const { return skip_reason_; }
  // Seconds spent building problems since the last take (charged to the point that needed it).
  double pending_build_s() const { return build_s_; }
  double take_build_s();
  void release();

 private:
  std::function<void()> before_release_;
  std::unique_ptr<Problem> problem_;
  std::string key_, skip_reason_;
  double build_s_ = 0;
};

// A record for a point that never ran (skipped before launch, or failed to set up).
ordered_json unrun_record(const Point& point, const std::string& status, const std::string& reason);

// A point's params as its record holds them: integers, and a labelled axis's values themselves
// (a string, a number, a boolean).
ordered_json params_json(const Params& params);

// The record's occupancy section from the calculator and cudaOccupancyMaxActiveBlocksPerMultiprocessor.
ordered_json occupancy_json(const OccupancyResult& occupancy, int api_active_blocks_per_sm);

}  // namespace occbench
