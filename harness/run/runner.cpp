#include "harness/run/runner.hpp"

#include "harness/measure/conditions.hpp"
#include "harness/measure/counters.hpp"
#include "harness/measure/kernel_activity.hpp"
#include "harness/sweep/selection.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/measure/memory_probes.hpp"
#include "harness/model/metrics.hpp"
#include "harness/run/multi_device.hpp"
#include "harness/model/occupancy.hpp"
#include "harness/measure/latency_probe.hpp"
#include "harness/model/occupancy_limit.hpp"
#include "harness/model/occupancy_model.hpp"
#include "harness/run/supervisor.hpp"
#include "harness/records/time_use.hpp"
#include "harness/measure/timer.hpp"

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <ostream>

namespace occbench {

namespace {

// Points counted in one collection at most (run --counters): CUPTI's ~37 ms start of a collection
// is shared by them; each adds its flush and kernels as ranges (kMaxBatchRanges in counters.cpp).
constexpr std::size_t kCounterBatchPoints = 16;

// The L2 flush before a counters pass (or a batch's launch), waited for; with no flusher, the wait.
std::function<void()> flush_and_wait(L2Flusher* flusher, cudaStream_t stream) {
  return [flusher, stream] {
    if (flusher) flusher->flush(stream);
    OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  };
}

ordered_json base_record(const Point& point) {
  ordered_json r;
  r["point_id"] = point.id;
  r["family"] = point.family->name;
  r["variant"] = point.variant->name;
  ordered_json params = ordered_json::object();
  for (const auto& [name, value] : point.params.items()) params[name] = value;
  r["params"] = params;
  r["status"] = "ok";
  r["reason"] = "";
  r["launch"] = nullptr;
  r["resources"] = nullptr;
  r["occupancy"] = nullptr;
  r["timing"] = nullptr;
  WorkModel work = point.variant->work ? point.variant->work(point.params) : WorkModel{};
  r["work"] = to_json(work);
  r["metrics"] = nullptr;
  r["verification"] = {{"status", "skipped"}, {"max_rel_error", nullptr}, {"tolerance", nullptr}};
  if (!point.variant->notes.empty()) r["notes"] = point.variant->notes;
  return r;
}

ordered_json to_json(const Verification& v) {
  return {{"status", v.status}, {"max_rel_error", v.max_rel_error}, {"tolerance", v.tolerance},
          {"checked", v.checked}, {"mismatches", v.mismatches}, {"detail", v.detail}};
}

ordered_json to_json(const TimingStats& t) {
  ordered_json j = {{"mode", t.mode},         {"samples", t.samples}, {"median_ms", t.median_ms}, {"mean_ms", t.mean_ms},
                    {"min_ms", t.min_ms},     {"max_ms", t.max_ms},   {"stddev_ms", t.stddev_ms}, {"noise", t.noise},
                    {"total_ms", t.total_ms}, {"stop_reason", t.stop_reason}, {"sampling_wall_s", t.sampling_wall_s}};
  if (t.mode == "batch") {
    j["launches_per_sample"] = t.launches_per_sample;
    j["batch_method"] = t.batch_method;
    j["cold_median_ms"] = t.cold_median_ms;
    j["cold_source"] = t.cold_source;
  }
  j["source"] = t.source;
  j["source_reason"] = t.source_reason;
  if (t.mode != "host") j["event_median_ms"] = t.event_median_ms;
  if (t.source == kSourceCuptiRangeProfiler) {
    j["event_samples"] = t.event_samples;
    j["profiled_wall_s"] = t.profiled_wall_s;
  }
  return j;
}

ordered_json to_json(const KernelResources& k) {
  return {{"registers_per_thread", k.registers_per_thread},
          {"static_smem_bytes", k.static_smem_bytes},
          {"local_bytes_per_thread", k.local_bytes_per_thread},
          {"max_threads_per_block", k.max_threads_per_block}};
}

}  // namespace

ordered_json unrun_record(const Point& point, const std::string& status, const std::string& reason) {
  ordered_json r = base_record(point);
  r["status"] = status;
  r["reason"] = reason;
  return r;
}

KernelResources kernel_resources(const void* kernel) {
  cudaFuncAttributes attributes{};
  OCCBENCH_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  KernelResources k;
  k.registers_per_thread = attributes.numRegs;
  k.static_smem_bytes = attributes.sharedSizeBytes;
  k.local_bytes_per_thread = attributes.localSizeBytes;
  k.max_threads_per_block = attributes.maxThreadsPerBlock;
  k.max_dynamic_smem_bytes = std::size_t(attributes.maxDynamicSharedSizeBytes);
  return k;
}

ordered_json occupancy_json(const OccupancyResult& o, int api_active_blocks_per_sm) {
  // The calculator says INT_MAX for a resource the kernel does not use at all.
  auto limit = [](int blocks) { return blocks == std::numeric_limits<int>::max() ? ordered_json(nullptr) : ordered_json(blocks); };
  return {{"active_blocks_per_sm", o.active_blocks_per_sm},
          {"active_warps_per_sm", o.active_warps_per_sm},
          {"max_warps_per_sm", o.max_warps_per_sm},
          {"theoretical", o.theoretical},
          {"thread_utilization", o.thread_utilization},
          {"limiter", o.limiter},
          {"limiters", o.limiters},
          {"blocks_limit",
           {{"warps", limit(o.blocks_limit_warps)},
            {"registers", limit(o.blocks_limit_registers)},
            {"shared_memory", limit(o.blocks_limit_shared_memory)},
            {"blocks_per_sm", limit(o.blocks_limit_blocks)}}},
          {"api_active_blocks_per_sm", api_active_blocks_per_sm},
          {"api_agrees", api_active_blocks_per_sm == o.active_blocks_per_sm}};
}

void run_point_once(const Point& point, Problem& problem, const LaunchSpec& launch, cudaStream_t stream) {
  point.variant->run(problem, point.params, launch, stream);
  if (point.variant->executor == Executor::device) OCCBENCH_CHECK_LAUNCH();
}

PreparedPoint prepare_point(const Point& point, Problem& problem, const PointContext& context) {
  const Variant& variant = *point.variant;
  const DeviceInfo& device = *context.device;
  PreparedPoint prepared;
  ordered_json& r = prepared.record;
  r = base_record(point);
  LaunchSpec& launch = prepared.launch;
  bool on_device = variant.executor == Executor::device;

  if (on_device && variant.launch) {
    launch = variant.launch(point.params);
    r["launch"] = {{"grid", {launch.grid.x, launch.grid.y, launch.grid.z}},
                   {"block", {launch.block.x, launch.block.y, launch.block.z}},
                   {"dynamic_smem_bytes", launch.dynamic_smem_bytes}};
    if (!launch.compile_json.empty()) r["compile"] = ordered_json::parse(launch.compile_json);
  }
  if (on_device && !launch.kernel && forces_occupancy(point.params)) {
    r["status"] = "skipped";
    r["reason"] = kNoKernelToForce;
    return prepared;
  }
  if (on_device && launch.kernel) {
    KernelResources resources = kernel_resources(launch.kernel);
    std::size_t kernel_dynamic_limit = resources.max_dynamic_smem_bytes.value_or(0);
    // Judged against what the device allows: the opt-in below raises the kernel's own limit.
    resources.max_dynamic_smem_bytes.reset();
    r["resources"] = to_json(resources);
    int threads = int(launch.block.count());
    std::string blocker = launch_blocker(device.limits, resources, threads, launch.dynamic_smem_bytes);
    if (!blocker.empty()) {
      r["status"] = "skipped";
      r["reason"] = blocker;
      return prepared;
    }
    // The occupancy_limit axis (harness/model/occupancy_limit): ballast on top of the kernel's own bytes.
    std::optional<Ballast> ballast = add_ballast(point.params, device.limits, resources, launch, r);
    if (ballast && !ballast->skip_reason.empty()) return prepared;
    if (!ballast) restore_default_carveout(launch.kernel);
    // More dynamic shared memory than the kernel's default limit (48 KiB less its static
    // shared memory) needs the kernel's explicit opt-in.
    if (launch.dynamic_smem_bytes > kernel_dynamic_limit) {
      OCCBENCH_CUDA_CHECK(cudaFuncSetAttribute(launch.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               int(launch.dynamic_smem_bytes)));
      resources = kernel_resources(launch.kernel);
    }
    int api_blocks = 0;
    if (ballast) {
      api_blocks = apply_ballast(launch.kernel, threads, launch.dynamic_smem_bytes);
    } else {
      OCCBENCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&api_blocks, launch.kernel, threads,
                                                                        launch.dynamic_smem_bytes));
    }
    r["occupancy"] = occupancy_json(compute_occupancy(device.limits, resources, threads, launch.dynamic_smem_bytes), api_blocks);
    if (ballast) {
      r["occupancy"]["forced"] = to_json(*ballast, api_blocks);
      if (api_blocks != ballast->target_blocks_per_sm) {
        r["status"] = "failed";
        r["reason"] = fmt::format("occupancy_limit {}: the occupancy API gives {} blocks per SM with a ballast of {} B",
                                  ballast->target_blocks_per_sm, api_blocks, ballast->ballast_bytes);
        return prepared;
      }
    }
  }

  // Verification first: poisoned outputs, one run, compare. A wrong result is never timed.
  // The stream is a blocking one, so it is ordered after the poisoning memsets of the legacy
  // default stream; the synchronize makes that explicit for any family's poison.
  auto verify_t0 = std::chrono::steady_clock::now();
  problem.poison_outputs();
  if (on_device) OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  run_point_once(point, problem, launch, context.stream);
  // Host code has finished when run returns (and may run where no GPU is).
  if (on_device) OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(context.stream));
  Verification verification = problem.verify();
  r["verification"] = to_json(verification);
  r["time_use"]["verify_s"] = seconds_since(verify_t0);
  if (verification.status == "failed") {
    r["status"] = "failed";
    r["reason"] = fmt::format("wrong result: {} of {} elements over tolerance {:g} (max relative error {:g}); {}",
                              verification.mismatches, verification.checked, verification.tolerance,
                              verification.max_rel_error, verification.detail);
  }
  return prepared;
}

ordered_json measure_point(const Point& point, Problem& problem, const PointContext& context, CounterJob* defer_counters) {
  PreparedPoint prepared = prepare_point(point, problem, context);
  ordered_json& r = prepared.record;
  if (!prepared.ready()) return r;

  const Variant& variant = *point.variant;
  // Each timed launch inside an NVTX range named by the point id (free without a tool attached):
  // `ncu --nvtx --print-nvtx-rename kernel` then names its kernels by point (scripts/ncu_agreement.py).
  auto run_once = [&](cudaStream_t stream) {
    nvtxRangePushA(point.id.c_str());
    run_point_once(point, problem, prepared.launch, stream);
    nvtxRangePop();
  };
  bool on_device = variant.executor == Executor::device;
  std::optional<ConditionSampler> sampler;
  if (on_device) sampler.emplace(*context.device);
  BetweenSamples between;
  if (sampler) between = [&] { sampler->sample_if_due(); };
  ProfiledSamples profiled;
  if (on_device && context.timing_profiler && context.flusher)
    profiled = [&](int count, const std::function<void()>& flush, const std::function<void()>& timed) {
      return context.timing_profiler->measure_durations_ms(count, flush, timed, double(context.flusher->bytes()));
    };
  TimingStats timing = on_device ? time_device(run_once, *context.settings, context.stream, context.flusher, between, profiled)
                                 : time_host([&] { run_once(context.stream); }, *context.settings);
  r["timing"] = to_json(timing);
  if (on_device) {
    double floor_ms = context.device->timing_floor_ms.value_or(0);
    r["timing"]["near_timing_floor"] = near_timing_floor(timing.median_ms, floor_ms);
    r["timing"]["conditions"] = to_json(sampler->finish(context.device->clocks_start));
  }
  WorkModel work = variant.work ? variant.work(point.params) : WorkModel{};
  r["metrics"] = to_json(compute_metrics(work, timing.median_ms, context.device->peak_bandwidth_gbps,
                                         context.device->measured_bandwidth_gbps));
  const DeviceInfo& device = *context.device;
  if (auto model = littles_law(device.measured_bandwidth_gbps.value_or(0), device.dram_latency_ns.value_or(0), device.sm_count,
                               device.limits.max_threads_per_sm / device.limits.warp_size, work.bytes_in_flight_per_warp))
    r["littles_law"] = to_json(*model);
  // Counters after the timing, never during it: the same launch, replayed as CUPTI needs.
  if (context.counters) {
    if (!on_device) {
      r["counters"] = unavailable_counters_json("host variant: no kernel to count");
    } else {
      std::optional<double> theoretical;
      if (r["occupancy"].is_object()) theoretical = r["occupancy"].value("theoretical", 0.0);
      // Copies: a deferred job outlives this call (the problem does not: the runner counts the
      // batch before it builds the next one).
      Problem* problem_ptr = &problem;
      cudaStream_t stream = context.stream;
      std::function<void()> launch_once = [point, problem_ptr, launch = prepared.launch, stream] {
        run_point_once(point, *problem_ptr, launch, stream);
        OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
      };
      bool forced = r["occupancy"].is_object() && r["occupancy"].contains("forced");
      std::string skip_instrumentation = instrumentation_skip_reason(timing.median_ms, context.settings->instrumented_max_kernel_ms);
      if (defer_counters && !forced) {
        *defer_counters = CounterJob{std::move(launch_once), work, theoretical, skip_instrumentation};
        return r;
      }
      r["counters"] = collect_counters(*context.counters, work, theoretical, launch_once,
                                       flush_and_wait(context.flusher, context.stream), skip_instrumentation);
    }
  }
  return r;
}

std::unique_ptr<Problem> make_point_problem(const Point& point, std::uint64_t seed, std::size_t reserved_bytes,
                                            std::string& skip_reason) {
  skip_reason.clear();
  std::uint64_t need = point.family->device_bytes ? point.family->device_bytes(point.sizes) : 0;
  std::size_t free_bytes = 0, total_bytes = 0;
  OCCBENCH_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (need + reserved_bytes > free_bytes) {
    skip_reason = fmt::format("needs {:.2f} GiB of device memory, {:.2f} GiB free", need / 1073741824.0,
                              free_bytes / 1073741824.0);
    return nullptr;
  }
  return point.family->make_problem(point.sizes, seed);
}

bool is_sticky_cuda_error(cudaError_t code) {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

RunSummary run_sweep(const SweepSpec& spec, const Registry& registry, const RunOptions& options, std::ostream& log) {
  RunSummary summary;
  auto startup_t0 = std::chrono::steady_clock::now();
  std::vector<Point> points = expand_sweep(spec, registry);

  DeviceInfo device = query_device(options.device);
  device.clocks_start = read_clocks(device);
  // A copy of 1 GiB (or a quarter of the card) gives the bandwidth this card actually reaches.
  std::size_t copy_bytes = std::min<std::size_t>(std::size_t(1) << 30, device.total_memory_bytes / 8);
  device.measured_bandwidth_gbps = measure_copy_bandwidth_gbps(copy_bytes, 20);
  device.measured_l2_bandwidth_gbps = measure_l2_bandwidth_gbps(device.l2_bytes, device.sm_count, 10);
  device.measured_smem_bandwidth_gbps = measure_smem_bandwidth_gbps(device.sm_count, 10);
  device.dram_latency_ns = measure_dram_latency_ns(latency_probe_shape(device.l2_bytes, device.total_memory_bytes));
  auto run_t0 = std::chrono::steady_clock::now();
  double startup_s = std::chrono::duration<double>(run_t0 - startup_t0).count();
  log << fmt::format("device {}: {} (sm_{}{}), {} SMs, L2 {} MiB; copy bandwidth {:.0f} GB/s measured, {:.0f} GB/s peak; "
                     "DRAM latency {:.0f} ns measured\n",
                     options.device, device.name, device.compute_major, device.compute_minor, device.sm_count,
                     device.l2_bytes >> 20, *device.measured_bandwidth_gbps, device.peak_bandwidth_gbps,
                     *device.dram_latency_ns);
  log << fmt::format("measured L2 bandwidth {:.0f} GB/s, shared-memory bandwidth {:.0f} GB/s\n",
                     *device.measured_l2_bandwidth_gbps, *device.measured_smem_bandwidth_gbps);

  std::string started = utc_now_iso();
  std::string stem;
  std::map<std::string, ordered_json> finished;
  if (options.resume) {
    stem = options.resume_path.substr(0, options.resume_path.size() - std::string(".jsonl").size());
    for (const auto& r : options.resume->results) finished[r.value("point_id", "")] = r;
    std::string previous = options.resume->header["device"].value("name", "");
    if (previous != device.name)
      throw ConfigError(options.resume_path, "$.device.name",
                        fmt::format("the run was started on '{}' but this device is '{}'; results of two GPUs cannot be mixed",
                                    previous, device.name));
  } else {
    stem = output_stem(options.out_dir, spec.name, device.name, utc_now_compact());
  }
  summary.jsonl_path = stem + ".jsonl";
  summary.json_path = stem + ".json";
  summary.csv_path = stem + ".csv";

  JsonlWriter jsonl(summary.jsonl_path, options.resume != nullptr);
  if (!options.resume) {
    ordered_json header = {{"occbench_jsonl", 1}, {"tool", tool_block()}, {"device", to_json(device)}, {"config", spec.raw},
                           {"config_source", spec.source}, {"started_utc", started}};
    if (!spec.selection.empty()) header["selection"] = to_json(spec.selection);  // a resumed shard stays that shard
    jsonl.write(header);
  }
  announce(options.supervisor_fd, "jsonl " + summary.jsonl_path);

  cudaStream_t stream;
  // A blocking stream: it waits for the legacy default stream, where problems upload inputs and
  // poison outputs (cudaMemcpy, cudaMemset). A non-blocking one raced with the poisoning.
  OCCBENCH_CUDA_CHECK(cudaStreamCreate(&stream));
  device.timing_floor_ms = measure_timing_floor_ms(stream);
  // Read once the GPU has been busy (the copies and the floor above): the clock every point's
  // readings are judged against.
  device.clocks_start = read_clocks(device);
  std::unique_ptr<L2Flusher> flusher;
  // Counters flush the L2 before each replay too, as Nsight Compute does, so bytes per level are a cold launch's.
  if (spec.measurement.mode == "cold" || spec.measurement.mode == "batch" || spec.measurement.counters)
    flusher = std::make_unique<L2Flusher>(device.l2_bytes, device.sm_count);
  // One CUPTI range profiler for the run: it counts (--counters) and, asked to (profiled_samples,
  // OCCBENCH_TIMING_SOURCE=profiler), times cold samples by gpu__time_duration, as Nsight Compute does.
  bool profile_timing = flusher && spec.measurement.mode != "hot" && profiled_sample_count(spec.measurement) > 0;
  std::unique_ptr<CounterSession> profiler;
  if (spec.measurement.counters || profile_timing) profiler = CounterSession::open(options.device);
  CounterSession* counters = spec.measurement.counters ? profiler.get() : nullptr;
  if (counters && spec.measurement.counters_l2_flush == "per_kernel")
    counters->flush_before_each_kernel(flusher && flusher->method() == FlushMethod::read ? flush_and_wait(flusher.get(), stream)
                                                                                         : std::function<void()>(),
                                       flusher ? double(flusher->bytes()) : 0);
  if (counters)
    log << (counters->available() ? fmt::format("counters: CUPTI range profiler on {}, {} replays per launch, the L2 flushed before each {}\n",
                                                counters->chip(), counters->passes(), counters->flushes_per_kernel() ? "kernel" : "replay")
                                  : fmt::format("counters unavailable: {}; timings go on\n", counters->unavailable_reason()));
  if (profile_timing)
    log << (profiler->durations_unavailable_reason().empty()
                ? std::string("timing: cold samples by CUPTI's range profiler (gpu__time_duration, as Nsight Compute)\n")
                : fmt::format("timing: cold samples by the event pair, the range profiler cannot time them: {}\n",
                              profiler->durations_unavailable_reason()));
  PointContext context{&device, &spec.measurement, stream, flusher.get(), counters, profile_timing ? profiler.get() : nullptr};

  std::vector<ordered_json> results;
  std::unique_ptr<Problem> problem;
  Params problem_sizes;
  std::string problem_error;
  bool problem_built = false;
  double pending_problem_s = 0;  // this size's problem (inputs, reference), charged to its first point
  bool context_lost = false;
  std::string lost_reason;
  std::size_t position = 0;  // points this process has recorded or kept, for the progress lines

  // Records waiting to be written, in point order: the points of one problem whose counters are
  // counted together once they are all timed (collect_counters_batch), and any record behind one.
  struct Pending {
    ordered_json record;
    CounterJob job;  // no launch_once: nothing to count, only waiting its turn
  };
  std::vector<Pending> pending;
  // Batches need the flush whose kernel marks where each point's ranges begin: the read sweep alone.
  bool batch_counters = counters && counters->available() && flusher && flusher->method() == FlushMethod::read &&
                        !counters->flushes_per_kernel();
  bool batch_fallback_logged = false;
  auto write_record = [&](ordered_json record) {
    jsonl.write(record);
    log << format_progress(record, ++position, points.size()) << std::endl;
    results.push_back(std::move(record));
  };
  auto count_pending = [&] {
    std::vector<CounterJob> jobs;
    std::vector<std::size_t> counted;
    for (std::size_t i = 0; i < pending.size(); ++i)
      if (pending[i].job.launch_once) {
        jobs.push_back(pending[i].job);
        counted.push_back(i);
      }
    std::vector<ordered_json> sections;
    if (!jobs.empty()) {
      if (context_lost) {
        sections.assign(jobs.size(), unavailable_counters_json(lost_reason));
      } else {
        try {
          sections = collect_counters_batch(*counters, jobs, flush_and_wait(flusher.get(), stream), double(flusher->bytes()));
        } catch (const CudaError& e) {
          // The launches ran verified and timed; their replay failing is the counters' failure.
          sections.assign(jobs.size(), unavailable_counters_json(fmt::format("the replay for the counters failed: {}", e.what())));
          if (is_sticky_cuda_error(e.code())) {
            context_lost = true;
            lost_reason = fmt::format("not run: the CUDA context was lost while counting ({})", e.what());
          }
        }
      }
      if (!batch_fallback_logged && !counters->batch_unusable_reason().empty()) {
        log << fmt::format("counters: points counted one by one from here: {}\n", counters->batch_unusable_reason());
        batch_fallback_logged = true;
      }
    }
    for (std::size_t j = 0; j < counted.size(); ++j) {
      ordered_json& record = pending[counted[j]].record;
      record["counters"] = sections[j];
      record["time_use"]["point_s"] = record["time_use"].value("point_s", 0.0) + sections[j].value("added_s", 0.0);
    }
    for (auto& p : pending) write_record(std::move(p.record));
    pending.clear();
  };

  // The problem at the point's sizes, built unless the current one has them; a failure to build
  // is the first record's (below), an allocation failure a skip.
  auto ensure_problem = [&](const Point& point) {
    if (problem_built && problem_sizes == point.sizes) return;
    count_pending();  // their launches need the problem that is about to go
    auto problem_t0 = std::chrono::steady_clock::now();
    problem.reset();
    problem_error.clear();
    problem_sizes = point.sizes;
    problem_built = true;
    problem = make_point_problem(point, spec.measurement.seed, flusher ? flusher->bytes() : 0, problem_error);
    pending_problem_s += seconds_since(problem_t0);
  };
  auto measure_one = [&](const Point& point) {
    announce(options.supervisor_fd, "begin " + point.id);
    auto point_t0 = std::chrono::steady_clock::now();
    double problem_before_s = pending_problem_s;  // a helper builds the problem before it claims the point
    ordered_json record;
    CounterJob job;
    if (context_lost) {
      record = unrun_record(point, "skipped", lost_reason);
    } else {
      try {
        ensure_problem(point);
        if (!problem_error.empty()) {
          record = unrun_record(point, "skipped", problem_error);
        } else {
          // A forced point sets its kernel's carveout, which the waiting points' replays would
          // inherit: they are counted first.
          if (forces_occupancy(point.params)) count_pending();
          record = measure_point(point, *problem, context, batch_counters ? &job : nullptr);
        }
      } catch (const CudaError& e) {
        record = unrun_record(point, "failed", e.what());
        if (e.code() == cudaErrorMemoryAllocation) {
          record["status"] = "skipped";
          cudaGetLastError();
        } else if (is_sticky_cuda_error(e.code())) {
          context_lost = true;
          lost_reason = fmt::format("not run: the CUDA context was lost at point {} ({})", point.id, e.what());
        }
        if (!problem) problem_built = false;  // a failed build is tried again by the next point
      } catch (const std::exception& e) {
        record = unrun_record(point, "failed", e.what());
        if (!problem) problem_built = false;
      }
    }
    record["time_use"]["problem_s"] = pending_problem_s;
    pending_problem_s = 0;
    record["time_use"]["point_s"] = seconds_since(point_t0) + problem_before_s;
    if (!job.launch_once && pending.empty()) {
      write_record(std::move(record));
    } else {
      pending.push_back({std::move(record), std::move(job)});
      if (pending.size() >= kCounterBatchPoints) count_pending();
    }
    announce(options.supervisor_fd, "end " + point.id);
    if (context_lost) count_pending();  // written, their counters unavailable
    if (context_lost && options.supervisor_fd >= 0) std::_Exit(kExitContextLost);  // the supervisor resumes in a new process
  };

  if (options.claim_dir.empty()) {
    for (const Point& point : points) {
      if (auto it = finished.find(point.id); it != finished.end()) {
        results.push_back(it->second);
        ++summary.reused;
        ++position;
        continue;
      }
      measure_one(point);
    }
  } else {
    // A worker of run --devices (harness/run/multi_device): its own finished points are kept first
    // (their claims stand), then it measures what it claims.
    for (const Point& point : points)
      if (auto it = finished.find(point.id); it != finished.end()) {
        results.push_back(it->second);
        ++summary.reused;
        ++position;
      }
    // A worker whose context is lost claims nothing more: the other GPUs take the rest (a point
    // it claimed would only be recorded as skipped).
    walk_claimed_groups(handout_groups(points, spec.measurement), options.claim_dir,
                        fmt::format("device{}", options.device), finished,
                        [&](const Point& point) {
                          if (context_lost) return;
                          try {
                            ensure_problem(point);
                          } catch (const std::exception&) {
                            problem_built = false;  // measure_one tries again and records the failure
                          }
                        },
                        measure_one, [&] { return !context_lost; });
    if (context_lost) log << fmt::format("device {}: {}; this worker claimed no more points\n", options.device, lost_reason);
  }
  count_pending();
  problem.reset();
  std::string flusher_method = flusher ? to_string(flusher->method()) : "none";
  flusher.reset();
  cudaStreamDestroy(stream);

  device.clocks_end = read_clocks(device);
  assign_speedups(results, spec.baseline);
  RunTimeUse time_use = run_time_use(results, seconds_since(run_t0));
  for (const auto& r : results) {
    std::string status = r.value("status", "");
    summary.ok += status == "ok";
    summary.failed += status == "failed";
    summary.skipped += status == "skipped";
  }
  ordered_json run = {{"kind", "run"},
                      {"started_utc", options.resume ? options.resume->header.value("started_utc", started) : started},
                      {"finished_utc", utc_now_iso()},
                      {"command", options.command_line},
                      {"config_source", spec.source},
                      {"measurement", to_json(spec.measurement)},
                      {"resumed_points", summary.reused},
                      {"l2_flush", flusher_method},
                      {"startup_s", startup_s},
                      {"wall_s", time_use.wall_s},
                      {"timed_s", time_use.timed_s},
                      {"timed_fraction", time_use.timed_fraction()},
                      {"time_use_s", to_json(time_use)}};
  if (!spec.selection.empty()) run["selection"] = to_json(spec.selection);  // --variants, --filter, --set
  ordered_json document = make_document(run, to_json(device), spec.raw, results);
  write_text_file(summary.json_path, document.dump(2) + "\n");
  write_text_file(summary.csv_path, to_csv(results));

  log << "\n" << format_table(results);
  log << format_timing_flags(results, device.timing_floor_ms.value_or(0), time_use);
  log << fmt::format("\n{} ok, {} failed, {} skipped{}\nwrote {}\n      {}\n      {}\n", summary.ok, summary.failed,
                     summary.skipped, summary.reused ? fmt::format(" ({} kept from the resumed run)", summary.reused) : "",
                     summary.json_path, summary.csv_path, summary.jsonl_path);
  summary.exit_code = summary.failed > 0 ? 1 : 0;
  return summary;
}

}  // namespace occbench
