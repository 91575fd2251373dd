#include "harness/measure/point.hpp"
#include "harness/measure/host_observer.hpp"

#include "harness/core/clock.hpp"
#include "harness/core/cuda_check.hpp"
#include "harness/measure/conditions.hpp"
#include "harness/measure/counters/counters_observer.hpp"
#include "harness/measure/energy/energy_observer.hpp"
#include "harness/measure/sm_clock.hpp"
#include "harness/measure/kernel_attributes.hpp"
#include "harness/measure/timer.hpp"
#include "harness/model/metrics.hpp"
#include "harness/model/occupancy_limit.hpp"
#include "harness/model/occupancy_model.hpp"
#include "harness/measure/kernel_activity.hpp"

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include <limits>

namespace occbench {

namespace {

ordered_json base_record(const Point& point) {
  ordered_json r;
  r["point_id"] = point.id;
  r["family"] = point.family->name;
  r["variant"] = point.variant->name;
  r["params"] = params_json(point.params);
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
  ordered_json j = {{"status", v.status}, {"max_rel_error", v.max_rel_error}, {"tolerance", v.tolerance},
                    {"checked", v.checked}, {"mismatches", v.mismatches}, {"detail", v.detail}};
  if (!v.guard_zones.empty()) j["guard_zones"] = v.guard_zones;
  if (!v.out_of_bounds.empty()) j["out_of_bounds"] = v.out_of_bounds;
  return j;
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
  if (!t.samples_ms.empty()) j["samples_ms"] = t.samples_ms;
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

void skip(ordered_json& record, const std::string& reason) {
  record["status"] = "skipped";
  record["reason"] = reason;
}

// The kernel's resources, whether the launch fits, the forced occupancy's ballast, the dynamic
// shared-memory opt-in and the occupancy section. False when the point cannot be run (the record says why).
bool prepare_kernel(const Params& params, const DeviceInfo& device, LaunchSpec& launch, ordered_json& r) {
  KernelResources resources = kernel_resources(launch.kernel);
  std::size_t kernel_dynamic_limit = resources.max_dynamic_smem_bytes.value_or(0);
  // Judged against what the device allows: the opt-in below raises the kernel's own limit.
  resources.max_dynamic_smem_bytes.reset();
  r["resources"] = to_json(resources);
  int threads = int(launch.block.count());
  std::string blocker = launch_blocker(device.limits, resources, threads, launch.dynamic_smem_bytes);
  if (!blocker.empty()) {
    skip(r, blocker);
    return false;
  }
  // The occupancy_limit axis (harness/model/occupancy_limit): ballast on top of the kernel's own bytes.
  std::optional<Ballast> ballast = add_ballast(params, device.limits, resources, launch, r);
  if (ballast && !ballast->skip_reason.empty()) return false;
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
  if (!ballast) return true;
  r["occupancy"]["forced"] = to_json(*ballast, api_blocks);
  if (api_blocks == ballast->target_blocks_per_sm) return true;
  r["status"] = "failed";
  r["reason"] = fmt::format("occupancy_limit {}: the occupancy API gives {} blocks per SM with a ballast of {} B",
                            ballast->target_blocks_per_sm, api_blocks, ballast->ballast_bytes);
  return false;
}

// Verification first: poisoned outputs, one run, compare. A wrong result is never timed.
// The stream is a blocking one, so it is ordered after the poisoning memsets of the legacy
// default stream; the synchronize makes that explicit for any family's poison.
void verify_once(const Point& point, Problem& problem, const LaunchSpec& launch, cudaStream_t stream, ordered_json& r) {
  bool on_device = point.variant->executor == Executor::device;
  auto verify_t0 = std::chrono::steady_clock::now();
  problem.poison_outputs();
  if (on_device) OCCBENCH_CUDA_CHECK(cudaDeviceSynchronize());
  run_point_once(point, problem, launch, stream);
  // Host code has finished when run returns (and may run where no GPU is).
  if (on_device) OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  Verification verification = problem.verify();
  r["verification"] = to_json(verification);
  r["time_use"]["verify_s"] = seconds_since(verify_t0);
  if (verification.status != "failed") return;
  r["status"] = "failed";
  r["reason"] = verification.out_of_bounds.empty()
                    ? fmt::format("wrong result: {} of {} elements over tolerance {:g} (max relative error {:g}); {}",
                                  verification.mismatches, verification.checked, verification.tolerance,
                                  verification.max_rel_error, verification.detail)
                    : "out-of-bounds write: " + verification.out_of_bounds;
}

// The timed samples: cudaEvents (or the range profiler) on the device, the host clock for host code.
TimingStats time_point(const Point& point, Problem& problem, const LaunchSpec& launch, const PointContext& context,
                       Observers& observers) {
  // Each timed launch inside an NVTX range named by the point id (free without a tool attached):
  // `ncu --nvtx --print-nvtx-rename kernel` then names its kernels by point (scripts/ncu/ncu_agreement.py).
  auto run_once = [&](cudaStream_t stream) {
    nvtxRangePushA(point.id.c_str());
    run_point_once(point, problem, launch, stream);
    nvtxRangePop();
  };
  if (point.variant->executor != Executor::device) return time_host([&] { run_once(context.stream); }, *context.settings);
  ProfiledSamples profiled;
  if (context.timing_profiler && context.flusher)
    profiled = [&](int count, const std::function<void()>& flush, const std::function<void()>& timed) {
      return context.timing_profiler->measure_durations_ms(count, flush, timed, double(context.flusher->bytes()));
    };
  return time_device(run_once, *context.settings, context.stream, context.flusher, [&] { observers.between_samples(); },
                     profiled);
}

// The timing section, the metrics against the device's ceilings and Little's law where modelled.
void add_timing_and_metrics(const TimingStats& timing, const WorkModel& work, bool on_device, const DeviceInfo& device,
                            ordered_json& r) {
  r["timing"] = to_json(timing);
  if (on_device) r["timing"]["near_timing_floor"] = near_timing_floor(timing.median_ms, device.timing_floor_ms.value_or(0));
  r["metrics"] = to_json(compute_metrics(work, timing.median_ms, device.peak_bandwidth_gbps, device.measured_bandwidth_gbps));
  if (auto model = littles_law(device.measured_bandwidth_gbps.value_or(0), device.dram_latency_ns.value_or(0), device.sm_count,
                               device.limits.max_threads_per_sm / device.limits.warp_size, work.bytes_in_flight_per_warp))
    r["littles_law"] = to_json(*model);
}

}  // namespace

ordered_json params_json(const Params& params) {
  ordered_json out = ordered_json::object();
  for (const auto& [name, value] : params.items())
    out[name] = params.label(name) ? ordered_json::parse(params.json_text(name)) : ordered_json(value);
  return out;
}

ordered_json unrun_record(const Point& point, const std::string& status, const std::string& reason) {
  ordered_json r = base_record(point);
  r["status"] = status;
  r["reason"] = reason;
  return r;
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

Observers point_observers(const PointContext& context, bool batch_counters, std::ostream* log) {
  Observers observers;
  // In this order: the clocks' readings are there for the sm_clock section, and kept counters are
  // settled before a point locks another clock.
  observers.add(std::make_unique<ClockObserver>(*context.device));
  if (context.counters) observers.add(std::make_unique<CounterObserver>(context, batch_counters, log));
  std::string pci_bus_id = context.device->pci_bus_id;
  observers.add(std::make_unique<SmClockObserver>(
      [pci_bus_id](std::string& why) { return nvml_sm_clock_control(pci_bus_id, why); }, pci_bus_id,
      context.device->clocks_start.sm_mhz));
  if (context.energy) observers.add(std::make_unique<EnergyObserver>(*context.energy, *context.device));
  if (host_observers_given()) observers.add(std::make_unique<HostObserver>());
  return observers;
}

void run_point_once(const Point& point, Problem& problem, const LaunchSpec& launch, cudaStream_t stream) {
  point.variant->run(problem, point.params, launch, stream);
  if (point.variant->executor == Executor::device) OCCBENCH_CHECK_LAUNCH();
}

PreparedPoint prepare_point(const Point& point, Problem& problem, const PointContext& context) {
  const Variant& variant = *point.variant;
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
    skip(r, kNoKernelToForce);
    return prepared;
  }
  if (on_device && launch.kernel && !prepare_kernel(point.params, *context.device, launch, r)) return prepared;
  verify_once(point, problem, launch, context.stream, r);
  return prepared;
}

SharedRecord measure_point(const Point& point, Problem& problem, const PointContext& context, Observers& observers) {
  PreparedPoint prepared = prepare_point(point, problem, context);
  auto record = std::make_shared<PointRecord>();
  record->json = std::move(prepared.record);
  if (record->json.value("status", "") != "ok") return record;
  bool on_device = point.variant->executor == Executor::device;
  observers.before_samples(point);
  TimingStats timing = time_point(point, problem, prepared.launch, context, observers);
  WorkModel work = point.variant->work ? point.variant->work(point.params) : WorkModel{};
  add_timing_and_metrics(timing, work, on_device, *context.device, record->json);
  // A copy: an observer that keeps it (counters of a batch) outlives this call, not the problem.
  Problem* problem_ptr = &problem;
  cudaStream_t stream = context.stream;
  std::function<void()> enqueue_launch = [point, problem_ptr, launch = prepared.launch, stream] {
    run_point_once(point, *problem_ptr, launch, stream);
  };
  std::function<void()> launch_once = [enqueue_launch, stream] {
    enqueue_launch();
    OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  };
  observers.after_samples(
      {point, on_device, timing, work, record->json["occupancy"], std::move(launch_once), std::move(enqueue_launch), stream}, record);
  return record;
}

ordered_json measure_point(const Point& point, Problem& problem, const PointContext& context) {
  Observers observers = point_observers(context);
  SharedRecord record = measure_point(point, problem, context, observers);
  observers.settle();
  return record->json;
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

Problem* ProblemCache::get(const Point& point, std::uint64_t seed, std::optional<std::size_t> reserved_bytes) {
  std::string key = fmt::format("{}/{}/seed={}", point.family->name, point.sizes.to_string(), seed);
  if (key == key_) return problem_.get();
  auto t0 = std::chrono::steady_clock::now();
  release();
  if (reserved_bytes) problem_ = make_point_problem(point, seed, *reserved_bytes, skip_reason_);
  else problem_ = point.family->make_problem(point.sizes, seed);
  key_ = key;  // only once built or skipped: a build that threw is tried again
  build_s_ += seconds_since(t0);
  return problem_.get();
}

double ProblemCache::take_build_s() {
  double s = build_s_;
  build_s_ = 0;
  return s;
}

void ProblemCache::release() {
  if (!key_.empty() && before_release_) before_release_();
  problem_.reset();
  key_.clear();
  skip_reason_.clear();
}

}  // namespace occbench
