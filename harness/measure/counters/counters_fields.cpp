#include "harness/measure/counters/counters.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace occbench {

using ordered_json = nlohmann::ordered_json;

const std::vector<CounterMetric>& counter_metrics() {
  using C = CounterCombine;
  static const std::vector<CounterMetric> metrics = {
      {"dram_read_bytes", "dram__bytes_read.sum", "bytes", C::sum, 1},
      {"dram_write_bytes", "dram__bytes_write.sum", "bytes", C::sum, 1},
      {"l2_bytes", "lts__t_bytes.sum", "bytes of L2 tag traffic (all requests)", C::sum, 1},
      {"l1_global_load_bytes", "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum", "bytes", C::sum, 1},
      {"l1_global_store_bytes", "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum", "bytes", C::sum, 1},
      {"shared_load_instructions", "smsp__inst_executed_op_shared_ld.sum", "warp instructions", C::sum, 1},
      {"shared_store_instructions", "smsp__inst_executed_op_shared_st.sum", "warp instructions", C::sum, 1},
      // The L1's count: the addresses' conflicts and arbitration's (a shared access meeting an L1
      // fill in the same bank), so it moves from run to run; shared_*_bank_conflicts are the
      // addresses' alone, instrumented (SharedAccessCounts).
      {"shared_load_bank_conflicts_with_arbitration", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
       "bank conflicts counted by the L1, arbitration included", C::sum, 1},
      {"shared_store_bank_conflicts_with_arbitration", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
       "bank conflicts counted by the L1, arbitration included", C::sum, 1},
      // Not sm__throughput (Nsight Compute's "Compute (SM) Throughput", the max of its ~40-counter
      // breakdown): on GH100 it alone needs 8 passes and took this set from 3 to 9 replays per point
      // (cuptiProfilerHostGetNumOfPasses). The issue-active % comes in the same 3 passes.
      {"sm_issue_active_pct_of_peak", "smsp__issue_active.avg.pct_of_peak_sustained_elapsed",
       "% of cycles the warp schedulers issued an instruction", C::duration_weighted, 1},
      {"dram_throughput_pct_of_peak", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "% of peak",
       C::duration_weighted, 1},
      {"duration_ns", "gpu__time_duration.sum", "ns, summed over the launch's kernels", C::sum, 1},
      {"sm_cycles", "sm__cycles_elapsed.avg", "cycles (per SM, average), summed over kernels", C::sum, 1},
      // Last on purpose: CUPTI schedules the counters into passes in the order given, and with
      // this metric first the same set needs 3 passes on GH100 instead of 2
      // (cuptiProfilerHostGetNumOfPasses; each pass costs ~18 ms of CUPTI start/stop per point).
      {"achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active",
       "fraction of max warps per SM, averaged over active cycles (0-1)", C::duration_weighted, 0.01},
  };
  return metrics;
}

std::size_t counter_index(const char* field) {
  const auto& metrics = counter_metrics();
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (std::string(metrics[i].field) == field) return i;
  throw std::logic_error(fmt::format("no counter field '{}'", field));
}

namespace {

ordered_json ratio(double numerator, double denominator) {
  return denominator > 0 ? ordered_json(numerator / denominator) : ordered_json(nullptr);
}

}  // namespace

SharedAccessCounts sum_shared_accesses(const std::vector<InstructionSharedCounts>& instructions) {
  SharedAccessCounts total;
  for (const auto& i : instructions) {
    total.load_instructions += i.load_instructions;
    total.store_instructions += i.store_instructions;
    total.wavefronts += i.wavefronts;
    total.ideal_wavefronts += i.ideal_wavefronts;
    if (i.load_instructions > 0) {
      total.load_wavefronts += i.wavefronts;
      total.load_ideal_wavefronts += i.ideal_wavefronts;
    } else if (i.store_instructions > 0) {
      total.store_wavefronts += i.wavefronts;
      total.store_ideal_wavefronts += i.ideal_wavefronts;
    }
  }
  return total;
}

std::string instrumentation_skip_reason(double kernel_ms, double max_kernel_ms) {
  if (max_kernel_ms <= 0) return "shared-memory instrumentation off (measurement.instrumented_max_kernel_ms is 0)";
  if (kernel_ms <= max_kernel_ms) return "";
  return fmt::format("not instrumented: the kernel's median, {:.4g} ms, is over measurement.instrumented_max_kernel_ms ({:g}); "
                     "instrumented it would run ~30-350x longer (H100)", kernel_ms, max_kernel_ms);
}

std::string shared_access_mismatch(const SharedAccessCounts& counts, double hardware_load_instructions,
                                   double hardware_store_instructions) {
  // The instrumented count leaves out warp instructions run with every thread's predicate off
  // (an unrolled loop's spare iteration), which the hardware counts: it may be lower, never higher,
  // and not zero where the hardware saw shared instructions (an unpatched launch reports nothing).
  bool unpatched = counts.load_instructions + counts.store_instructions == 0 &&
                   hardware_load_instructions + hardware_store_instructions > 0;
  bool more = counts.load_instructions > hardware_load_instructions || counts.store_instructions > hardware_store_instructions;
  if (!unpatched && !more) return "";
  return fmt::format("the instrumented launch counted {} shared load and {} shared store warp instructions where the "
                     "hardware counted {} and {}: its wavefronts would not be this launch's",
                     counts.load_instructions, counts.store_instructions, hardware_load_instructions, hardware_store_instructions);
}

std::vector<double> combine_kernels(const std::vector<std::vector<double>>& per_kernel) {
  const auto& metrics = counter_metrics();
  std::size_t duration = counter_index("duration_ns");
  std::vector<double> combined(metrics.size(), 0.0);
  double total_duration = 0;
  for (const auto& values : per_kernel) total_duration += values[duration];
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    for (const auto& values : per_kernel) {
      if (metrics[m].combine == CounterCombine::sum) {
        combined[m] += values[m];
      } else if (total_duration > 0) {
        combined[m] += values[m] * values[duration] / total_duration;
      } else {
        combined[m] += values[m] / double(per_kernel.size());
      }
    }
  }
  return combined;
}

ordered_json measured_counters_json(const CounterReading& reading, const WorkModel& work,
                                    std::optional<double> theoretical_occupancy) {
  const auto& metrics = counter_metrics();
  auto value = [&](const char* field) { return reading.values.at(counter_index(field)); };
  ordered_json c;
  c["status"] = "measured";
  c["reason"] = "";
  c["kernels"] = reading.kernels;
  c["passes"] = reading.passes;
  c["batch_points"] = reading.batch_launches;
  c["l2_flush"] = reading.l2_flush_per_kernel ? "per_kernel" : "per_launch";
  c["added_s"] = reading.added_s;
  c["added_setup_s"] = reading.setup_s;
  c["added_replay_s"] = reading.replay_s;
  c["added_flush_s"] = reading.flush_s;
  c["added_launch_s"] = reading.launch_s;
  c["added_pass_start_s"] = reading.start_s;
  c["added_pass_stop_s"] = reading.stop_s;
  c["added_decode_s"] = reading.decode_s;
  for (std::size_t m = 0; m < metrics.size(); ++m) c[metrics[m].field] = reading.values.at(m) * metrics[m].scale;
  // Instrumented: exact, or null with the reason.
  const bool instrumented = reading.shared_access.has_value();
  const SharedAccessCounts shared = reading.shared_access.value_or(SharedAccessCounts{});
  auto or_null = [&](double v) { return instrumented ? ordered_json(v) : ordered_json(nullptr); };
  const double load_conflicts = shared.load_wavefronts - shared.load_ideal_wavefronts;
  const double store_conflicts = shared.store_wavefronts - shared.store_ideal_wavefronts;
  c["shared_load_wavefronts"] = or_null(shared.load_wavefronts);
  c["shared_store_wavefronts"] = or_null(shared.store_wavefronts);
  c["shared_load_bank_conflicts"] = or_null(load_conflicts);
  c["shared_store_bank_conflicts"] = or_null(store_conflicts);
  c["shared_bank_conflicts"] = or_null(shared.wavefronts - shared.ideal_wavefronts);
  c["shared_access_reason"] = instrumented ? std::string() : reading.shared_access_reason;
  c["added_instrumented_s"] = reading.instrumented_s;

  double dram = value("dram_read_bytes") + value("dram_write_bytes");
  double l2 = value("l2_bytes");
  double l1 = value("l1_global_load_bytes") + value("l1_global_store_bytes");
  double seconds = value("duration_ns") * 1e-9;
  c["dram_bytes"] = dram;
  c["l1_global_bytes"] = l1;
  c["intensity_dram_flop_per_byte"] = ratio(work.flops, dram);
  c["intensity_l2_flop_per_byte"] = ratio(work.flops, l2);
  c["intensity_l1_flop_per_byte"] = ratio(work.flops, l1);
  c["dram_bytes_over_model"] = ratio(dram, work.dram_bytes);
  double achieved = value("achieved_occupancy") * 0.01;
  c["achieved_over_theoretical_occupancy"] = theoretical_occupancy ? ratio(achieved, *theoretical_occupancy) : ordered_json(nullptr);
  c["shared_load_conflicts_per_instruction"] =
      instrumented ? ratio(load_conflicts, value("shared_load_instructions")) : ordered_json(nullptr);
  c["shared_store_conflicts_per_instruction"] =
      instrumented ? ratio(store_conflicts, value("shared_store_instructions")) : ordered_json(nullptr);
  c["dram_bandwidth_gbps"] = ratio(dram * 1e-9, seconds);
  c["l2_bandwidth_gbps"] = ratio(l2 * 1e-9, seconds);
  c["l1_bandwidth_gbps"] = ratio(l1 * 1e-9, seconds);
  c["gflops"] = ratio(work.flops * 1e-9, seconds);
  return c;
}

ordered_json unavailable_counters_json(const std::string& reason) {
  return {{"status", "unavailable"}, {"reason", reason}};
}

ordered_json counters_units() {
  ordered_json u;
  for (const auto& m : counter_metrics())
    u[std::string("counters.") + m.field] = fmt::format("{} (CUPTI {})", m.unit, m.metric);
  u["counters.kernels"] = "kernels of the launch, each one range; values are summed over them (ratios: weighted by duration)";
  u["counters.passes"] = "replays of the launch CUPTI needed for all metrics";
  u["counters.l2_flush"] =
      "when the L2 was flushed during the replays (measurement.counters_l2_flush): per_launch, before each replay of "
      "the launch; per_kernel, before each of its kernels too, as Nsight Compute";
  u["counters.batch_points"] = "points counted in the same collection (the same passes; the added times are each point's share)";
  u["counters.added_s"] = "s of wall time the counters added to the point (after its timing)";
  u["counters.added_setup_s"] = "s of added_s spent enabling and configuring the profiler";
  u["counters.added_replay_s"] = "s of added_s spent replaying the launch (passes, each after an L2 flush)";
  u["counters.added_flush_s"] = "s of added_replay_s spent flushing the L2 before the passes";
  u["counters.added_launch_s"] = "s of added_replay_s spent in the launches themselves";
  u["counters.added_pass_start_s"] = "s of added_replay_s spent in cuptiRangeProfilerStart (all passes)";
  u["counters.added_pass_stop_s"] = "s of added_replay_s spent in cuptiRangeProfilerStop (all passes)";
  u["counters.added_decode_s"] = "s of added_s spent decoding the counter data and evaluating the metrics";
  u["counters.added_instrumented_s"] = "s of added_s spent on the instrumented launch that counts shared-memory wavefronts";
  // Instrumented (CUPTI SASS metrics, each shared instruction patched to count); the name in
  // parentheses is Nsight Compute's for the same count (scripts/ncu/ncu_counters_agreement.py reads it).
  u["counters.shared_load_wavefronts"] =
      "wavefronts of shared loads (LDS, LD), instrumented: CUPTI SASS smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared "
      "of those instructions (ncu smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum)";
  u["counters.shared_store_wavefronts"] =
      "wavefronts of shared stores (STS, ST), instrumented: CUPTI SASS smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared "
      "of those instructions (ncu smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum)";
  u["counters.shared_load_bank_conflicts"] =
      "bank conflicts of shared loads: their wavefronts beyond the ideal (one per 128 bytes a warp asks for), "
      "instrumented: CUPTI SASS smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared - ..._ideal";
  u["counters.shared_store_bank_conflicts"] =
      "bank conflicts of shared stores: their wavefronts beyond the ideal, instrumented as shared_load_bank_conflicts";
  u["counters.shared_bank_conflicts"] =
      "bank conflicts of every shared instruction (loads, stores, LDSM, atomics): wavefronts beyond the ideal, "
      "instrumented (ncu SourceCounters L1 Wavefronts Shared Excessive)";
  u["counters.shared_access_reason"] = "why the instrumented shared-memory counts are null (\"\" where they were counted)";
  u["counters.dram_bytes"] = "bytes, dram_read_bytes + dram_write_bytes";
  u["counters.l1_global_bytes"] = "bytes, L1/TEX global loads + stores";
  u["counters.intensity_dram_flop_per_byte"] = "FLOP per measured DRAM byte (work.flops / dram_bytes)";
  u["counters.intensity_l2_flop_per_byte"] = "FLOP per measured L2 byte (work.flops / l2_bytes)";
  u["counters.intensity_l1_flop_per_byte"] = "FLOP per measured L1/TEX global byte (work.flops / l1_global_bytes)";
  u["counters.dram_bytes_over_model"] = "measured DRAM bytes / work.dram_bytes (1: the model's minimum)";
  u["counters.achieved_over_theoretical_occupancy"] = "achieved_occupancy / occupancy.theoretical";
  u["counters.shared_load_conflicts_per_instruction"] = "shared_load_bank_conflicts per shared load warp instruction (31: every load a 32-way conflict)";
  u["counters.shared_store_conflicts_per_instruction"] = "shared_store_bank_conflicts per shared store warp instruction";
  u["counters.dram_bandwidth_gbps"] = "GB/s, dram_bytes / duration_ns";
  u["counters.l2_bandwidth_gbps"] = "GB/s, l2_bytes / duration_ns";
  u["counters.l1_bandwidth_gbps"] = "GB/s, l1_global_bytes / duration_ns";
  u["counters.gflops"] = "GFLOP/s, work.flops / duration_ns";
  return u;
}

}  // namespace occbench
