#include "harness/run/runner.hpp"

#include "harness/run/compile_queue.hpp"
#include "harness/run/compile_workers.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/family/host_hooks.hpp"
#include "harness/measure/point.hpp"
#include "harness/run/run_session.hpp"
#include "harness/run/supervisor.hpp"
#include "harness/search/search_source.hpp"
#include "harness/sweep/claims.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>

namespace occbench {

namespace {

// The records in the order their points came, each written (.jsonl, a progress line) once no
// observer owes it a section; a resumed run's records keep their place and are not written again.
class RecordQueue {
 public:
  RecordQueue(JsonlWriter& jsonl, std::ostream& log, std::size_t total) : jsonl_(jsonl), log_(log), total_(total) {}
  void add(SharedRecord record, bool kept) { queue_.push_back({std::move(record), kept}); }
  void write_ready() {
    while (!queue_.empty() && queue_.front().record->sections_owed == 0) {
      Entry entry = std::move(queue_.front());
      queue_.pop_front();
      ordered_json& json = entry.record->json;
      ++position_;
      if (!entry.kept) {
        json["time_use"]["point_s"] = json["time_use"].value("point_s", 0.0) + entry.record->added_s;
        json["time_use"]["finished_utc"] = utc_now_iso();
        jsonl_.write(json);
        if (const auto& told = host_hooks().record_written) told(json.dump());
        log_ << format_progress(json, position_, total_) << std::endl;
      }
      results_.push_back(json);  // a copy: the loop returns the record to its source too
    }
  }
  std::vector<ordered_json>& results() { return results_; }

 private:
  struct Entry {
    SharedRecord record;
    bool kept = false;
  };
  JsonlWriter& jsonl_;
  std::ostream& log_;
  std::size_t total_, position_ = 0;
  std::deque<Entry> queue_;
  std::vector<ordered_json> results_;
};

SharedRecord unrun(const Point& point, const std::string& status, const std::string& reason) {
  auto record = std::make_shared<PointRecord>();
  record->json = unrun_record(point, status, reason);
  return record;
}

// Records the points a source gives, one at a time, on one device: each kept from the resumed
// run, or measured with the observers' sections, or recorded as not run once the device is lost.
class PointLoop {
 public:
  // `compile_queue`: the run's queue to its compile workers ($OCCBENCH_COMPILE_QUEUE; nullptr: none).
  PointLoop(RunSession& session, const SweepSpec& spec, const RunOptions& options, std::size_t total,
            std::shared_ptr<CompileQueue> compile_queue, std::ostream& log)
      : session_(session),
        options_(options),
        seed_(spec.measurement.seed),
        observers_(point_observers(session.context, /*batch_counters=*/true, &log)),
        problems_([this] { observers_.settle(); }),
        records_(*session.jsonl, log, total),
        compile_queue_(std::move(compile_queue)) {}

  // The point's record: kept from the resumed run, or measured and queued to be written.
  ordered_json record(const Point& point, PointSource& source) {
    if (auto kept = session_.finished.find(point.id); kept != session_.finished.end()) {
      ++session_.reused;
      records_.add(std::make_shared<PointRecord>(PointRecord{kept->second}), true);
      records_.write_ready();
      return kept->second;
    }
    announce(options_.supervisor_fd, "begin " + point.id);
    // A search's likely next points, compiled by the workers while this one is measured.
    if (compile_queue_) compile_queue_->offer(source.likely_next(kCompileLookahead));
    double compiler_wait_s = source.take_compiler_wait_s();
    SharedRecord record = measure(point, compiler_wait_s);
    record->json["time_use"]["search_s"] = search_s(compiler_wait_s);
    records_.add(record, false);
    if (source.learns()) observers_.settle();  // a search chooses its next point from this one's whole record
    records_.write_ready();
    announce(options_.supervisor_fd, "end " + point.id);
    if (session_.health.lost() && !lost_handled_) after_device_lost(source);
    returned_ = std::chrono::steady_clock::now();
    return record->json;
  }

  // Builds the point's problem ahead of its claim (a helper of run --devices), if it can.
  void prepare(const Point& point) {
    if (session_.health.lost()) return;
    try {
      problems_.get(point, seed_, reserved_bytes());
    } catch (const std::exception&) {
      // The point's own measurement tries again and records the failure.
    }
  }

  std::vector<ordered_json>& finish() {
    observers_.settle();
    records_.write_ready();
    problems_.release();
    return records_.results();
  }

 private:
  std::size_t reserved_bytes() const { return session_.flusher ? session_.flusher->bytes() : 0; }

  // The source's time to give this point since the last one was recorded (a search's ask and tell;
  // Kernel Tuner's strategy_time), less its wait for a compile worker, which compiler_wait_s holds.
  double search_s(double compiler_wait_s) const {
    if (!returned_) return 0.0;
    return std::max(0.0, seconds_since(*returned_) - compiler_wait_s);
  }

  // `compiler_wait_s`: how long the source waited for a compile worker before it gave the point.
  SharedRecord measure(const Point& point, double compiler_wait_s) {
    std::string refusal = session_.health.lost() ? "" : observers_.before_point(point);
    auto t0 = std::chrono::steady_clock::now();
    double built_before_s = problems_.pending_build_s();  // a helper builds the problem before it claims the point
    SharedRecord record = refusal.empty() ? measure_or_fail(point) : unrun(point, "skipped", refusal);
    record->json["time_use"]["problem_s"] = problems_.take_build_s();
    if (compiler_wait_s > 0) record->json["time_use"]["compiler_wait_s"] = compiler_wait_s;
    record->json["time_use"]["point_s"] = seconds_since(t0) + built_before_s + compiler_wait_s;
    return record;
  }

  SharedRecord measure_or_fail(const Point& point) {
    DeviceHealth& health = session_.health;
    if (health.lost()) return unrun(point, "skipped", health.lost_reason);
    try {
      Problem* problem = problems_.get(point, seed_, reserved_bytes());
      if (!problem) return unrun(point, "skipped", problems_.skip_reason());
      if (health.lost()) return unrun(point, "skipped", health.lost_reason);  // lost counting the last problem's points
      return measure_point(point, *problem, session_.context, observers_);
    } catch (const CudaError& e) {
      SharedRecord record = unrun(point, "failed", e.what());
      if (e.code() == cudaErrorMemoryAllocation) {
        record->json["status"] = "skipped";
        cudaGetLastError();
      } else if (is_sticky_cuda_error(e.code())) {
        health.lost_reason = fmt::format("not run: the CUDA context was lost at point {} ({})", point.id, e.what());
      }
      return record;
    } catch (const std::exception& e) {
      return unrun(point, "failed", e.what());
    }
  }

  // Sections kept back say why, a source that shares points takes no more, and under the
  // supervisor the process ends so that a new one resumes the run.
  void after_device_lost(PointSource& source) {
    lost_handled_ = true;
    observers_.device_lost(session_.health.lost_reason);
    source.device_lost();
    records_.write_ready();
    announce(options_.supervisor_fd, "lost");
    if (options_.supervisor_fd >= 0) std::_Exit(kExitContextLost);
  }

  RunSession& session_;
  const RunOptions& options_;
  std::uint64_t seed_;
  Observers observers_;
  ProblemCache problems_;
  RecordQueue records_;
  std::shared_ptr<CompileQueue> compile_queue_;
  bool lost_handled_ = false;
  std::optional<std::chrono::steady_clock::time_point> returned_;  // when the last point's record was returned
};

// A worker of run --devices measures the points it claims (harness/sweep/claims.hpp); nullptr otherwise.
std::unique_ptr<PointSource> worker_claims(const std::vector<Point>& points, const SweepSpec& spec, const RunOptions& options,
                                           const RunSession& session, PointLoop& loop) {
  if (options.claim_dir.empty()) return nullptr;
  std::set<std::string> finished;
  for (const auto& [id, record] : session.finished) finished.insert(id);
  return std::make_unique<ClaimSource>(points, spec.measurement, options.claim_dir, fmt::format("device{}", options.device),
                                       finished, [&loop](const Point& point) { loop.prepare(point); });
}

// How ready a point is to measure here (ReadiestFirst): kept from the resumed run; compiled (a
// built-in kernel, or in the compiler's cache: remembered, as it stays so); for this process to
// compile; or being compiled by a worker.
ReadinessOf point_readiness(const RunSession& session) {
  auto compiled = std::make_shared<std::set<std::string>>();
  return [&session, compiled](const Point& point) {
    if (session.finished.count(point.id)) return Readiness::kept;
    if (!point.variant->compile_state || compiled->count(point.id)) return Readiness::compiled;
    switch (point.variant->compile_state(point.params)) {
      case CompileState::compiled:
        compiled->insert(point.id);
        return Readiness::compiled;
      case CompileState::compiling_elsewhere:
        return Readiness::compiling_elsewhere;
      case CompileState::not_compiled:
        break;
    }
    return Readiness::compile_here;
  };
}

// Whether this process compiles a point's kernel that no worker has taken while the workers compile
// others: only beside few workers. Beside many, a kernel it compiles (seconds, for a large tile)
// would hold back the measurement of all they compile meanwhile; it waits for their first instead.
bool compile_here_alongside_workers() { return compile_worker_count(1) < 4; }

// A search whose compile workers follow its queue proposes batches as wide as keeps the GPU busy
// (harness/search/batch_width.hpp), at most as the compilers are many (the workers and this
// process), each width and why in the log; or OCCBENCH_SEARCH_BATCH's width throughout (1: one
// point at a time). Handed out recorded points first (a resumed run), then those whose kernels are
// compiled: the GPU measures while the workers compile the rest (harness/search/search_source.hpp).
void batch_search(SearchSource& search, const RunSession& session, const std::shared_ptr<CompileQueue>& queue, std::ostream& log) {
  if (!queue) return;
  std::size_t size = compile_worker_count(1) + 1;  // the workers, and this process when a point is not compiled yet
  if (const char* wanted = std::getenv("OCCBENCH_SEARCH_BATCH"); wanted && std::atoi(wanted) > 0) size = std::size_t(std::atoi(wanted));
  else search.adapt_batches([&log](const std::string& line) { log << line << std::endl; });
  // The workers hear of each new batch as it is asked, not once its first point is measured.
  search.set_batches(size, point_readiness(session), compile_here_alongside_workers(),
                     [queue, &search] { queue->offer(search.likely_next(kCompileLookahead)); });
}

// The records in the list's order, whichever order the points were measured in.
void in_list_order(std::vector<ordered_json>& results, const std::vector<Point>& points) {
  std::map<std::string, std::size_t> place;
  for (std::size_t i = 0; i < points.size(); ++i) place.emplace(points[i].id, i);
  auto place_of = [&](const ordered_json& r) {
    auto found = place.find(r.value("point_id", ""));
    return found == place.end() ? points.size() : found->second;
  };
  std::stable_sort(results.begin(), results.end(), [&](const ordered_json& a, const ordered_json& b) { return place_of(a) < place_of(b); });
}

}  // namespace

RunSummary run_sweep(const SweepSpec& spec, const Registry& registry, const RunOptions& options, std::ostream& log) {
  std::unique_ptr<ListSource> list;
  std::unique_ptr<SearchSource> search;
  if (options.strategy.is_adaptive() && !options.claim_dir.empty())  // a worker of run --devices: one search for all
    search = std::make_unique<SharedSearchSource>(search_candidates(spec, registry, options.strategy), options.strategy, options.claim_dir);
  else if (options.strategy.is_adaptive())
    search = std::make_unique<SearchSource>(search_candidates(spec, registry, options.strategy), options.strategy);
  else
    list = make_point_source(spec, registry, options.strategy);
  std::unique_ptr<RunSession> session = open_run_session(spec, options, log);
  std::shared_ptr<CompileQueue> queue = compile_queue_from_environment();
  if (search && options.claim_dir.empty()) batch_search(*search, *session, queue, log);
  // A list's points measured compiled first (the same points; their records in the list's order;
  // not under a time limit: ListSource).
  if (list && options.claim_dir.empty()) list->set_readiness(point_readiness(*session), compile_here_alongside_workers());
  PointLoop loop(*session, spec, options, search ? search->planned() : list->points().size(), queue, log);
  std::unique_ptr<PointSource> claims = list ? worker_claims(list->points(), spec, options, *session, loop) : nullptr;
  PointSource& source = claims ? *claims : search ? static_cast<PointSource&>(*search) : *list;
  drive(source, [&](const Point& point) { return loop.record(point, source); });
  if (claims && session->health.lost())
    log << fmt::format("device {}: {}; this worker claimed no more points\n", options.device, session->health.lost_reason);
  std::vector<ordered_json>& results = loop.finish();
  if (list && !claims) in_list_order(results, list->points());
  return finish_run(*session, spec, options, results, log);
}

}  // namespace occbench
