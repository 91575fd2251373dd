// The counters section without a GPU: derived figures, the combination over a library call's
// kernels, the units, the reasons given where counters cannot be read, and the config switch.
#include "harness/sweep/config.hpp"
#include "harness/measure/counters/counters.hpp"
#include "harness/measure/device.hpp"
#include "harness/records/record_writer.hpp"
#include "kernels/families.hpp"

#include <cupti_result.h>
#include <gtest/gtest.h>

using namespace occbench;

namespace {

std::size_t field_index(const std::string& field) {
  const auto& metrics = counter_metrics();
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (field == metrics[i].field) return i;
  ADD_FAILURE() << "no field " << field;
  return 0;
}

// A reading with every metric zero except those given.
CounterReading reading_with(std::initializer_list<std::pair<const char*, double>> values) {
  CounterReading r;
  r.values.assign(counter_metrics().size(), 0.0);
  for (const auto& [field, value] : values) r.values[field_index(field)] = value;
  r.kernels = 1;
  r.passes = 12;
  r.added_s = 0.25;
  r.setup_s = 0.01;
  r.replay_s = 0.2;
  r.flush_s = 0.001;
  r.launch_s = 0.004;
  r.start_s = 0.05;
  r.stop_s = 0.145;
  r.decode_s = 0.04;
  return r;
}

}  // namespace

TEST(Counters, DerivedFiguresFollowFromTheMeasuredBytes) {
  WorkModel work;
  work.flops = 8e9;
  work.dram_bytes = 1e9;
  auto reading = reading_with({{"achieved_occupancy", 40.0},  // percent, as CUPTI gives it
                               {"dram_read_bytes", 0.6e9},
                               {"dram_write_bytes", 0.5e9},
                               {"l2_bytes", 2e9},
                               {"l1_global_load_bytes", 3e9},
                               {"l1_global_store_bytes", 1e9},
                               {"shared_load_instructions", 100},
                               {"duration_ns", 1e6}});
  SharedAccessCounts shared;
  shared.load_instructions = 100;
  shared.load_wavefronts = 3200;  // every load a 32-way conflict: 32 wavefronts where 1 would do
  shared.load_ideal_wavefronts = 100;
  shared.wavefronts = 3200;
  shared.ideal_wavefronts = 100;
  reading.shared_access = shared;
  auto c = measured_counters_json(reading, work, 0.5);
  EXPECT_DOUBLE_EQ(c["shared_load_wavefronts"].get<double>(), 3200);
  EXPECT_DOUBLE_EQ(c["shared_load_bank_conflicts"].get<double>(), 3100);
  EXPECT_DOUBLE_EQ(c["shared_store_bank_conflicts"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(c["shared_bank_conflicts"].get<double>(), 3100);
  EXPECT_EQ(c["shared_access_reason"], "");
  EXPECT_EQ(c["status"], "measured");
  EXPECT_EQ(c["kernels"], 1);
  EXPECT_EQ(c["passes"], 12);
  EXPECT_DOUBLE_EQ(c["added_s"].get<double>(), 0.25);
  // Where the added time went, each part under its own name.
  EXPECT_DOUBLE_EQ(c["added_setup_s"].get<double>(), 0.01);
  EXPECT_DOUBLE_EQ(c["added_replay_s"].get<double>(), 0.2);
  EXPECT_DOUBLE_EQ(c["added_flush_s"].get<double>(), 0.001);
  EXPECT_DOUBLE_EQ(c["added_launch_s"].get<double>(), 0.004);
  EXPECT_DOUBLE_EQ(c["added_pass_start_s"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(c["added_pass_stop_s"].get<double>(), 0.145);
  EXPECT_DOUBLE_EQ(c["added_decode_s"].get<double>(), 0.04);
  for (const char* field : {"added_setup_s", "added_flush_s", "added_launch_s", "added_pass_start_s", "added_pass_stop_s", "added_decode_s"})
    EXPECT_TRUE(counters_units().contains(std::string("counters.") + field)) << field;
  EXPECT_DOUBLE_EQ(c["achieved_occupancy"].get<double>(), 0.40);  // a fraction, like occupancy.theoretical
  EXPECT_DOUBLE_EQ(c["achieved_over_theoretical_occupancy"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(c["dram_bytes"].get<double>(), 1.1e9);
  EXPECT_DOUBLE_EQ(c["dram_bytes_over_model"].get<double>(), 1.1);
  EXPECT_DOUBLE_EQ(c["intensity_dram_flop_per_byte"].get<double>(), 8e9 / 1.1e9);
  EXPECT_DOUBLE_EQ(c["intensity_l2_flop_per_byte"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(c["intensity_l1_flop_per_byte"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(c["shared_load_conflicts_per_instruction"].get<double>(), 31.0);
  EXPECT_TRUE(c["shared_store_conflicts_per_instruction"].is_null());  // no store instructions: no ratio
  EXPECT_DOUBLE_EQ(c["dram_bandwidth_gbps"].get<double>(), 1100.0);   // 1.1 GB in 1 ms
  EXPECT_DOUBLE_EQ(c["l2_bandwidth_gbps"].get<double>(), 2000.0);
  EXPECT_DOUBLE_EQ(c["gflops"].get<double>(), 8000.0);
}

TEST(Counters, InstrumentedCountsSplitLoadsFromStoresByInstruction) {
  // An unpadded transpose tile's column read (32 wavefronts, ideal 1), its row store (1, 1) and an
  // LDSM (4 wavefronts, ideal 2: neither an LDS nor an STS): per warp instruction, 100 times each.
  auto total = sum_shared_accesses({{100, 0, 3200, 100}, {0, 100, 100, 100}, {0, 0, 400, 200}});
  EXPECT_DOUBLE_EQ(total.load_instructions, 100);
  EXPECT_DOUBLE_EQ(total.store_instructions, 100);
  EXPECT_DOUBLE_EQ(total.load_wavefronts, 3200);
  EXPECT_DOUBLE_EQ(total.load_ideal_wavefronts, 100);
  EXPECT_DOUBLE_EQ(total.store_wavefronts, 100);
  EXPECT_DOUBLE_EQ(total.store_ideal_wavefronts, 100);
  EXPECT_DOUBLE_EQ(total.wavefronts, 3700);  // the LDSM counts in the total only
  EXPECT_DOUBLE_EQ(total.ideal_wavefronts, 400);
  EXPECT_DOUBLE_EQ(sum_shared_accesses({}).wavefronts, 0);
}

TEST(Counters, InstrumentedCountsMustBeTheHardwaresInstructions) {
  SharedAccessCounts counted;
  counted.load_instructions = 100;
  counted.store_instructions = 50;
  EXPECT_EQ(shared_access_mismatch(counted, 100, 50), "");
  // An unpatched launch reports nothing while the hardware saw shared loads: not zero conflicts.
  std::string unpatched = shared_access_mismatch(SharedAccessCounts{}, 100, 50);
  EXPECT_NE(unpatched.find("counted 0 shared load"), std::string::npos) << unpatched;
  EXPECT_NE(unpatched.find("hardware counted 100 and 50"), std::string::npos) << unpatched;
  EXPECT_NE(shared_access_mismatch(counted, 99, 50), "");  // more than the hardware: not this launch's
  // Fewer: warp instructions with every thread predicated off (cost volume's unrolled store loop).
  EXPECT_EQ(shared_access_mismatch(counted, 150, 66), "");
  EXPECT_EQ(shared_access_mismatch(SharedAccessCounts{}, 0, 0), "");  // no shared memory at all
}

TEST(Counters, LongKernelsAreNotInstrumentedAndSaySo) {
  EXPECT_EQ(instrumentation_skip_reason(0.09, 2.0), "");
  EXPECT_EQ(instrumentation_skip_reason(2.0, 2.0), "");
  std::string longer = instrumentation_skip_reason(715.4, 2.0);
  EXPECT_NE(longer.find("715.4 ms"), std::string::npos) << longer;
  EXPECT_NE(longer.find("measurement.instrumented_max_kernel_ms (2)"), std::string::npos) << longer;
  EXPECT_NE(instrumentation_skip_reason(0.01, 0).find("off"), std::string::npos);
}

TEST(Counters, WithoutInstrumentationTheSharedCountsAreNullWithTheReason) {
  auto reading = reading_with({{"shared_load_instructions", 100}});
  reading.shared_access_reason = "shared-memory instrumentation unavailable: virtualized GPU";
  auto c = measured_counters_json(reading, WorkModel{}, std::nullopt);
  EXPECT_EQ(c["status"], "measured");  // the range profiler's counters stand
  for (const char* field : {"shared_load_wavefronts", "shared_store_wavefronts", "shared_load_bank_conflicts",
                            "shared_store_bank_conflicts", "shared_bank_conflicts", "shared_load_conflicts_per_instruction"})
    EXPECT_TRUE(c[field].is_null()) << field;
  EXPECT_EQ(c["shared_access_reason"], "shared-memory instrumentation unavailable: virtualized GPU");
  for (const char* field : {"shared_load_wavefronts", "shared_bank_conflicts", "shared_access_reason", "added_instrumented_s"})
    EXPECT_TRUE(counters_units().contains(std::string("counters.") + field)) << field;
}

TEST(Counters, WithoutAModelOrOccupancyTheRatiosAreNull) {
  auto c = measured_counters_json(reading_with({{"dram_read_bytes", 5}}), WorkModel{}, std::nullopt);
  EXPECT_TRUE(c["dram_bytes_over_model"].is_null());
  EXPECT_TRUE(c["achieved_over_theoretical_occupancy"].is_null());
  EXPECT_TRUE(c["dram_bandwidth_gbps"].is_null());  // no duration
  EXPECT_DOUBLE_EQ(c["intensity_dram_flop_per_byte"].get<double>(), 0.0);
}

TEST(Counters, KernelsOfOneLaunchAreSummedAndRatiosWeightedByDuration) {
  std::size_t n = counter_metrics().size();
  std::vector<double> a(n, 0.0), b(n, 0.0);
  a[field_index("dram_read_bytes")] = 100;
  b[field_index("dram_read_bytes")] = 300;
  a[field_index("duration_ns")] = 1000;
  b[field_index("duration_ns")] = 3000;
  a[field_index("achieved_occupancy")] = 20;
  b[field_index("achieved_occupancy")] = 60;
  auto combined = combine_kernels({a, b});
  EXPECT_DOUBLE_EQ(combined[field_index("dram_read_bytes")], 400);
  EXPECT_DOUBLE_EQ(combined[field_index("duration_ns")], 4000);
  EXPECT_DOUBLE_EQ(combined[field_index("achieved_occupancy")], 50);  // (20*1 + 60*3) / 4
}

TEST(Counters, EveryFieldHasAUnitNamingItsCuptiMetric) {
  auto units = units_block();
  for (const auto& m : counter_metrics()) {
    std::string key = std::string("counters.") + m.field;
    ASSERT_TRUE(units.contains(key)) << key;
    EXPECT_NE(units[key].get<std::string>().find(m.metric), std::string::npos) << key;
  }
  for (const char* derived : {"counters.dram_bytes_over_model", "counters.intensity_l2_flop_per_byte",
                              "counters.achieved_over_theoretical_occupancy", "counters.added_s"})
    EXPECT_TRUE(units.contains(derived)) << derived;
  EXPECT_TRUE(units.contains("device.measured_l2_bandwidth_gbps"));
  EXPECT_TRUE(units.contains("device.measured_smem_bandwidth_gbps"));
}

TEST(Counters, NoPermissionSaysSoAndHowToAllowIt) {
  std::string reason = cupti_failure_reason(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiRangeProfilerSetConfig",
                                            "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES");
  EXPECT_NE(reason.find("no permission"), std::string::npos) << reason;
  EXPECT_NE(reason.find("CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), std::string::npos) << reason;
  EXPECT_NE(reason.find("NVreg_RestrictProfilingToAdminUsers"), std::string::npos) << reason;
  EXPECT_NE(reason.find("cuptiRangeProfilerSetConfig"), std::string::npos) << reason;
  EXPECT_NE(cupti_failure_reason(CUPTI_ERROR_NOT_SUPPORTED, "cuptiProfilerHostInitialize", "").find("unsupported GPU"),
            std::string::npos);
  EXPECT_NE(cupti_failure_reason(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED, "x", "").find("virtualized"),
            std::string::npos);
  EXPECT_NE(cupti_failure_reason(999, "x", "").find("CUPTI error 999"), std::string::npos);
}

TEST(Counters, UnavailableSectionKeepsTheReason) {
  auto c = unavailable_counters_json("no permission to read the GPU's performance counters");
  EXPECT_EQ(c["status"], "unavailable");
  EXPECT_EQ(c["reason"], "no permission to read the GPU's performance counters");
  EXPECT_FALSE(c.contains("achieved_occupancy"));
}

TEST(Counters, SessionWithoutAGpuIsUnavailableWithAReasonNotACrash) {
  auto session = CounterSession::open(0);
  ASSERT_NE(session, nullptr);
  if (no_gpu_reason()) {
    EXPECT_FALSE(session->available());
    EXPECT_FALSE(session->unavailable_reason().empty());
    EXPECT_THROW(session->measure([] {}, nullptr), std::runtime_error);
  } else {
    // With a GPU, either counting works or the reason is stated (e.g. no permission).
    EXPECT_EQ(session->available(), session->unavailable_reason().empty());
  }
}

TEST(Counters, ConfigSwitchIsValidatedAndEchoed) {
  auto spec = parse_sweep_text(R"({"name": "c", "family": "adjacent_difference", "sizes": {"n": [1024]},
      "measurement": {"counters": true}})", "c.json", builtin_registry());
  EXPECT_TRUE(spec.measurement.counters);
  EXPECT_EQ(to_json(spec.measurement)["counters"], true);
  auto plain = parse_sweep_text(R"({"name": "c", "family": "adjacent_difference", "sizes": {"n": [1024]}})", "c.json",
                                builtin_registry());
  EXPECT_FALSE(plain.measurement.counters);
  try {
    parse_sweep_text(R"({"name": "c", "family": "adjacent_difference", "sizes": {"n": [1024]},
        "measurement": {"counters": "yes"}})", "bad.json", builtin_registry());
    FAIL() << "a string for measurement.counters was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_EQ(e.json_path(), "$.measurement.counters");
    EXPECT_NE(e.expected().find("true or false"), std::string::npos) << e.expected();
  }
}

// The counters' cost per point is mostly replays (item 7: <= 3x the sweep without counters).
// sm__throughput alone took the set from 3 to 9 passes on GH100; this keeps an added metric from
// doing that again unnoticed. The host API needs libcupti but no GPU.
TEST(Counters, TheMetricSetNeedsTwoPassesOnTheH100) {
  int passes = 0;
  try {
    passes = counter_passes("GH100");
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << "CUPTI's profiler host API is not usable here: " << e.what();
  }
  EXPECT_EQ(passes, 2);
  EXPECT_THROW(counter_passes("NO_SUCH_CHIP"), std::runtime_error);
}

TEST(Counters, ConfigureOnceSwitchRejectsAnUnknownValueNamingTheVariable) {
  setenv("OCCBENCH_COUNTERS_CONFIG", "sometimes", 1);
  try {
    CounterSession::open(0);
    unsetenv("OCCBENCH_COUNTERS_CONFIG");
    FAIL() << "OCCBENCH_COUNTERS_CONFIG=sometimes was accepted";
  } catch (const std::invalid_argument& e) {
    unsetenv("OCCBENCH_COUNTERS_CONFIG");
    EXPECT_NE(std::string(e.what()).find("OCCBENCH_COUNTERS_CONFIG: expected point or run, got 'sometimes'"),
              std::string::npos) << e.what();
  }
  for (const char* value : {"point", "run"}) {
    setenv("OCCBENCH_COUNTERS_CONFIG", value, 1);
    EXPECT_NE(CounterSession::open(0), nullptr) << value;
  }
  unsetenv("OCCBENCH_COUNTERS_CONFIG");
}

// A batch collection's ranges, split at the flush kernels that open each point's launch.
TEST(Counters, BatchRangesSplitAtTheFlushKernels) {
  using Split = std::vector<std::vector<std::size_t>>;
  EXPECT_EQ(split_ranges_at_flushes({true, false, true, false, false}, 2), (Split{{1}, {3, 4}}));
  EXPECT_THROW(split_ranges_at_flushes({true, false, true, false}, 3), std::runtime_error);  // fewer flushes than launches
  EXPECT_THROW(split_ranges_at_flushes({true, true, false}, 2), std::runtime_error);         // a launch without a kernel
  EXPECT_THROW(split_ranges_at_flushes({false, true, false}, 1), std::runtime_error);        // a kernel before any flush
}

// A flush range is the one that read the flush buffer (within 1%) and stored nothing.
TEST(Counters, AFlushRangeIsTheOneThatReadTheFlushBufferAndStoredNothing) {
  double flush = 104857600;  // 2 x the H100's 50 MiB L2
  EXPECT_TRUE(is_flush_range(flush, 0, flush));
  EXPECT_TRUE(is_flush_range(flush * 1.005, 0, flush));
  EXPECT_FALSE(is_flush_range(flush, 4, flush));        // a kernel that also stores
  EXPECT_FALSE(is_flush_range(flush * 0.9, 0, flush));  // reads a different volume
  EXPECT_FALSE(is_flush_range(flush, 0, 0));            // no flush, no flush range
}

TEST(Counters, TheRecordSaysHowManyPointsShareTheCollection) {
  CounterReading reading = reading_with({{"dram_read_bytes", 1}});
  reading.batch_launches = 16;
  auto c = measured_counters_json(reading, WorkModel{}, std::nullopt);
  EXPECT_EQ(c["batch_points"], 16);
  EXPECT_TRUE(counters_units().contains("counters.batch_points"));
}

TEST(Counters, TheRecordSaysWhenTheL2WasFlushed) {
  CounterReading reading = reading_with({{"dram_read_bytes", 1}});
  EXPECT_EQ(measured_counters_json(reading, WorkModel{}, std::nullopt)["l2_flush"], "per_launch");
  reading.l2_flush_per_kernel = true;
  EXPECT_EQ(measured_counters_json(reading, WorkModel{}, std::nullopt)["l2_flush"], "per_kernel");
  EXPECT_TRUE(counters_units().contains("counters.l2_flush"));
}
