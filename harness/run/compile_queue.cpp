#include "harness/run/compile_queue.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <unistd.h>
#include <utility>

namespace occbench {

void CompileQueue::offer(const std::vector<const Point*>& points) {
  // Every id again, in this offer's order: the workers take the newest offer first, so a point
  // offered before as a guess moves up once the search needs it (a batch's point, say).
  std::string lines;
  for (const Point* p : points) lines += p->id + "\n";
  if (lines.empty() || lines == last_offer_) return;
  last_offer_ = lines;
  // Whole lines (a worker reads only complete ones), the offer ended by an empty line.
  std::ofstream(path_, std::ios::app) << lines << "\n" << std::flush;
}

std::unique_ptr<CompileQueue> compile_queue_from_environment() {
  const char* path = std::getenv(kCompileQueueVariable);
  return path && *path ? std::make_unique<CompileQueue>(path) : nullptr;
}

namespace {

// The complete lines appended to `path` since `offset`, which moves past them.
std::vector<std::string> new_lines(const std::string& path, std::streamoff& offset) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  if (!in || !in.seekg(offset)) return lines;
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline yet: the rest of it is still being written
    offset += std::streamoff(line.size() + 1);
    lines.push_back(line);
  }
  return lines;
}

}  // namespace

std::function<bool()> while_parent_lives() {
  const pid_t parent = getppid();
  return [parent] { return getppid() == parent; };
}

// The newest offer only: a search moves on, and what it named before may never be asked for.
void follow_compile_queue(const std::string& path, const PointOfId& point_of,
                          const std::function<void(const Point&)>& compile, const std::function<bool()>& keep_going) {
  std::streamoff offset = 0;
  std::set<std::string> done;
  std::vector<std::string> newest, open;  // the newest complete offer, and one still being written
  auto first_not_done = [&](const std::vector<std::string>& offer) -> std::optional<Point> {
    for (const auto& id : offer)
      if (done.insert(id).second)  // a point, or a line naming none: looked at once
        if (std::optional<Point> point = point_of(id)) return point;
    return std::nullopt;
  };
  while (keep_going()) {
    for (auto& line : new_lines(path, offset)) {
      if (!line.empty()) open.push_back(std::move(line));
      else if (!open.empty()) newest = std::exchange(open, {});
    }
    // The newest offer's first point not compiled yet. An older offer's are left: the search has
    // moved on, and a worker compiling a stale guess is a worker its next batch waits for.
    std::optional<Point> next = first_not_done(open);
    if (!next) next = first_not_done(newest);
    if (!next) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    compile(*next);
  }
}

}  // namespace occbench
