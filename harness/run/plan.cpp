#include "harness/run/plan.hpp"

#include "harness/run/compile_queue.hpp"
#include "harness/core/files.hpp"
#include "harness/run/compile_workers.hpp"
#include "harness/sweep/selection.hpp"
#include "harness/model/metrics.hpp"
#include "harness/model/occupancy.hpp"
#include "harness/model/occupancy_limit.hpp"
#include "harness/run/clock_axis.hpp"
#include "harness/run/supervisor.hpp"
#include "harness/compile/nvrtc_compiler.hpp"
#include "harness/core/optional_number.hpp"
#include "harness/measure/point.hpp"
#include "harness/sweep/counted_sweep.hpp"
#include "harness/sweep/point_source.hpp"
#include "harness/sweep/config.hpp"
#include "harness/core/format.hpp"
#include "harness/core/json.hpp"
#include "harness/records/record_writer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include <cmath>
#include <map>
#include <ostream>

namespace occbench {

namespace {

ordered_json table_device_json(const GpuSpec& g) {
  const SmLimits& l = g.limits;
  return {{"name", g.name},
          {"key", g.key},
          {"source", "occbench built-in GPU table (no GPU measured)"},
          {"compute_capability", fmt::format("{}.{}", l.compute_major, l.compute_minor)},
          {"sm_count", l.sm_count},
          {"sm_clock_mhz", g.sm_clock_mhz},
          {"memory_clock_mhz", nullptr},
          {"memory_bus_bits", nullptr},
          {"l2_bytes", nullptr},
          {"total_memory_bytes", g.memory_bytes},
          {"peak_bandwidth_gbps", g.memory_bandwidth_gbps},
          {"measured_bandwidth_gbps", nullptr},
          {"peak_fp32_gflops", g.peak_fp32_gflops()},
          {"smem_per_sm_bytes", l.smem_per_sm_bytes},
          {"smem_per_block_optin_bytes", l.smem_per_block_optin_bytes},
          {"reserved_smem_per_block_bytes", l.reserved_smem_per_block_bytes},
          {"smem_allocation_granularity_bytes", g.smem_allocation_granularity_bytes},
          {"registers_per_sm", l.registers_per_sm},
          {"register_allocation_unit", g.register_allocation_unit},
          {"max_threads_per_sm", l.max_threads_per_sm},
          {"max_warps_per_sm", g.max_warps_per_sm()},
          {"max_blocks_per_sm", l.max_blocks_per_sm}};
}

// The built architecture whose code a GPU of `major.minor` runs, or PlanError naming what was built.
int resource_arch_for(const std::string& what, int major, int minor, const std::vector<int>& built, std::string& note) {
  auto arch = sass_arch_for(major, minor, built);
  int wanted = major * 10 + minor;
  if (!arch)
    throw PlanError(fmt::format("{} is sm_{}, and this build has no machine code that runs on it (built: {}); rebuild "
                                "with it: CUDA_ARCHS=\"{}\" bash scripts/build.sh (the default build has every GPU of "
                                "the table), or -DCMAKE_CUDA_ARCHITECTURES=\"{}\"",
                                what, wanted, arch_list_text(built), wanted, wanted));
  if (*arch != wanted)
    note = fmt::format("this build has no sm_{} code; {} runs its sm_{} code, whose registers and shared memory are used",
                       wanted, what, *arch);
  return *arch;
}

// A kernel's resources read from its cubin, where NVRTC's log lacks ptxas's report of them (seen
// on the H100 machine, for a kernel compiled there before).
CompiledKernel from_cubin(const CompiledSource& source, int arch, std::size_t reserved_smem_bytes) {
  std::optional<CubinKernelResources> read = cubin_kernel_resources(source.cubin, source.mangled_name, reserved_smem_bytes);
  if (!read) throw KernelLookupError(source.compiler + "'s log has no ptxas resource report for " + source.mangled_name + ", nor its cubin");
  CompiledKernel k;
  k.mangled_name = k.name = source.mangled_name;
  k.arch = arch;
  k.arch_name = fmt::format("sm_{}", arch);
  k.complete = true;
  k.registers = read->registers;
  k.stack_frame_bytes = read->stack_frame_bytes;
  k.static_smem_bytes = read->static_smem_bytes;
  return k;
}

// A user kernel's resources: ptxas's report in NVRTC's log, or its cubin where the log lacks it;
// `from` says which.
CompiledKernel compiled_kernel(const CompiledSource& source, int arch, std::size_t reserved_smem_bytes, std::string& from) {
  KernelResourceTable report = KernelResourceTable::parse(source.ptxas_log);
  for (const auto& k : report.kernels())
    if (k.mangled_name == source.mangled_name && k.complete) {
      from = fmt::format("ptxas -v of the {} compilation for sm_{}", source.compiler, arch);
      return k;
    }
  from = fmt::format("the cubin of the {} compilation for sm_{} (its log had no ptxas report; spills unknown)", source.compiler, arch);
  return from_cubin(source, arch, reserved_smem_bytes);
}

}  // namespace

const GpuSpec& gpu_by_key(const std::string& key) {
  if (const GpuSpec* g = find_gpu(key)) return *g;
  std::string keys;
  for (const auto& g : gpu_table()) keys += (keys.empty() ? "" : ", ") + g.key;
  throw PlanError(fmt::format("unknown GPU '{}'; known GPUs: {} (or a name or alias from `occbench plan --list-gpus`, "
                              "or an architecture such as sm_90)",
                              key, keys));
}

PlanTarget plan_target(const GpuSpec& gpu, const std::vector<int>& built_archs) {
  PlanTarget t;
  t.key = gpu.key;
  t.name = gpu.name;
  t.limits = gpu.limits;
  t.memory_bytes = gpu.memory_bytes;
  t.resource_arch = resource_arch_for(fmt::format("the {} ({})", gpu.key, gpu.name), gpu.limits.compute_major,
                                      gpu.limits.compute_minor, built_archs, t.note);
  t.device = table_device_json(gpu);
  return t;
}

PlanTarget plan_target(const DeviceInfo& device, const std::vector<int>& built_archs) {
  PlanTarget t;
  const GpuSpec* known = find_gpu(device.name);
  t.key = known ? known->key : device.name;
  t.name = device.name;
  t.limits = device.limits;
  t.memory_bytes = device.total_memory_bytes;
  t.resource_arch = resource_arch_for(fmt::format("this GPU ({})", device.name), device.compute_major,
                                      device.compute_minor, built_archs, t.note);
  DeviceInfo copy = device;
  copy.measured_bandwidth_gbps.reset();  // plan measures nothing
  t.device = to_json(copy);
  t.device["source"] = "this machine's GPU (cudaGetDeviceProperties; nothing measured)";
  return t;
}

ordered_json plan_point(const Point& point, const PlanTarget& target, const KernelResourceTable& resources) {
  ordered_json r = unrun_record(point, "planned", "");
  const Family& family = *point.family;
  const Variant& variant = *point.variant;
  std::optional<std::uint64_t> footprint;
  if (family.device_bytes) footprint = family.device_bytes(point.sizes);
  r["footprint"] = {{"device_bytes", optional_number(footprint)}};
  if (footprint && target.memory_bytes && *footprint > *target.memory_bytes) {
    r["status"] = "skipped";
    r["reason"] = fmt::format("needs {:.2f} GiB of device memory; the GPU has {:.2f} GiB", *footprint / 1073741824.0,
                              *target.memory_bytes / 1073741824.0);
  }

  if (variant.executor == Executor::host || !variant.launch) {
    if (r["reason"] == "") r["reason"] = "host code: no kernel of ours to plan (work model only)";
    return r;
  }
  LaunchSpec launch = variant.launch(point.params);
  r["launch"] = {{"grid", {launch.grid.x, launch.grid.y, launch.grid.z}},
                 {"block", {launch.block.x, launch.block.y, launch.block.z}},
                 {"dynamic_smem_bytes", launch.dynamic_smem_bytes}};
  if (!launch.kernel && !variant.compile) {
    if (forces_occupancy(point.params)) {
      r["status"] = "skipped";
      r["reason"] = kNoKernelToForce;
    }
    if (r["reason"] == "") r["reason"] = "a library call: no kernel of ours to plan (launch and work model only)";
    return r;
  }

  CompiledKernel kernel;
  std::string from = "ptxas --resource-usage of this build";
  try {
    if (variant.compile) {
      int arch = target.limits.compute_major * 10 + target.limits.compute_minor;
      CompiledSource source = variant.compile(point.params, arch);
      r["compile"] = ordered_json::parse(source.compile_json);
      kernel = compiled_kernel(source, arch, target.limits.reserved_smem_per_block_bytes, from);
    } else {
      kernel = resources.lookup(launch.kernel_name, target.resource_arch);
    }
  } catch (const KernelLookupError& e) {
    r["status"] = "failed";
    r["reason"] = e.what();
    return r;
  }
  KernelResources k = kernel.resources();
  r["resources"] = {{"registers_per_thread", k.registers_per_thread},
                    {"static_smem_bytes", k.static_smem_bytes},
                    {"local_bytes_per_thread", k.local_bytes_per_thread},
                    {"max_threads_per_block", nullptr},
                    {"spill_store_bytes", kernel.spill_store_bytes},
                    {"spill_load_bytes", kernel.spill_load_bytes},
                    {"arch", kernel.arch_name},
                    {"kernel", kernel.name},
                    {"from", from}};
  if (r["status"] != "planned") return r;

  int threads = int(launch.block.count());
  std::string blocker = launch_blocker(target.limits, k, threads, launch.dynamic_smem_bytes);
  if (!blocker.empty()) {
    r["status"] = "skipped";
    r["reason"] = blocker;
    return r;
  }
  // The occupancy_limit axis: the ballast this GPU needs (harness/model/occupancy_limit).
  std::optional<Ballast> ballast = add_ballast(point.params, target.limits, k, launch, r);
  if (ballast && !ballast->skip_reason.empty()) return r;
  OccupancyResult occupancy = compute_occupancy(target.limits, k, threads, launch.dynamic_smem_bytes);
  ordered_json o = occupancy_json(occupancy, 0);
  o["api_active_blocks_per_sm"] = nullptr;  // no GPU asked: the calculator alone
  o["api_agrees"] = nullptr;
  if (ballast) {
    o["forced"] = to_json(*ballast, 0);
    o["forced"]["api_active_blocks_per_sm"] = nullptr;
    o["forced"]["api_agrees"] = nullptr;
  }
  r["occupancy"] = o;
  if (target.limits.sm_count > 0 && occupancy.active_blocks_per_sm > 0) {
    // Waves: how many rounds of fully occupied SMs the grid takes (a tail wave idles SMs).
    double per_wave = double(occupancy.active_blocks_per_sm) * target.limits.sm_count;
    r["occupancy"]["waves"] = double(launch.grid.count()) / per_wave;
  }
  return r;
}

namespace {
int plan_arch(const PlanTarget& target) { return target.limits.compute_major * 10 + target.limits.compute_minor; }

std::vector<std::pair<std::string, Params>> compile_wanted(const std::vector<Point>& points) {
  std::vector<std::pair<std::string, Params>> wanted;
  for (const auto& point : points) wanted.emplace_back(point.variant->name, point.params);
  return wanted;
}

// A family of the user's CUDA source has every point's kernel compiled first, by one process per
// core; the points then take their compiled kernels from the cache one by one.
// `planned`: the plan's points, a sample of a sweep too large to expand where its name is random:
// the workers compile that sample (--compile-sample), not the whole sweep (they expanded 10^10 points).
void compile_ahead(const SweepSpec& spec, const Registry& registry, const std::vector<Point>& points, const Strategy& planned,
                   const PlanTarget& target, const PlanOptions& options) {
  const Family* family = sweep_family(spec, registry);
  if (!family || !family->precompile) return;
  unsigned count = unsigned(std::min<std::size_t>(compile_processes(), points.size()));
  std::vector<std::string> argv = options.argv;
  if (planned.name == "random" && planned.max_points)
    argv.insert(argv.end(), {"--compile-sample", fmt::format("{}:{}:{}", planned.name, *planned.max_points, planned.seed)});
  // Only the occbench command runs itself again (a test binary calling plan_main compiles here).
  if (count > 1 && running_as_occbench() && !argv.empty()) CompileWorkers(argv, count, /*hide_gpus=*/false).wait();
  else family->precompile(compile_wanted(points), plan_arch(target), 0, 1);
}

// --compile-sample NAME:N:SEED: the strategy of a run that measures a sample of the sweep.
Strategy compile_sample_strategy(const std::string& sample) {
  Strategy strategy;
  if (sample.empty()) return strategy;
  char name[16] = {};
  std::size_t max_points = 0;
  unsigned long long seed = 0;
  if (std::sscanf(sample.c_str(), "%15[a-z]:%zu:%llu", name, &max_points, &seed) != 3)
    throw PlanError(fmt::format("--compile-sample {}: expected NAME:N:SEED", sample));
  strategy.name = name;
  strategy.max_points = max_points;
  strategy.seed = seed;
  return strategy;
}

// plan --compile-share W/N (a worker of compile_ahead): compiles its share and nothing else.
int compile_share(const SweepSpec& spec, const Registry& registry, const PlanTarget& target, const PlanOptions& options) {
  unsigned index = 0, count = 0;
  if (std::sscanf(options.compile_share.c_str(), "%u/%u", &index, &count) != 2 || count == 0 || index >= count)
    throw PlanError(fmt::format("--compile-share {}: expected W/N with W < N", options.compile_share));
  const Family* family = sweep_family(spec, registry);
  std::vector<Point> points = make_point_source(spec, registry, compile_sample_strategy(options.compile_sample))->points();
  if (!options.compile_skip.empty()) {  // a resumed run measures only the points its record lacks
    auto finished = records_by_point(read_jsonl(options.compile_skip));
    points.erase(std::remove_if(points.begin(), points.end(), [&](const Point& p) { return finished.count(p.id) > 0; }), points.end());
  }
  if (family && family->precompile) family->precompile(compile_wanted(points), plan_arch(target), index, count);
  return 0;
}

// plan --compile-queue FILE (a search's worker): compiles the points the run names in FILE.
int compile_queue_worker(const SweepSpec& spec, const Registry& registry, const PlanTarget& target, const PlanOptions& options) {
  const Family* family = sweep_family(spec, registry);
  if (!family || !family->precompile) return 0;
  follow_compile_queue(
      options.compile_queue, [&](const std::string& id) { return point_with_id(spec, registry, id); },
      [&](const Point& p) { family->precompile({{p.variant->name, p.params}}, plan_arch(target), 0, 1); },
      while_parent_lives());
  return 0;
}
// Every point, or of a sweep too large to expand a uniform sample of kPlannedAtMost (said in the log).
Strategy planned_points(const SweepSpec& spec, const Registry& registry, std::ostream& log) {
  Strategy strategy;
  if (!CountedSweep::is_countable(spec) || spec.selection.shard_count > 0) return strategy;
  std::uint64_t valid = count_sweep(spec, registry);
  if (valid <= kExpandedUpTo) return strategy;
  strategy.name = "random";
  strategy.max_points = kPlannedAtMost;
  log << fmt::format("plan: the sweep has {} valid point(s); planning a uniform sample of {} of them\n", valid, kPlannedAtMost);
  return strategy;
}

}  // namespace

PlanSummary plan_sweep(const SweepSpec& spec, const Registry& registry, const PlanTarget& target,
                       const KernelResourceTable& resources, const PlanOptions& options, std::ostream& log) {
  PlanSummary summary;
  std::string started = utc_now_iso();
  std::vector<ordered_json> results;
  Strategy planned = planned_points(spec, registry, log);
  std::unique_ptr<ListSource> source = make_point_source(spec, registry, planned);
  compile_ahead(spec, registry, source->points(), planned, target, options);
  for (const auto& point : source->points()) {
    ordered_json r;
    try {
      r = plan_point(point, target, resources);
    } catch (const std::exception& e) {
      r = unrun_record(point, "failed", e.what());
    }
    std::string status = r["status"];
    summary.planned += status == "planned";
    summary.skipped += status == "skipped";
    summary.failed += status == "failed";
    results.push_back(std::move(r));
  }

  ordered_json run = {{"kind", "plan"},
                      {"started_utc", started},
                      {"finished_utc", utc_now_iso()},
                      {"command", options.command_line},
                      {"config_source", spec.source},
                      {"gpu", target.key},
                      {"resource_arch", fmt::format("sm_{}", target.resource_arch)},
                      {"resources_from", "nvcc --resource-usage (ptxas) of every kernel, captured when this binary was built"},
                      {"built_architectures", arch_list_text(built_cuda_architectures())},
                      {"note", target.note}};
  if (!spec.selection.empty()) run["selection"] = to_json(spec.selection);  // --variants, --filter, --set
  summary.document = make_document(run, target.device, spec.raw, results);
  summary.document["units"]["footprint.device_bytes"] = "bytes of device memory the problem allocates";
  summary.document["units"]["occupancy.waves"] = "grid blocks / (active blocks per SM x SMs)";

  log << fmt::format("plan: {} on {} ({}, compute capability {}.{}), {} SMs; registers and shared memory of this build's "
                     "sm_{} code\n",
                     spec.name, target.key, target.name, target.limits.compute_major, target.limits.compute_minor,
                     target.limits.sm_count, target.resource_arch);
  if (!target.note.empty()) log << "note: " << target.note << "\n";
  log << "\n" << format_plan_table(results);
  log << fmt::format("\n{} planned, {} skipped, {} failed\n", summary.planned, summary.skipped, summary.failed);
  if (options.write_files) {
    std::string stem = output_stem(options.out_dir, spec.name + "-plan", target.key, utc_now_compact());
    summary.json_path = stem + ".json";
    summary.csv_path = stem + ".csv";
    write_text_file(summary.json_path, summary.document.dump(2) + "\n");
    write_text_file(summary.csv_path, to_csv(results));
    log << fmt::format("wrote {}\n      {}\n", summary.json_path, summary.csv_path);
  }
  return summary;
}

std::string format_plan_table(const std::vector<ordered_json>& results) {
  constexpr int kColumns = 14;
  using Row = std::vector<std::string>;
  std::vector<Row> rows;
  rows.push_back({"variant", "params", "status", "grid", "block", "dyn smem", "regs", "smem", "blk/SM", "warps/SM",
                  "occupancy", "limiter", "thr util", "CGMA"});
  std::vector<std::string> reasons;
  for (const auto& r : results) {
    std::string params = params_text(r);
    std::string status = r.value("status", "");
    std::string reason = r.value("reason", "");
    if (status != "planned" && !reason.empty()) {
      reasons.push_back(reason);
      status += fmt::format(" [{}]", reasons.size());
    }
    std::string grid = "-", block = "-";
    if (r["launch"].is_object()) {
      const auto& l = r["launch"];
      auto dims = [](const ordered_json& d) {
        std::string s = d[0].dump();
        if (d[1] != 1 || d[2] != 1) s += "x" + d[1].dump();
        if (d[2] != 1) s += "x" + d[2].dump();
        return s;
      };
      grid = dims(l["grid"]);
      block = dims(l["block"]);
    }
    rows.push_back({r.value("variant", ""), params, status, grid, block, format_number(number_at(r, "launch", "dynamic_smem_bytes"), "{:.0f}"),
                    format_number(number_at(r, "resources", "registers_per_thread"), "{:.0f}"),
                    format_number(number_at(r, "resources", "static_smem_bytes"), "{:.0f}"),
                    format_number(number_at(r, "occupancy", "active_blocks_per_sm"), "{:.0f}"),
                    format_number(number_at(r, "occupancy", "active_warps_per_sm"), "{:.0f}"),
                    format_number(number_at(r, "occupancy", "theoretical"), "{:.3f}"),
                    r["occupancy"].is_object() ? r["occupancy"].value("limiter", "") : "-",
                    format_number(number_at(r, "occupancy", "thread_utilization"), "{:.3f}"),
                    format_number(number_at(r, "work", "cgma_flop_per_byte"), "{:.3g}")});
  }
  std::size_t width[kColumns] = {};
  for (const auto& row : rows)
    for (int i = 0; i < kColumns; ++i) width[i] = std::max(width[i], row[i].size());
  std::string out;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    for (int i = 0; i < kColumns; ++i) {
      bool numeric = i >= 3 && i != 11;
      out += numeric ? fmt::format("{:>{}}", rows[k][i], width[i]) : fmt::format("{:<{}}", rows[k][i], width[i]);
      out += i + 1 < kColumns ? "  " : "\n";
    }
    if (k == 0) {
      std::size_t total = 0;
      for (auto w : width) total += w + 2;
      out += std::string(total - 2, '-') + "\n";
    }
  }
  for (std::size_t i = 0; i < reasons.size(); ++i) out += fmt::format("[{}] {}\n", i + 1, reasons[i]);
  return out;
}

namespace {
// The SM clocks of the GPU planned for: NVML on this machine's, the table's for another.
SmClockList plan_sm_clocks(const PlanOptions& options, const PlanTarget& target) {
  if (options.gpu.empty() && !no_gpu_reason()) return local_sm_clocks(target.device.value("pci_bus_id", ""));
  if (const GpuSpec* gpu = find_gpu(target.key)) return table_sm_clocks(*gpu);
  return {};
}
}  // namespace

int plan_main(const PlanOptions& options, const Registry& registry, std::ostream& out, std::ostream& err) {
  try {
    if (options.list_gpus) {
      out << format_gpu_table();
      out << fmt::format("\nThis build has machine code for: {}\n", arch_list_text(built_cuda_architectures()));
      return 0;
    }
    if (options.config.empty()) {
      err << "error: plan needs a sweep config (or --list-gpus)\n";
      return 2;
    }
    SweepSpec spec = apply_selection(parse_sweep_file(options.config, registry), options.selection, registry);
    if (options.compile_queue.empty() && options.compile_share.empty()) check_output_folder("plan --out", options.out_dir);
    std::vector<int> built = built_cuda_architectures();
    PlanTarget target;
    if (!options.gpu.empty()) {
      target = plan_target(gpu_by_key(options.gpu), built);
    } else if (auto reason = no_gpu_reason()) {
      const GpuSpec& fallback = gpu_by_key(kDefaultPlanGpu);
      out << fmt::format("occbench plan: no GPU here ({}); planning for the {} ({}); timings need a GPU (occbench run {})\n",
                         *reason, fallback.key, fallback.name, options.config);
      target = plan_target(fallback, built);
    } else {
      target = plan_target(query_device(0), built);
    }
    if (!options.compile_queue.empty()) return compile_queue_worker(spec, registry, target, options);
    if (!options.compile_share.empty()) return compile_share(spec, registry, target, options);
    if (uses_sm_clock_axis(spec)) out << check_sm_clocks(spec, plan_sm_clocks(options, target), target.name);
    out << restrictions_summary(spec, registry);
    PlanSummary summary = plan_sweep(spec, registry, target, built_kernel_resources(), options, out);
    if (summary.failed > 0) {
      err << fmt::format("occbench plan: {} point(s) could not be planned; see the reasons under the table\n", summary.failed);
      return 1;
    }
    return 0;
  } catch (const BadInput& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  } catch (const PlanError& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace occbench
