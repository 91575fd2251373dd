// Hardware counters (harness/measure/counters) against physical facts on the GPU: the DRAM bytes of a
// copy-like kernel, bank conflicts of the unpadded transpose tile against the padded one, and
// achieved occupancy never above theoretical. Each goes through measure_point, as `run --counters`.
#include "gpu_test_support.hpp"
#include "harness/measure/counters/counters.hpp"
#include "harness/measure/kernel_activity.hpp"
#include "harness/measure/counters/counters_observer.hpp"
#include "harness/measure/point.hpp"
#include "harness/sweep/sweep.hpp"
#include "harness/measure/timer.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <tuple>
#include <vector>

using namespace occbench;

namespace {

// The counters section of one point, measured as `occbench run --counters` does (few samples).
struct CountedPoint {
  ordered_json record;
  ordered_json counters() const { return record.value("counters", ordered_json()); }
};

// What `occbench run --counters` measures a point with: few samples, the L2 flusher, a CUPTI session.
struct CountingRig {
  DeviceInfo device;
  MeasurementSettings settings;
  std::unique_ptr<L2Flusher> flusher;
  std::unique_ptr<CounterSession> session;
  cudaStream_t stream = nullptr;
  CountingRig() {
    OCCBENCH_CUDA_CHECK(cudaSetDevice(0));
    device = query_device(0);
    settings.min_samples = 1;
    settings.max_samples = 3;
    settings.timeout_s = 0.5;
    settings.counters = true;
    flusher = std::make_unique<L2Flusher>(device.l2_bytes, device.sm_count);
    session = CounterSession::open(0);
    OCCBENCH_CUDA_CHECK(cudaStreamCreate(&stream));
  }
  ~CountingRig() { cudaStreamDestroy(stream); }
  // The L2 flush before a pass or a batch's launch, waited for, as the runner's.
  std::function<void()> flush() {
    return [this] {
      flusher->flush(stream);
      OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    };
  }
  PointContext context() { return PointContext{&device, &settings, stream, flusher.get(), session.get()}; }
};

Point make_point(const Family& family, const std::string& variant, const Params& sizes, const Params& launch_axes) {
  Point point;
  point.family = &family;
  point.variant = family.find_variant(variant);
  point.sizes = sizes;
  point.params = sizes;
  for (const auto& [name, value] : launch_axes.items()) point.params.set(name, value);
  point.id = point_id(family.name, variant, point.params);
  return point;
}

CountedPoint measure_counted(const std::string& family_name, const std::string& variant, const Params& sizes,
                             const Params& launch_axes, double instrumented_max_kernel_ms = 2.0) {
  const Family& family = *builtin_registry().find(family_name);
  Point point = make_point(family, variant, sizes, launch_axes);
  CountingRig rig;
  rig.settings.instrumented_max_kernel_ms = instrumented_max_kernel_ms;
  auto problem = family.make_problem(sizes, 11);
  CountedPoint counted{measure_point(point, *problem, rig.context())};
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
  const ordered_json& u = unpadded.counters();
  const ordered_json& p = padded.counters();
  ASSERT_EQ(u["shared_access_reason"], "") << u.dump(2);
  ASSERT_EQ(p["shared_access_reason"], "") << p.dump(2);
  // Instrumented, so exact: column reads of a 32-wide float tile make every warp load a 32-way
  // conflict (32 wavefronts where 1 would do); the padded tile's column reads and both tiles' row
  // stores are conflict-free.
  double loads = u["shared_load_instructions"].get<double>();
  ASSERT_GT(loads, 0);
  EXPECT_EQ(u["shared_load_wavefronts"].get<double>(), 32 * loads) << u.dump(2);
  EXPECT_EQ(u["shared_load_bank_conflicts"].get<double>(), 31 * loads);
  EXPECT_EQ(u["shared_load_conflicts_per_instruction"].get<double>(), 31.0);
  EXPECT_EQ(p["shared_load_instructions"], u["shared_load_instructions"]);
  EXPECT_EQ(p["shared_load_wavefronts"].get<double>(), loads) << p.dump(2);
  for (const ordered_json* c : {&u, &p}) {
    EXPECT_EQ((*c)["shared_store_bank_conflicts"].get<double>(), 0);
    EXPECT_EQ((*c)["shared_bank_conflicts"], (*c)["shared_load_bank_conflicts"]);
  }
  EXPECT_EQ(p["shared_load_bank_conflicts"].get<double>(), 0);
  // A kernel over measurement.instrumented_max_kernel_ms is not instrumented, and says so; the
  // range profiler's counts stand.
  auto capped = measure_counted("transpose", "shared_tile", sizes, launch, 1e-6);
  OCCBENCH_REQUIRE_COUNTERS(capped);
  EXPECT_TRUE(capped.counters()["shared_load_bank_conflicts"].is_null());
  EXPECT_NE(capped.counters()["shared_access_reason"].get<std::string>().find("not instrumented"), std::string::npos);
  EXPECT_EQ(capped.counters()["shared_load_instructions"], u["shared_load_instructions"]);
  // The L1's own count, arbitration included, is far apart too.
  EXPECT_GT(u["shared_load_bank_conflicts_with_arbitration"].get<double>(),
            20 * (p["shared_load_bank_conflicts_with_arbitration"].get<double>() + 1));
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
                            "shared_store_instructions", "shared_load_wavefronts", "shared_load_bank_conflicts", "kernels", "passes"})
    EXPECT_EQ(activity.counters()[exact], events.counters()[exact]) << exact;
  for (const char* close : {"dram_read_bytes", "l2_bytes", "achieved_occupancy"})
    EXPECT_NEAR(activity.counters()[close].get<double>() / events.counters()[close].get<double>(), 1.0, 0.02) << close;
}

// run --counters counts the points of one problem together (one collection, a flush kernel
// before each launch marking where its ranges begin): each point's counts must be what it gets
// counted alone. Matmul's cuBLAS point makes more than one kernel per launch on some GPUs, so the
// split at the flushes is tested with it.
TEST(GpuCounters, PointsCountedTogetherCountWhatEachCountsAlone) {
  OCCBENCH_REQUIRE_GPU();
  const Family& family = *builtin_registry().find("matmul");
  Params sizes = params_of({{"m", 512}, {"n", 512}, {"k", 512}});
  std::vector<Point> points;
  for (const auto& [variant, axis, value] : std::vector<std::tuple<const char*, const char*, int>>{
           {"naive", "block_size", 16}, {"tiled", "tile", 16}, {"tiled", "tile", 32}, {"cublas_sgemm", "", 0}})
    points.push_back(make_point(family, variant, sizes, *axis ? params_of({{axis, value}}) : Params{}));
  CountingRig rig;
  auto problem = family.make_problem(sizes, 11);
  PointContext context = rig.context();
  std::vector<ordered_json> alone;
  // The run's observers: each point's launch kept, its record owing the section, until settle().
  Observers batched = point_observers(context, /*batch_counters=*/true);
  std::vector<SharedRecord> deferred;
  for (const Point& point : points) {
    ordered_json record = measure_point(point, *problem, context);
    ASSERT_EQ(record["status"], "ok") << record["reason"];
    if (record["counters"]["status"] != "measured") GTEST_SKIP() << "counters unavailable: " << record["counters"]["reason"];
    alone.push_back(record["counters"]);
    SharedRecord kept = measure_point(point, *problem, context, batched);
    ASSERT_EQ(kept->sections_owed, 1) << point.id;
    EXPECT_FALSE(kept->json.contains("counters")) << point.id;
    deferred.push_back(kept);
  }
  batched.settle();
  std::vector<ordered_json> together;
  for (const SharedRecord& record : deferred) {
    EXPECT_EQ(record->sections_owed, 0) << record->json["point_id"];
    together.push_back(record->json["counters"]);
  }
  ASSERT_TRUE(rig.session->batch_unusable_reason().empty()) << rig.session->batch_unusable_reason();
  ASSERT_EQ(together.size(), points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ordered_json& t = together[i];
    ASSERT_EQ(t["status"], "measured") << points[i].id << ": " << t.dump(2);
    EXPECT_EQ(t["batch_points"], int(points.size()));
    EXPECT_EQ(alone[i]["batch_points"], 1);
    // Each launch's instrumented counts read apart from the batch's others.
    EXPECT_EQ(t["shared_access_reason"], "") << points[i].id;
    for (const char* exact : {"kernels", "passes", "l1_global_load_bytes", "l1_global_store_bytes", "shared_load_instructions",
                              "shared_store_instructions", "shared_load_wavefronts", "shared_store_wavefronts", "shared_bank_conflicts"})
      EXPECT_EQ(t[exact], alone[i][exact]) << points[i].id << " " << exact;
    // Counts that depend on timing and cache state: within 5% and a floor (some are zero).
    for (const auto& [close, floor] : std::vector<std::pair<const char*, double>>{
             {"dram_read_bytes", 256 * 1024}, {"achieved_occupancy", 0.01}, {"duration_ns", 2000}}) {
      double a = alone[i][close].get<double>();
      EXPECT_NEAR(t[close].get<double>(), a, 0.05 * std::abs(a) + floor) << points[i].id << " " << close;
    }
  }
}

// measurement.counters_l2_flush: a launch of two kernels that read the same 8 MiB. Flushed per
// launch (before each replay), the second finds the first's lines in the L2 and the launch reads
// ~8 MiB from DRAM; flushed before each kernel too, as Nsight Compute does, each reads its 8 MiB
// from DRAM. The flushes' own ranges are left out either way: two kernels, the same L1 bytes.
TEST(GpuCounters, FlushedBeforeEachKernelASecondReadOfTheSameDataComesFromDram) {
  OCCBENCH_REQUIRE_GPU();
  CountingRig rig;
  if (!rig.session->available()) GTEST_SKIP() << "counters unavailable: " << rig.session->unavailable_reason();
  const std::size_t half_read = std::size_t(4) << 20;  // an L2Flusher sweeps twice the size it is given
  L2Flusher reader(half_read, rig.device.sm_count, FlushMethod::read);
  const double read = double(reader.bytes());
  ASSERT_EQ(read, 8.0 * (1 << 20));
  auto launch_twice = [&] {
    reader.flush(rig.stream);
    reader.flush(rig.stream);
    OCCBENCH_CUDA_CHECK(cudaStreamSynchronize(rig.stream));
  };
  auto flush = rig.flush();
  ordered_json per_launch = measured_counters_json(rig.session->measure(launch_twice, flush, "not needed"), WorkModel{}, std::nullopt);
  rig.session->flush_before_each_kernel(flush, double(rig.flusher->bytes()));
  if (!rig.session->available()) GTEST_SKIP() << "no per-kernel flush here: " << rig.session->unavailable_reason();
  ASSERT_TRUE(rig.session->flushes_per_kernel());
  ordered_json per_kernel = measured_counters_json(rig.session->measure(launch_twice, flush, "not needed"), WorkModel{}, std::nullopt);
  EXPECT_EQ(per_launch["l2_flush"], "per_launch");
  EXPECT_EQ(per_kernel["l2_flush"], "per_kernel");
  for (const ordered_json* c : {&per_launch, &per_kernel}) {
    EXPECT_EQ((*c)["kernels"], 2) << c->dump(2);
    EXPECT_NEAR((*c)["l1_global_load_bytes"].get<double>() / (2 * read), 1.0, 0.01) << c->dump(2);
  }
  double launch_dram = per_launch["dram_read_bytes"].get<double>();
  double kernel_dram = per_kernel["dram_read_bytes"].get<double>();
  EXPECT_NEAR(launch_dram / read, 1.0, 0.15) << per_launch.dump(2);
  EXPECT_NEAR(kernel_dram / (2 * read), 1.0, 0.1) << per_kernel.dump(2);
  // The flushes inside the launch are the flushes' time, not the launch's.
  EXPECT_GT(per_kernel["added_flush_s"].get<double>(), per_launch["added_flush_s"].get<double>());
}
