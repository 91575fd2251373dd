// Hardware counters (harness/counters) against physical facts on the GPU: the DRAM bytes of a
// copy-like kernel, bank conflicts of the unpadded transpose tile against the padded one, and
// achieved occupancy never above theoretical. Each goes through measure_point, as `run --counters`.
#include "gpu_test_support.hpp"
#include "harness/counters.hpp"
#include "harness/kernel_activity.hpp"
#include "harness/runner.hpp"
#include "harness/sweep.hpp"
#include "harness/timer.hpp"

#include <gtest/gtest.h>

using namespace occbench;

namespace {

// The counters section of one point, measured as `occbench run --counters` does (few samples).
struct CountedPoint {
  ordered_json record;
  ordered_json counters() const { return record.value("counters", ordered_json()); }
};

CountedPoint measure_counted(const std::string& family_name, const std::string& variant, const Params& sizes,
                             const Params& launch_axes) {
  const Family& family = *builtin_registry().find(family_name);
  Point point;
  point.family = &family;
  point.variant = family.find_variant(variant);
  point.sizes = sizes;
  point.params = sizes;
  for (const auto& [name, value] : launch_axes.items()) point.params.set(name, value);
  point.id = point_id(family_name, variant, point.params);
  OCCBENCH_CUDA_CHECK(cudaSetDevice(0));
  DeviceInfo device = query_device(0);
  MeasurementSettings settings;
  settings.min_samples = 1;
  settings.max_samples = 3;
  settings.timeout_s = 0.5;
  settings.counters = true;
  L2Flusher flusher(device.l2_bytes, device.sm_count);
  auto session = CounterSession::open(0);
  cudaStream_t stream;
  OCCBENCH_CUDA_CHECK(cudaStreamCreate(&stream));
  auto problem = family.make_problem(sizes, 11);
  PointContext context{&device, &settings, stream, &flusher, session.get()};
  CountedPoint counted{measure_point(point, *problem, context)};
  OCCBENCH_CUDA_CHECK(cudaStreamDestroy(stream));
  return counted;
}

// Skips (with CUPTI's reason) where this machine cannot count, so the physical checks below only
// run where there is something to check.
#define OCCBENCH_REQUIRE_COUNTERS(counted)                                                         \
  do {                                                                                             \
    ASSERT_EQ((counted).record["status"], "ok") << (counted).record["reason"];                     \
    ASSERT_TRUE((counted).counters().is_object());                                                 \
    if ((counted).counters()["status"] != "measured")                                              \
      GTEST_SKIP() << "counters unavailable: " << (counted).counters()["reason"].get<std::string>(); \
  } while (0)

Params params_of(std::initializer_list<std::pair<const char*, std::int64_t>> values) {
  Params p;
  for (const auto& [name, value] : values) p.set(name, value);
  return p;
}

}  // namespace

TEST(GpuCounters, CopyLikeKernelMovesTwiceItsBytesThroughDram) {
  OCCBENCH_REQUIRE_GPU();
  const std::int64_t n = std::int64_t(256) << 20;  // 256 M floats: 1 GiB read, 1 GiB written
  auto counted = measure_counted("adjacent_difference", "global", params_of({{"n", n}}), params_of({{"block_size", 256}}));
  OCCBENCH_REQUIRE_COUNTERS(counted);
  const ordered_json c = counted.counters();
  double expected = 2.0 * double(n) * sizeof(float);
  double dram = c["dram_read_bytes"].get<double>() + c["dram_write_bytes"].get<double>();
  EXPECT_NEAR(dram / expected, 1.0, 0.03) << c.dump(2);
  EXPECT_NEAR(c["dram_read_bytes"].get<double>() / (expected / 2), 1.0, 0.03);
  EXPECT_NEAR(c["dram_write_bytes"].get<double>() / (expected / 2), 1.0, 0.03);
  EXPECT_NEAR(c["dram_bytes_over_model"].get<double>(), 1.0, 0.03);
  EXPECT_EQ(c["kernels"], 1);
  EXPECT_GE(c["passes"].get<int>(), 1);
  EXPECT_GT(c["duration_ns"].get<double>(), 0);
  EXPECT_GT(c["added_s"].get<double>(), 0);
  // The counters' own duration of the kernel is close to the timed median (same launch, cold L2).
  double median_ns = counted.record["timing"]["median_ms"].get<double>() * 1e6;
  EXPECT_NEAR(c["duration_ns"].get<double>() / median_ns, 1.0, 0.25);
}

TEST(GpuCounters, UnpaddedTransposeTileHasFarMoreBankConflictsThanPadded) {
  OCCBENCH_REQUIRE_GPU();
  Params sizes = params_of({{"rows", 4096}, {"cols", 4096}});
  Params launch = params_of({{"block_rows", 8}});
  auto unpadded = measure_counted("transpose", "shared_tile", sizes, launch);
  OCCBENCH_REQUIRE_COUNTERS(unpadded);
  auto padded = measure_counted("transpose", "shared_tile_padded", sizes, launch);
  OCCBENCH_REQUIRE_COUNTERS(padded);
  double conflicts_unpadded = unpadded.counters()["shared_load_bank_conflicts"].get<double>();
  double conflicts_padded = padded.counters()["shared_load_bank_conflicts"].get<double>();
  // Column reads of a 32-wide tile: every warp load is a 32-way conflict (31 extra wavefronts).
  EXPECT_GT(conflicts_unpadded, 20 * (conflicts_padded + 1)) << unpadded.counters().dump(2) << padded.counters().dump(2);
  EXPECT_GT(unpadded.counters()["shared_load_conflicts_per_instruction"].get<double>(), 16.0);
  EXPECT_LT(padded.counters()["shared_load_conflicts_per_instruction"].get<double>(), 1.0);
  // Both move the same global bytes: the tile changes only the shared-memory side.
  EXPECT_NEAR(unpadded.counters()["dram_bytes"].get<double>() / padded.counters()["dram_bytes"].get<double>(), 1.0, 0.05);
}

TEST(GpuCounters, AchievedOccupancyIsNeverAboveTheoretical) {
  OCCBENCH_REQUIRE_GPU();
  for (std::int64_t block_size : {32, 256, 1024}) {
    auto counted = measure_counted("adjacent_difference", "shared_static", params_of({{"n", std::int64_t(1) << 24}}),
                                   params_of({{"block_size", block_size}}));
    OCCBENCH_REQUIRE_COUNTERS(counted);
    double theoretical = counted.record["occupancy"]["theoretical"].get<double>();
    double achieved = counted.counters()["achieved_occupancy"].get<double>();
    EXPECT_GT(achieved, 0.0) << block_size;
    // Warps counted per active cycle cannot exceed the warps that fit (0.5% for counter sampling).
    EXPECT_LE(achieved, theoretical + 0.005) << "block_size " << block_size;
    EXPECT_NEAR(counted.counters()["achieved_over_theoretical_occupancy"].get<double>(), achieved / theoretical, 1e-9);
  }
}

// Issue 11 item 4: the range profiler (enabled for the whole run) and CUPTI's activity tracing
// (OCCBENCH_TIMING_SOURCE=cupti, on during the timing) in one run: both work, and the counts that
// do not depend on timing are the same as with the event pair.
TEST(GpuCounters, CountersAreTheSameWithCuptiActivityTiming) {
  OCCBENCH_REQUIRE_GPU();
  Params sizes = params_of({{"rows", 4096}, {"cols", 4096}});
  Params launch = params_of({{"block_rows", 8}});
  setenv("OCCBENCH_TIMING_SOURCE", "event", 1);
  auto events = measure_counted("transpose", "shared_tile", sizes, launch);
  setenv("OCCBENCH_TIMING_SOURCE", "cupti", 1);
  auto activity = measure_counted("transpose", "shared_tile", sizes, launch);
  unsetenv("OCCBENCH_TIMING_SOURCE");
  OCCBENCH_REQUIRE_COUNTERS(events);
  ASSERT_EQ(activity.record["status"], "ok") << activity.record["reason"];
  ASSERT_EQ(activity.record["timing"]["source"], kSourceCuptiKernelActivity) << activity.record["timing"].dump(2);
  ASSERT_EQ(activity.counters()["status"], "measured") << activity.counters().dump(2);
  for (const char* exact : {"l1_global_load_bytes", "l1_global_store_bytes", "shared_load_instructions",
                            "shared_store_instructions", "kernels", "passes"})
    EXPECT_EQ(activity.counters()[exact], events.counters()[exact]) << exact;
  for (const char* close : {"dram_read_bytes", "l2_bytes", "shared_load_wavefronts", "achieved_occupancy"})
    EXPECT_NEAR(activity.counters()[close].get<double>() / events.counters()[close].get<double>(), 1.0, 0.02) << close;
}
