// The built-in GPU table: lookups, expected figures, self-consistency, and agreement with the
// CUDA toolkit's occupancy calculator header on granularities, block caps and carveouts.
#include "harness/model/gpu_table.hpp"

#include <cuda_occupancy.h>
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

namespace occbench {
namespace {

// Expected figures, written out from the references (CUDA C++ Programming Guide "Compute
// Capabilities", tuning guides, NVIDIA datasheets; the H100 row as cudaGetDeviceProperties
// reports it on an H100 SXM5).
struct Expected {
  const char* key;
  const char* arch;
  int sm_count, threads_per_sm, warps_per_sm, blocks_per_sm;
  std::size_t smem_per_sm, optin, reserved, granularity;
  std::vector<int> carveouts;
  int fp32_lanes;
  double clock_mhz, bandwidth_gbps, peak_fp32_gflops;
};

const std::vector<Expected>& expected() {
  static const std::vector<Expected> e = {
      {"t4", "sm_75", 40, 1024, 32, 16, 65536, 65536, 0, 256, {32, 64}, 64, 1590, 320, 8140.8},
      {"a100", "sm_80", 108, 2048, 64, 32, 167936, 166912, 1024, 128, {0, 8, 16, 32, 64, 100, 132, 164}, 64, 1410, 2039, 19491.84},
      {"a10", "sm_86", 72, 1536, 48, 16, 102400, 101376, 1024, 128, {0, 8, 16, 32, 64, 100}, 128, 1695, 600, 31242.24},
      {"rtx3090", "sm_86", 82, 1536, 48, 16, 102400, 101376, 1024, 128, {0, 8, 16, 32, 64, 100}, 128, 1695, 936, 35581.44},
      {"l4", "sm_89", 58, 1536, 48, 24, 102400, 101376, 1024, 128, {0, 8, 16, 32, 64, 100}, 128, 2040, 300, 30289.92},
      {"rtx4090", "sm_89", 128, 1536, 48, 24, 102400, 101376, 1024, 128, {0, 8, 16, 32, 64, 100}, 128, 2520, 1008, 82575.36},
      {"h100", "sm_90", 132, 2048, 64, 32, 233472, 232448, 1024, 128, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}, 128, 1980, 3350, 66908.16},
      {"h200", "sm_90", 132, 2048, 64, 32, 233472, 232448, 1024, 128, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}, 128, 1980, 4800, 66908.16},
      {"b200", "sm_100", 148, 2048, 64, 32, 233472, 232448, 1024, 128, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}, 128, 1980, 7700, 75018.24},
  };
  return e;
}

cudaOccDeviceProp occ_props(const GpuSpec& g) {
  cudaOccDeviceProp p;
  p.computeMajor = g.limits.compute_major;
  p.computeMinor = g.limits.compute_minor;
  p.sharedMemPerMultiprocessor = g.limits.smem_per_sm_bytes;
  return p;
}

std::string key_of(const GpuSpec* g) { return g ? g->key : "(none)"; }

bool same_limits_but_sm_count(const SmLimits& a, const SmLimits& b) {
  return a.compute_major == b.compute_major && a.compute_minor == b.compute_minor &&
         a.max_threads_per_block == b.max_threads_per_block && a.max_threads_per_sm == b.max_threads_per_sm &&
         a.max_blocks_per_sm == b.max_blocks_per_sm && a.warp_size == b.warp_size &&
         a.registers_per_sm == b.registers_per_sm && a.registers_per_block == b.registers_per_block &&
         a.smem_per_sm_bytes == b.smem_per_sm_bytes && a.smem_per_block_bytes == b.smem_per_block_bytes &&
         a.smem_per_block_optin_bytes == b.smem_per_block_optin_bytes &&
         a.reserved_smem_per_block_bytes == b.reserved_smem_per_block_bytes;
}

TEST(GpuTable, HasTheRequiredGpusInOrder) {
  std::vector<std::string> keys;
  for (const auto& g : gpu_table()) keys.push_back(g.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"t4", "a100", "a10", "rtx3090", "l4", "rtx4090", "h100", "h200", "b200"}));
}

TEST(GpuTable, EveryEntryHasItsExpectedFigures) {
  ASSERT_EQ(gpu_table().size(), expected().size());
  for (const auto& e : expected()) {
    SCOPED_TRACE(e.key);
    const GpuSpec* g = find_gpu(e.key);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->arch, e.arch);
    EXPECT_EQ(g->limits.sm_count, e.sm_count);
    EXPECT_EQ(g->limits.max_threads_per_sm, e.threads_per_sm);
    EXPECT_EQ(g->max_warps_per_sm(), e.warps_per_sm);
    EXPECT_EQ(g->limits.max_blocks_per_sm, e.blocks_per_sm);
    EXPECT_EQ(g->limits.smem_per_sm_bytes, e.smem_per_sm);
    EXPECT_EQ(g->limits.smem_per_block_optin_bytes, e.optin);
    EXPECT_EQ(g->limits.reserved_smem_per_block_bytes, e.reserved);
    EXPECT_EQ(g->smem_allocation_granularity_bytes, e.granularity);
    EXPECT_EQ(g->smem_carveout_kib, e.carveouts);
    EXPECT_EQ(g->fp32_lanes_per_sm, e.fp32_lanes);
    EXPECT_DOUBLE_EQ(g->sm_clock_mhz, e.clock_mhz);
    EXPECT_DOUBLE_EQ(g->memory_bandwidth_gbps, e.bandwidth_gbps);
    EXPECT_NEAR(g->peak_fp32_gflops(), e.peak_fp32_gflops, 1e-6);
    // Common to every GPU in the table.
    EXPECT_EQ(g->limits.max_threads_per_block, 1024);
    EXPECT_EQ(g->limits.warp_size, 32);
    EXPECT_EQ(g->limits.registers_per_sm, 65536);
    EXPECT_EQ(g->limits.registers_per_block, 65536);
    EXPECT_EQ(g->limits.smem_per_block_bytes, 49152u);
    EXPECT_EQ(g->register_allocation_unit, 256);
    EXPECT_EQ(g->register_allocation_granularity, "warp");
    EXPECT_EQ(g->max_registers_per_thread, 255);
    EXPECT_EQ(g->register_file_partitions, 4);
  }
}

TEST(GpuTable, H100IsWhatTheDriverReports) {
  // cudaGetDeviceProperties on an H100 SXM5: 132 SMs, 2048 threads and 32 blocks per SM, 65536
  // registers, sharedMemPerMultiprocessor 233472, sharedMemPerBlockOptin 232448,
  // reservedSharedMemPerBlock 1024, sharedMemPerBlock 49152, name "NVIDIA H100 80GB HBM3".
  const GpuSpec* g = find_gpu("h100");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->limits.compute_major, 9);
  EXPECT_EQ(g->limits.compute_minor, 0);
  EXPECT_EQ(g->limits.sm_count, 132);
  EXPECT_EQ(g->limits.max_threads_per_sm, 2048);
  EXPECT_EQ(g->limits.max_blocks_per_sm, 32);
  EXPECT_EQ(g->limits.registers_per_sm, 65536);
  EXPECT_EQ(g->limits.smem_per_sm_bytes, 233472u);
  EXPECT_EQ(g->limits.smem_per_block_optin_bytes, 232448u);
  EXPECT_EQ(g->limits.reserved_smem_per_block_bytes, 1024u);
  EXPECT_EQ(g->limits.smem_per_block_bytes, 49152u);
  EXPECT_EQ(find_gpu("NVIDIA H100 80GB HBM3"), g);
}

TEST(GpuTable, Lookups) {
  const GpuSpec* h100 = find_gpu("h100");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->name, "NVIDIA H100 SXM5 80GB");
  EXPECT_EQ(find_gpu("H100"), h100);
  EXPECT_EQ(find_gpu("nvidia h100 sxm5 80gb"), h100);
  EXPECT_EQ(find_gpu("sm_90"), h100);  // first GPU of the arch
  EXPECT_EQ(find_gpu("SM_90"), h100);
  EXPECT_EQ(key_of(find_gpu("sm_86")), "a10");
  EXPECT_EQ(key_of(find_gpu("sm_89")), "l4");
  EXPECT_EQ(key_of(find_gpu("sm_75")), "t4");
  EXPECT_EQ(key_of(find_gpu("sm_80")), "a100");
  EXPECT_EQ(key_of(find_gpu("sm_100")), "b200");
  EXPECT_EQ(key_of(find_gpu("RTX4090")), "rtx4090");
  EXPECT_EQ(key_of(find_gpu("Tesla T4")), "t4");
  EXPECT_EQ(key_of(find_gpu("NVIDIA A100-SXM4-80GB")), "a100");
  EXPECT_EQ(key_of(find_gpu("h200")), "h200");
  EXPECT_EQ(find_gpu("v100"), nullptr);
  EXPECT_EQ(find_gpu("sm_70"), nullptr);
  EXPECT_EQ(find_gpu(""), nullptr);
  EXPECT_EQ(find_gpu("h10"), nullptr);  // no prefix matching
}

TEST(GpuTable, EveryEntryIsSelfConsistent) {
  std::set<std::string> keys, names;
  for (const auto& g : gpu_table()) {
    SCOPED_TRACE(g.key);
    const SmLimits& l = g.limits;
    EXPECT_TRUE(keys.insert(g.key).second) << "duplicate key";
    EXPECT_TRUE(names.insert(g.name).second) << "duplicate name";
    EXPECT_EQ(g.arch, "sm_" + std::to_string(l.compute_major) + std::to_string(l.compute_minor));
    EXPECT_EQ(find_gpu(g.key), &g);
    EXPECT_EQ(find_gpu(g.name), &g);
    for (const auto& a : g.aliases) EXPECT_EQ(find_gpu(a), &g) << a;
    EXPECT_GT(l.sm_count, 0);
    EXPECT_EQ(l.max_threads_per_sm % l.warp_size, 0);
    EXPECT_EQ(g.max_warps_per_sm(), l.max_threads_per_sm / 32);
    EXPECT_LE(l.max_threads_per_block, l.max_threads_per_sm);
    EXPECT_LE(l.registers_per_block, l.registers_per_sm);
    // A block can take everything but the driver's reservation.
    EXPECT_EQ(l.smem_per_block_optin_bytes + l.reserved_smem_per_block_bytes, l.smem_per_sm_bytes);
    EXPECT_LE(l.smem_per_block_bytes, l.smem_per_block_optin_bytes);
    EXPECT_EQ(l.reserved_smem_per_block_bytes, l.compute_major >= 8 ? 1024u : 0u);
    EXPECT_EQ(l.smem_per_sm_bytes % g.smem_allocation_granularity_bytes, 0u);
    // Carveouts: strictly increasing, the largest is the whole per-SM capacity.
    ASSERT_FALSE(g.smem_carveout_kib.empty());
    for (std::size_t i = 1; i < g.smem_carveout_kib.size(); ++i) {
      EXPECT_LT(g.smem_carveout_kib[i - 1], g.smem_carveout_kib[i]);
    }
    EXPECT_EQ(std::size_t(g.smem_carveout_kib.back()) * 1024, l.smem_per_sm_bytes);
    EXPECT_DOUBLE_EQ(g.peak_fp32_gflops(), l.sm_count * g.fp32_lanes_per_sm * 2.0 * g.sm_clock_mhz / 1000.0);
    EXPECT_GT(g.memory_bandwidth_gbps, 0);
    // The arch's shared limits are the entry's, but for the SM count.
    const SmLimits arch = sm_limits_for_arch(l.compute_major, l.compute_minor);
    EXPECT_EQ(arch.sm_count, 0);
    EXPECT_TRUE(same_limits_but_sm_count(arch, l));
  }
}

TEST(GpuTable, AgreesWithTheToolkitOccupancyCalculator) {
  for (const auto& g : gpu_table()) {
    SCOPED_TRACE(g.key);
    const cudaOccDeviceProp p = occ_props(g);
    int v = 0;
    ASSERT_EQ(cudaOccSMemAllocationGranularity(&v, &p), CUDA_OCC_SUCCESS);
    EXPECT_EQ(std::size_t(v), g.smem_allocation_granularity_bytes);
    ASSERT_EQ(cudaOccRegAllocationGranularity(&v, &p), CUDA_OCC_SUCCESS);
    EXPECT_EQ(v, g.register_allocation_unit);
    ASSERT_EQ(cudaOccSubPartitionsPerMultiprocessor(&v, &p), CUDA_OCC_SUCCESS);
    EXPECT_EQ(v, g.register_file_partitions);
    ASSERT_EQ(cudaOccMaxBlocksPerMultiprocessor(&v, &p), CUDA_OCC_SUCCESS);
    EXPECT_EQ(v, g.limits.max_blocks_per_sm);

    // Every carveout is a size the calculator can configure, and it rounds any size between two
    // carveouts up to the next one; nothing above the largest exists.
    int previous = -1;
    for (int kib : g.smem_carveout_kib) {
      for (std::size_t bytes : {std::size_t(kib) * 1024, std::size_t(previous + 1) * 1024 + 1}) {
        if (previous < 0 && bytes != std::size_t(kib) * 1024) continue;
        std::size_t s = bytes;
        ASSERT_EQ(cudaOccAlignUpShmemSizeVoltaPlus(&s, &p), CUDA_OCC_SUCCESS) << bytes;
        EXPECT_EQ(s, std::size_t(kib) * 1024) << "from " << bytes;
      }
      previous = kib;
    }
    std::size_t above = g.limits.smem_per_sm_bytes + 1;
    EXPECT_NE(cudaOccAlignUpShmemSizeVoltaPlus(&above, &p), CUDA_OCC_SUCCESS);
  }
}

TEST(GpuTable, SmLimitsForArch) {
  const SmLimits l = sm_limits_for_arch(8, 9);
  EXPECT_EQ(l.compute_major, 8);
  EXPECT_EQ(l.compute_minor, 9);
  EXPECT_EQ(l.sm_count, 0);
  EXPECT_EQ(l.max_threads_per_sm, 1536);
  EXPECT_EQ(l.max_blocks_per_sm, 24);
  EXPECT_EQ(l.smem_per_sm_bytes, 102400u);
  EXPECT_EQ(l.smem_per_block_optin_bytes, 101376u);
  EXPECT_EQ(sm_limits_for_arch(7, 5).max_threads_per_sm, 1024);
  EXPECT_EQ(sm_limits_for_arch(10, 0).smem_per_sm_bytes, 233472u);
  EXPECT_THROW(sm_limits_for_arch(6, 1), std::invalid_argument);
  EXPECT_THROW(sm_limits_for_arch(9, 1), std::invalid_argument);
}

TEST(GpuTable, FormatListsEveryGpu) {
  const std::string text = format_gpu_table();
  for (const auto& g : gpu_table()) {
    EXPECT_NE(text.find(g.key + " "), std::string::npos) << g.key;
    EXPECT_NE(text.find(g.name), std::string::npos) << g.name;
    EXPECT_NE(text.find(g.arch), std::string::npos) << g.arch;
  }
  EXPECT_NE(text.find("233472"), std::string::npos);                    // H100 shared memory per SM
  EXPECT_NE(text.find("0,8,16,32,64,100,132,164,196,228"), std::string::npos);  // sm_90 carveouts
  EXPECT_NE(text.find("32,64"), std::string::npos);                     // sm_75 carveouts
  // Fixed width: every row of the GPU section is as long as the header.
  const std::size_t header_len = text.find('\n');
  std::size_t pos = header_len + 1;
  for (std::size_t i = 0; i < gpu_table().size(); ++i) {
    const std::size_t end = text.find('\n', pos);
    ASSERT_NE(end, std::string::npos);
    EXPECT_EQ(end - pos, header_len) << text.substr(pos, end - pos);
    pos = end + 1;
  }
}

}  // namespace
}  // namespace occbench
