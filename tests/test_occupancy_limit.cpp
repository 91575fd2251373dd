// The occupancy_limit axis: the ballast arithmetic against the toolkit's occupancy calculator on
// GPUs of the built-in table, and the axis as configs and point ids see it.
#include "harness/sweep/config.hpp"
#include "harness/model/gpu_table.hpp"
#include "harness/model/occupancy_limit.hpp"
#include "harness/sweep/sweep.hpp"
#include "kernels/families.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace occbench {
namespace {

KernelResources kernel(int registers, std::size_t static_smem = 0) {
  KernelResources k;
  k.registers_per_thread = registers;
  k.static_smem_bytes = static_smem;
  return k;
}

struct Shape {
  KernelResources kernel;
  int threads;
  std::size_t dynamic_smem;
};

// Kernels like the built-ins: tiny blocks (covariance chunk 2), register-heavy, static and dynamic
// shared memory, and one already limited by shared memory.
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s = {
      {kernel(16), 32, 0},          {kernel(32), 128, 0},           {kernel(24), 256, 0},
      {kernel(40, 8192), 1024, 0},  {kernel(128, 16384), 256, 0},   {kernel(30, 2 * 4 * 4), 4, 0},
      {kernel(32), 256, 4100},      {kernel(64, 2048), 96, 12000},  {kernel(20, 20000), 64, 0},
  };
  return s;
}

TEST(OccupancyLimit, BallastGivesExactlyTheTargetOnEveryArchitectureOfTheTable) {
  int checked = 0;
  for (const char* arch : {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100"}) {
    const GpuSpec* gpu = find_gpu(arch);
    ASSERT_NE(gpu, nullptr) << arch;
    const SmLimits& d = gpu->limits;
    for (const Shape& s : shapes()) {
      const OccupancyResult natural = compute_occupancy(d, s.kernel, s.threads, s.dynamic_smem);
      ASSERT_GT(natural.active_blocks_per_sm, 0) << arch;
      for (int target = 1; target <= natural.active_blocks_per_sm; ++target) {
        SCOPED_TRACE(std::string(arch) + " threads " + std::to_string(s.threads) + " target " + std::to_string(target));
        const Ballast b = plan_ballast(d, s.kernel, s.threads, s.dynamic_smem, target);
        EXPECT_EQ(b.natural_blocks_per_sm, natural.active_blocks_per_sm);
        EXPECT_EQ(b.allocation_granularity_bytes, gpu->smem_allocation_granularity_bytes);
        if (!b.skip_reason.empty()) {
          // Only the granularity can make a reachable target unhittable: then no ballast gives it.
          EXPECT_NE(b.skip_reason.find("cannot be hit exactly"), std::string::npos) << b.skip_reason;
          for (std::size_t extra = 0; extra + s.dynamic_smem + s.kernel.static_smem_bytes <= d.smem_per_block_optin_bytes;
               extra += b.allocation_granularity_bytes)
            EXPECT_NE(compute_occupancy(d, s.kernel, s.threads, s.dynamic_smem + extra).active_blocks_per_sm, target);
          continue;
        }
        const OccupancyResult forced = compute_occupancy(d, s.kernel, s.threads, s.dynamic_smem + b.ballast_bytes);
        EXPECT_EQ(forced.active_blocks_per_sm, target);
        EXPECT_EQ(b.forced_blocks_per_sm, target);
        EXPECT_EQ(b.allocated_smem_per_block_bytes, forced.allocated_smem_per_block_bytes);
        if (target == natural.active_blocks_per_sm) {
          EXPECT_EQ(b.ballast_bytes, 0u);
        } else {
          EXPECT_EQ(forced.limiter, "shared_memory");
          // The least ballast that does it: one granule less lets in more blocks.
          ASSERT_GE(b.ballast_bytes, 1u);
          std::size_t less = b.ballast_bytes > b.allocation_granularity_bytes ? b.ballast_bytes - b.allocation_granularity_bytes : 0;
          EXPECT_GT(compute_occupancy(d, s.kernel, s.threads, s.dynamic_smem + less).active_blocks_per_sm, target);
        }
        ++checked;
      }
      // Above the natural occupancy: skipped, naming both numbers.
      const Ballast above = plan_ballast(d, s.kernel, s.threads, s.dynamic_smem, natural.active_blocks_per_sm + 1);
      EXPECT_NE(above.skip_reason.find("above this launch's natural occupancy of " +
                                       std::to_string(natural.active_blocks_per_sm)),
                std::string::npos)
          << above.skip_reason;
      EXPECT_EQ(above.ballast_bytes, 0u);
    }
  }
  EXPECT_GT(checked, 300);
}

TEST(OccupancyLimit, H100NumbersByHand) {
  // 256 threads, 32 registers, no shared memory: 8 blocks per SM (warps). Target 2: each block
  // must take more than 228 KiB / 3 = 77824 B, i.e. 77952 B allocated; 1 KiB of it is reserved.
  const SmLimits& h100 = find_gpu("h100")->limits;
  const Ballast b = plan_ballast(h100, kernel(32), 256, 0, 2);
  EXPECT_EQ(b.skip_reason, "");
  EXPECT_EQ(b.natural_blocks_per_sm, 8);
  EXPECT_EQ(b.smem_per_sm_bytes, 233472u);
  EXPECT_EQ(b.ballast_bytes, 77952u - 1024u);
  EXPECT_EQ(b.forced_blocks_per_sm, 2);
  // A kernel's own dynamic bytes count: the ballast goes on top of them.
  EXPECT_EQ(plan_ballast(h100, kernel(32), 256, 4096, 2).ballast_bytes, 77952u - 1024u - 4096u);
  EXPECT_NE(plan_ballast(h100, kernel(32), 256, 0, 0).skip_reason, "");
}

TEST(OccupancyLimit, ZeroIsTheUnforcedLaunch) {
  const SmLimits& h100 = find_gpu("h100")->limits;
  LaunchSpec launch;
  launch.block = {256, 1, 1};
  launch.dynamic_smem_bytes = 100;
  nlohmann::ordered_json record = {{"status", "ok"}, {"launch", {{"dynamic_smem_bytes", 100}}}};
  Params params;
  params.set(kOccupancyLimitAxis, kUnforced);
  EXPECT_FALSE(add_ballast(params, h100, kernel(32), launch, record));
  EXPECT_EQ(launch.dynamic_smem_bytes, 100u);
  params.set(kOccupancyLimitAxis, 2);
  auto ballast = add_ballast(params, h100, kernel(32), launch, record);
  ASSERT_TRUE(ballast);
  EXPECT_EQ(launch.dynamic_smem_bytes, 100u + ballast->ballast_bytes);
  EXPECT_EQ(record["launch"]["ballast_bytes"], ballast->ballast_bytes);
  EXPECT_EQ(record["status"], "ok");
}

const char* kSweep = R"({
  "name": "t", "family": "adjacent_difference",
  "variants": ["global", "vectorized"],
  "sizes": {"n": [4096]}, "axes": {"block_size": [256], "occupancy_limit": [1, 4]}
})";

TEST(OccupancyLimit, IsAnAxisOfEveryDeviceVariantAndInThePointIds) {
  SweepSpec spec = parse_sweep_text(kSweep, "t.json", builtin_registry());
  std::vector<Point> points = expand_sweep(spec, builtin_registry());
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].id, "adjacent_difference/global/n=4096/block_size=256/occupancy_limit=1");
  EXPECT_EQ(points[3].params.get(kOccupancyLimitAxis), 4);
  // Without values the points do not carry it (their ids are unchanged).
  std::string plain = kSweep;
  plain.replace(plain.find(", \"occupancy_limit\": [1, 4]"), std::string(", \"occupancy_limit\": [1, 4]").size(), "");
  for (const Point& p : expand_sweep(parse_sweep_text(plain, "t.json", builtin_registry()), builtin_registry()))
    EXPECT_FALSE(p.params.has(kOccupancyLimitAxis)) << p.id;
  // A user-kernel variant has it too (it is a device variant); a host variant does not.
  const Variant& host = *builtin_registry().find("adjacent_difference")->find_variant("host");
  EXPECT_EQ(host.find_axis(kOccupancyLimitAxis), nullptr);
  EXPECT_NE(builtin_registry().find("matmul")->find_variant("tiled")->find_axis(kOccupancyLimitAxis), nullptr);
}

TEST(OccupancyLimit, BadValuesAndHostOnlySweepsAreRefused) {
  std::string over = kSweep;
  over.replace(over.find("[1, 4]"), 6, "[33]");
  EXPECT_THROW(parse_sweep_text(over, "t.json", builtin_registry()), ConfigError);
  const char* host_only = R"({"name": "t", "family": "adjacent_difference", "variants": ["host"],
    "sizes": {"n": [4096]}, "axes": {"occupancy_limit": [1]}})";
  try {
    parse_sweep_text(host_only, "t.json", builtin_registry());
    ADD_FAILURE() << "accepted occupancy_limit on a host variant";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.json_path(), "$.axes.occupancy_limit");
  }
}

}  // namespace
}  // namespace occbench
