#pragma once
// Compiling ahead for a search: its points are not known ahead, so its compile workers cannot be
// given a share of them. While the GPU measures each point, the measuring process appends to a
// queue file the ids of the points the search is likely to ask for next (PointSource::likely_next),
// and the workers (occbench plan CONFIG --compile-queue FILE) compile them into NVRTC's cache as
// they come; a point the search does ask for then loads its kernel from the cache.
#include "harness/family/point.hpp"

#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace occbench {

class CompileQueue {
 public:
  explicit CompileQueue(std::string path) : path_(std::move(path)) {}
  // Appends the points' ids, one a line, most wanted first (unless the offer is the last one again).
  void offer(const std::vector<const Point*>& points);

 private:
  std::string path_;
  std::string last_offer_;
};

// The environment variable that names a run's queue file to the processes it starts.
constexpr const char* kCompileQueueVariable = "OCCBENCH_COMPILE_QUEUE";
// This run's queue ($OCCBENCH_COMPILE_QUEUE), or nullptr where none was set up.
std::unique_ptr<CompileQueue> compile_queue_from_environment();

// The point a queue's line names, or nullopt where it names none of the sweep's.
using PointOfId = std::function<std::optional<Point>(const std::string&)>;

// A worker's loop: `compile` each point the newest offer of the queue file names (as `point_of`
// finds it), once, in the offer's order, as offers are appended, while `keep_going()` (a worker:
// while the run that started it lives). An older offer's points are left unless named again.
void follow_compile_queue(const std::string& path, const PointOfId& point_of, const std::function<void(const Point&)>& compile,
                          const std::function<bool()>& keep_going);
// keep_going for a worker: the process that started this one is still its parent.
std::function<bool()> while_parent_lives();

}  // namespace occbench
