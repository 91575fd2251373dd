// Theoretical occupancy against hand-computed cases (CPU only).
//
// The device limits below are written out literally (not taken from gpu_table) so that these
// tests check the arithmetic alone. The arithmetic, as the CUDA occupancy calculator does it:
//   warps limit      = max_warps_per_sm / ceil(threads / 32)
//   registers limit  = per-warp registers = regs * 32 rounded up to 256; each of the 4 SM
//                      sub-partitions holds (registers_per_sm / 4) / per-warp warps; limit =
//                      4 * that / warps per block. A block whose per-warp registers * warps
//                      (warps rounded up to a multiple of 4, for the hardware check) exceed
//                      registers_per_block cannot launch.
//   smem limit       = smem_per_sm / round_up(static + dynamic + reserved, granularity)
//                      (granularity 128 B on sm_80+, 256 B on sm_75; reserved 1 KiB on sm_80+)
//   blocks limit     = max_blocks_per_sm
#include "harness/model/occupancy.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <stdexcept>

namespace occbench {
namespace {

SmLimits t4() {  // sm_75
  SmLimits l;
  l.compute_major = 7; l.compute_minor = 5; l.sm_count = 40;
  l.max_threads_per_block = 1024; l.max_threads_per_sm = 1024; l.max_blocks_per_sm = 16; l.warp_size = 32;
  l.registers_per_sm = 65536; l.registers_per_block = 65536;
  l.smem_per_sm_bytes = 65536; l.smem_per_block_bytes = 49152; l.smem_per_block_optin_bytes = 65536;
  l.reserved_smem_per_block_bytes = 0;
  return l;
}

SmLimits a100() {  // sm_80
  SmLimits l;
  l.compute_major = 8; l.compute_minor = 0; l.sm_count = 108;
  l.max_threads_per_block = 1024; l.max_threads_per_sm = 2048; l.max_blocks_per_sm = 32; l.warp_size = 32;
  l.registers_per_sm = 65536; l.registers_per_block = 65536;
  l.smem_per_sm_bytes = 167936; l.smem_per_block_bytes = 49152; l.smem_per_block_optin_bytes = 166912;
  l.reserved_smem_per_block_bytes = 1024;
  return l;
}

SmLimits a10() {  // sm_86
  SmLimits l;
  l.compute_major = 8; l.compute_minor = 6; l.sm_count = 72;
  l.max_threads_per_block = 1024; l.max_threads_per_sm = 1536; l.max_blocks_per_sm = 16; l.warp_size = 32;
  l.registers_per_sm = 65536; l.registers_per_block = 65536;
  l.smem_per_sm_bytes = 102400; l.smem_per_block_bytes = 49152; l.smem_per_block_optin_bytes = 101376;
  l.reserved_smem_per_block_bytes = 1024;
  return l;
}

SmLimits l4() {  // sm_89
  SmLimits l = a10();
  l.compute_minor = 9; l.sm_count = 58; l.max_blocks_per_sm = 24;
  return l;
}

SmLimits h100() {  // sm_90, as cudaGetDeviceProperties reports it on an H100 SXM5
  SmLimits l;
  l.compute_major = 9; l.compute_minor = 0; l.sm_count = 132;
  l.max_threads_per_block = 1024; l.max_threads_per_sm = 2048; l.max_blocks_per_sm = 32; l.warp_size = 32;
  l.registers_per_sm = 65536; l.registers_per_block = 65536;
  l.smem_per_sm_bytes = 233472; l.smem_per_block_bytes = 49152; l.smem_per_block_optin_bytes = 232448;
  l.reserved_smem_per_block_bytes = 1024;
  return l;
}

SmLimits b200() {  // sm_100: same per-SM limits as sm_90
  SmLimits l = h100();
  l.compute_major = 10; l.compute_minor = 0; l.sm_count = 148;
  return l;
}

KernelResources kernel(int regs, std::size_t static_smem = 0, int max_threads = 0) {
  KernelResources k;
  k.registers_per_thread = regs;
  k.static_smem_bytes = static_smem;
  k.max_threads_per_block = max_threads;
  return k;
}

using Names = std::vector<std::string>;

// ---------------------------------------------------------------- sm_90 (H100)

TEST(Occupancy, CovarianceChunk2OnH100IsCappedByBlocksPerSm) {
  // 4 threads = 1 warp per block.
  // warps: 64 / 1 = 64.  registers: 32*32 = 1024 per warp; 16384/1024 = 16 warps per
  // sub-partition * 4 = 64 warps -> 64 blocks.  smem: 32 + 1024 reserved = 1056 -> 1152;
  // 233472 / 1152 = 202.  blocks: 32.  -> 32 blocks = 32 of 64 warps (0.5), but only
  // 32 * 4 = 128 of 2048 threads (0.0625).
  const auto o = compute_occupancy(h100(), kernel(32, 32), 4, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 32);
  EXPECT_EQ(o.active_warps_per_sm, 32);
  EXPECT_EQ(o.max_warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
  EXPECT_DOUBLE_EQ(o.thread_utilization, 0.0625);
  EXPECT_EQ(o.limiter, "blocks_per_sm");
  EXPECT_EQ(o.limiters, Names{"blocks_per_sm"});
  EXPECT_EQ(o.blocks_limit_warps, 64);
  EXPECT_EQ(o.blocks_limit_registers, 64);
  EXPECT_EQ(o.blocks_limit_shared_memory, 202);
  EXPECT_EQ(o.blocks_limit_blocks, 32);
  EXPECT_EQ(o.allocated_registers_per_block, 1024);
  EXPECT_EQ(o.allocated_smem_per_block_bytes, 1152u);
  EXPECT_EQ(launch_blocker(h100(), kernel(32, 32), 4, 0), "");
}

TEST(Occupancy, CovarianceChunk2OnB200MatchesH100) {
  // sm_100 has the same per-SM limits; its one block barrier allows 2 * 32 = 64 blocks, so the
  // 32-block cap still binds.
  const auto o = compute_occupancy(b200(), kernel(32, 32), 4, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
  EXPECT_DOUBLE_EQ(o.thread_utilization, 0.0625);
  EXPECT_EQ(o.limiter, "blocks_per_sm");
}

TEST(Occupancy, CovarianceChunk32OnH100IsWarpBound) {
  // 1024 threads = 32 warps, 8 KiB static smem, 16 registers.
  // warps: 64 / 32 = 2.  registers: 16*32 = 512 per warp; 16384/512 = 32 per sub-partition * 4
  // = 128 warps -> 4 blocks.  smem: 8192 + 1024 = 9216; 233472 / 9216 = 25.  blocks: 32.  -> 2.
  const auto o = compute_occupancy(h100(), kernel(16, 8192), 1024, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 2);
  EXPECT_EQ(o.active_warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(o.theoretical, 1.0);
  EXPECT_DOUBLE_EQ(o.thread_utilization, 1.0);
  EXPECT_EQ(o.limiter, "warps");
  EXPECT_EQ(o.limiters, Names{"warps"});
  EXPECT_EQ(o.blocks_limit_registers, 4);
  EXPECT_EQ(o.blocks_limit_shared_memory, 25);
  EXPECT_EQ(o.allocated_smem_per_block_bytes, 9216u);
}

TEST(Occupancy, TieBetweenWarpsAndRegistersNamesWarps) {
  // Same block with 30 registers: 30*32 = 960 -> 1024 per warp; 16 per sub-partition * 4 = 64
  // warps -> 2 blocks, equal to the warps limit. Both are listed; "warps" is named first.
  const auto o = compute_occupancy(h100(), kernel(30, 8192), 1024, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, "warps");
  EXPECT_EQ(o.limiters, (Names{"warps", "registers"}));
  EXPECT_EQ(o.allocated_registers_per_block, 1024 * 32);
}

TEST(Occupancy, Chunk32WithFortyRegistersDropsToOneBlock) {
  // 40*32 = 1280 per warp (a multiple of 256); 16384 / 1280 = 12 warps per sub-partition * 4 =
  // 48 warps -> 48 / 32 = 1 block: registers now bind (half the SM's warps).
  const auto o = compute_occupancy(h100(), kernel(40, 8192), 1024, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 1);
  EXPECT_EQ(o.blocks_limit_registers, 1);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
}

TEST(Occupancy, RegisterBoundAt255RegistersOnH100) {
  // 256 threads = 8 warps, 255 registers: 255*32 = 8160 -> 8192 per warp; 16384 / 8192 = 2 warps
  // per sub-partition * 4 = 8 warps -> 1 block.  warps: 64/8 = 8.  smem: 1024 -> 228.
  const auto o = compute_occupancy(h100(), kernel(255), 256, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 1);
  EXPECT_EQ(o.active_warps_per_sm, 8);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.125);
  EXPECT_DOUBLE_EQ(o.thread_utilization, 0.125);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_EQ(o.limiters, Names{"registers"});
  EXPECT_EQ(o.blocks_limit_warps, 8);
  EXPECT_EQ(o.blocks_limit_shared_memory, 228);
  EXPECT_EQ(o.allocated_registers_per_block, 65536);
}

TEST(Occupancy, SharedMemoryBoundAt100KiBDynamicOnH100) {
  // 256 threads, 32 registers, 100 KiB dynamic: 102400 + 1024 = 103424 (a multiple of 128);
  // 233472 / 103424 = 2.26 -> 2.  warps: 8.  registers: 64 warps / 8 = 8.  -> 2 blocks.
  const auto o = compute_occupancy(h100(), kernel(32), 256, 100 * 1024);
  EXPECT_EQ(o.active_blocks_per_sm, 2);
  EXPECT_EQ(o.active_warps_per_sm, 16);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.25);
  EXPECT_DOUBLE_EQ(o.thread_utilization, 0.25);
  EXPECT_EQ(o.limiter, "shared_memory");
  EXPECT_EQ(o.limiters, Names{"shared_memory"});
  EXPECT_EQ(o.allocated_smem_per_block_bytes, 103424u);
  EXPECT_EQ(launch_blocker(h100(), kernel(32), 256, 100 * 1024), "");
}

TEST(Occupancy, ThreadUtilizationCountsThreadsNotWarps) {
  // 100 threads = 4 warps (the last one 4/32 full). warps: 64/4 = 16; registers 64 warps / 4 =
  // 16; smem 1024 -> 228; blocks 32 -> 16 blocks = 64 warps (1.0) but 1600 of 2048 threads.
  const auto o = compute_occupancy(h100(), kernel(32), 100, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 16);
  EXPECT_DOUBLE_EQ(o.theoretical, 1.0);
  EXPECT_DOUBLE_EQ(o.thread_utilization, 1600.0 / 2048.0);
  EXPECT_EQ(o.limiters, (Names{"warps", "registers"}));
}

TEST(Occupancy, WholeOptInSharedMemoryFitsExactlyOneBlock) {
  // 232448 dynamic + 1024 reserved = 233472 = the whole SM: 1 block. One byte more is over the
  // opt-in limit: 232449 + 1024 -> 233600 > 232448 + 1024, so no block can run.
  const auto fits = compute_occupancy(h100(), kernel(32), 128, 232448);
  EXPECT_EQ(fits.active_blocks_per_sm, 1);
  EXPECT_EQ(fits.limiter, "shared_memory");
  EXPECT_EQ(launch_blocker(h100(), kernel(32), 128, 232448), "");

  const auto over = compute_occupancy(h100(), kernel(32), 128, 232449);
  EXPECT_EQ(over.active_blocks_per_sm, 0);
  EXPECT_EQ(over.limiter, "");
  EXPECT_EQ(over.limiters, Names{"shared_memory"});
  EXPECT_DOUBLE_EQ(over.theoretical, 0.0);
  const std::string why = launch_blocker(h100(), kernel(32), 128, 232449);
  EXPECT_NE(why.find("opt-in"), std::string::npos) << why;
  EXPECT_NE(why.find("232449"), std::string::npos) << why;
}

TEST(Occupancy, StaticPlusDynamicCountsAgainstOptIn) {
  // 40 KiB static + 190 KiB dynamic = 235520 > 232448.
  const std::string why = launch_blocker(h100(), kernel(32, 40 * 1024), 128, 190 * 1024);
  EXPECT_NE(why.find("opt-in"), std::string::npos) << why;
  EXPECT_EQ(compute_occupancy(h100(), kernel(32, 40 * 1024), 128, 190 * 1024).active_blocks_per_sm, 0);
}

TEST(Occupancy, KernelDynamicSharedMemoryAttributeIsHonoured) {
  // Without cudaFuncSetAttribute a kernel's maxDynamicSharedSizeBytes is 48 KiB - static; the
  // runtime then gives 0 blocks for more dynamic shared memory (checked on an H100).
  KernelResources k = kernel(32, 1024);
  k.max_dynamic_smem_bytes = 48 * 1024 - 1024;
  // 1024 static + 47104 dynamic + 1024 reserved = 49152; 233472 / 49152 = 4.75 -> 4 (warps 8, registers 8).
  EXPECT_EQ(compute_occupancy(h100(), k, 256, 48 * 1024 - 1024).active_blocks_per_sm, 4);
  EXPECT_EQ(compute_occupancy(h100(), k, 256, 48 * 1024).active_blocks_per_sm, 0);
  const std::string why = launch_blocker(h100(), k, 256, 48 * 1024);
  EXPECT_NE(why.find("cudaFuncAttributeMaxDynamicSharedMemorySize"), std::string::npos) << why;
  // Left unset, the kernel is taken to have opted in to the device maximum.
  // 1024 + 49152 + 1024 = 51200; 233472 / 51200 = 4.56 -> 4.
  k.max_dynamic_smem_bytes.reset();
  EXPECT_EQ(compute_occupancy(h100(), k, 256, 48 * 1024).active_blocks_per_sm, 4);
  EXPECT_EQ(launch_blocker(h100(), k, 256, 48 * 1024), "");
}

TEST(Occupancy, TooManyThreadsPerBlock) {
  // 1025 threads: over the 1024 device limit; the warps limit is 0.
  const auto o = compute_occupancy(h100(), kernel(32), 1025, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 0);
  EXPECT_EQ(o.blocks_limit_warps, 0);
  EXPECT_EQ(o.limiter, "");
  EXPECT_EQ(o.limiters, Names{"warps"});
  const std::string why = launch_blocker(h100(), kernel(32), 1025, 0);
  EXPECT_NE(why.find("1025"), std::string::npos) << why;
  EXPECT_NE(why.find("device limit of 1024"), std::string::npos) << why;
  EXPECT_NE(launch_blocker(t4(), kernel(32), 1025, 0), "");
}

TEST(Occupancy, BlockOverTheKernelsOwnLimit) {
  // A __launch_bounds__(256) kernel (26 registers, 256 B static) at 512 threads cannot launch.
  // cudaOccupancyMaxActiveBlocksPerMultiprocessor ignores the kernel's limit (an H100 answers
  // 7 blocks for 257 threads), and so does compute_occupancy: 512 threads = 16 warps -> 64/16 = 4;
  // registers 26*32 = 832 -> 1024 per warp, 64 warps / 16 = 4; smem 1280 -> 182; -> 4.
  const KernelResources k = kernel(26, 256, 256);
  EXPECT_EQ(compute_occupancy(h100(), k, 512, 0).active_blocks_per_sm, 4);
  EXPECT_EQ(compute_occupancy(h100(), k, 257, 0).active_blocks_per_sm, 7);  // 9 warps: 64/9 = 7
  const std::string why = launch_blocker(h100(), k, 512, 0);
  EXPECT_NE(why.find("kernel's limit of 256"), std::string::npos) << why;
  EXPECT_EQ(launch_blocker(h100(), k, 256, 0), "");
}

TEST(Occupancy, TooManyRegistersPerBlock) {
  // 255 registers * 512 threads: 8192 per warp * 16 warps = 131072 > 65536.
  EXPECT_EQ(compute_occupancy(h100(), kernel(255), 512, 0).active_blocks_per_sm, 0);
  EXPECT_EQ(compute_occupancy(h100(), kernel(255), 512, 0).limiters, Names{"registers"});
  EXPECT_NE(launch_blocker(h100(), kernel(255), 512, 0).find("registers"), std::string::npos);

  // 72 registers: 72*32 = 2304 per warp. 896 threads = 28 warps: 64512 <= 65536, runs; its
  // sub-partitions hold 16384/2304 = 7 warps each = 28 -> 1 block. 897 threads = 29 warps:
  // 66816 > 65536. (cudaFuncGetAttributes reports maxThreadsPerBlock 896 for such a kernel.)
  const auto o = compute_occupancy(h100(), kernel(72), 896, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 1);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_EQ(launch_blocker(h100(), kernel(72), 896, 0), "");
  EXPECT_EQ(compute_occupancy(h100(), kernel(72), 897, 0).active_blocks_per_sm, 0);
  EXPECT_NE(launch_blocker(h100(), kernel(72), 897, 0), "");
}

TEST(Occupancy, HardwareRegisterCheckRoundsWarpsToSubPartitions) {
  // 213 registers: 6816 -> 6912 per warp. 288 threads = 9 warps: 9 * 6912 = 62208 fits the
  // 65536 per block, but the hardware check rounds 9 warps up to 12: 82944 > 65536, so it
  // cannot launch (cudaFuncGetAttributes reports maxThreadsPerBlock 256 for a 213-register
  // kernel on an H100). 256 threads = 8 warps: 55296, runs; 16384/6912 = 2 warps per
  // sub-partition = 8 -> 1 block.
  EXPECT_EQ(compute_occupancy(h100(), kernel(213), 288, 0).active_blocks_per_sm, 0);
  EXPECT_NE(launch_blocker(h100(), kernel(213), 288, 0), "");
  EXPECT_EQ(compute_occupancy(h100(), kernel(213), 256, 0).active_blocks_per_sm, 1);
  EXPECT_EQ(launch_blocker(h100(), kernel(213), 256, 0), "");
}

// ---------------------------------------------------------------- sm_75 (T4)

TEST(Occupancy, T4RegisterBound) {
  // 256 threads = 8 warps, 72 registers: 2304 per warp; 16384/2304 = 7 per sub-partition * 4 =
  // 28 warps -> 3 blocks.  warps: 32/8 = 4.  smem: none and nothing reserved on sm_75 -> no
  // limit (INT_MAX).  blocks: 16.  -> 3 blocks = 24 of 32 warps.
  const auto o = compute_occupancy(t4(), kernel(72), 256, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 3);
  EXPECT_EQ(o.active_warps_per_sm, 24);
  EXPECT_EQ(o.max_warps_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.75);
  EXPECT_DOUBLE_EQ(o.thread_utilization, 0.75);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_EQ(o.blocks_limit_warps, 4);
  EXPECT_EQ(o.blocks_limit_shared_memory, INT_MAX);
  EXPECT_EQ(o.blocks_limit_blocks, 16);
  EXPECT_EQ(o.allocated_smem_per_block_bytes, 0u);
}

TEST(Occupancy, T4BlocksPerSmCap) {
  // 32 threads = 1 warp, 16 registers: warps 32; registers 512 per warp -> 128 warps -> 128;
  // smem none; blocks 16 -> 16 blocks = 16 of 32 warps, 512 of 1024 threads.
  const auto o = compute_occupancy(t4(), kernel(16), 32, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 16);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
  EXPECT_DOUBLE_EQ(o.thread_utilization, 0.5);
  EXPECT_EQ(o.limiter, "blocks_per_sm");
}

TEST(Occupancy, T4SharedMemoryBoundWith256ByteGranularity) {
  // 128 threads, 32 registers, 40000 B dynamic: rounded to 256 -> 40192; 65536 / 40192 = 1.
  const auto o = compute_occupancy(t4(), kernel(32), 128, 40000);
  EXPECT_EQ(o.active_blocks_per_sm, 1);
  EXPECT_EQ(o.allocated_smem_per_block_bytes, 40192u);
  EXPECT_EQ(o.limiter, "shared_memory");
  EXPECT_DOUBLE_EQ(o.theoretical, 4.0 / 32.0);
  // 65537 B is over the T4's 64 KiB per block.
  EXPECT_NE(launch_blocker(t4(), kernel(32), 128, 65537), "");
  EXPECT_EQ(compute_occupancy(t4(), kernel(32), 128, 65537).active_blocks_per_sm, 0);
}

TEST(Occupancy, T4WarpBound) {
  // 1024 threads = 32 warps = the whole T4 SM: 1 block, limiter warps.
  const auto o = compute_occupancy(t4(), kernel(16), 1024, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 1);
  EXPECT_EQ(o.limiter, "warps");
  EXPECT_DOUBLE_EQ(o.theoretical, 1.0);
}

// ---------------------------------------------------------------- sm_80 / sm_86 / sm_89

TEST(Occupancy, A100SharedMemoryBound) {
  // 128 threads, 32 registers, 48 KiB static: 49152 + 1024 = 50176; 167936 / 50176 = 3.
  // warps 64/4 = 16; registers 64/4 = 16. -> 3 blocks = 12 warps of 64.
  const auto o = compute_occupancy(a100(), kernel(32, 48 * 1024), 128, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 3);
  EXPECT_EQ(o.active_warps_per_sm, 12);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.1875);
  EXPECT_DOUBLE_EQ(o.thread_utilization, 384.0 / 2048.0);
  EXPECT_EQ(o.limiter, "shared_memory");
  EXPECT_EQ(o.allocated_smem_per_block_bytes, 50176u);
  // The A100's opt-in limit is 163 KiB = 166912 B.
  EXPECT_EQ(launch_blocker(a100(), kernel(32), 128, 166912), "");
  EXPECT_EQ(compute_occupancy(a100(), kernel(32), 128, 166912).active_blocks_per_sm, 1);
  EXPECT_NE(launch_blocker(a100(), kernel(32), 128, 166913), "");
}

TEST(Occupancy, A10WarpBound) {
  // 128 threads = 4 warps, 32 registers: warps 48/4 = 12; registers 64 warps / 4 = 16;
  // smem 1024 -> 102400/1024 = 100; blocks 16 -> 12 blocks = all 48 warps.
  const auto o = compute_occupancy(a10(), kernel(32), 128, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 12);
  EXPECT_EQ(o.max_warps_per_sm, 48);
  EXPECT_DOUBLE_EQ(o.theoretical, 1.0);
  EXPECT_EQ(o.limiter, "warps");
  EXPECT_EQ(o.blocks_limit_shared_memory, 100);
}

TEST(Occupancy, A10BlocksPerSmCapIsSixteen) {
  // 64 threads = 2 warps: warps 24; registers 32; smem 100; blocks 16 -> 16 = 32 of 48 warps.
  const auto o = compute_occupancy(a10(), kernel(32), 64, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 16);
  EXPECT_DOUBLE_EQ(o.theoretical, 32.0 / 48.0);
  EXPECT_DOUBLE_EQ(o.thread_utilization, 1024.0 / 1536.0);
  EXPECT_EQ(o.limiter, "blocks_per_sm");
}

TEST(Occupancy, L4BlocksPerSmCapIsTwentyFour) {
  // 32 threads: warps 48; registers 64; smem 100; blocks 24 -> 24 = 24 of 48 warps.
  const auto o = compute_occupancy(l4(), kernel(32), 32, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 24);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
  EXPECT_EQ(o.limiter, "blocks_per_sm");
}

TEST(Occupancy, L4RegisterBound) {
  // 512 threads = 16 warps, 64 registers: 2048 per warp; 16384/2048 = 8 per sub-partition = 32
  // warps -> 2 blocks.  warps 48/16 = 3.  -> 2 blocks = 32 of 48 warps.
  const auto o = compute_occupancy(l4(), kernel(64), 512, 0);
  EXPECT_EQ(o.active_blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_EQ(o.blocks_limit_warps, 3);
}

// ---------------------------------------------------------------- properties and errors

TEST(Occupancy, ActiveIsTheSmallestLimitAndBlockerAgrees) {
  const SmLimits devices[] = {t4(), a100(), a10(), l4(), h100(), b200()};
  const int regs[] = {0, 16, 32, 40, 64, 96, 128, 200, 255};
  const std::size_t dyn[] = {0, 1000, 16 * 1024, 48 * 1024, 100 * 1024, 200 * 1024};
  for (const auto& d : devices) {
    for (int r : regs) {
      for (std::size_t s : dyn) {
        for (int b = 1; b <= 1025; b += 37) {
          const auto o = compute_occupancy(d, kernel(r, 512), b, s);
          const int lowest = std::min({o.blocks_limit_warps, o.blocks_limit_registers,
                                       o.blocks_limit_shared_memory, o.blocks_limit_blocks});
          ASSERT_EQ(o.active_blocks_per_sm, lowest);
          ASSERT_EQ(o.active_warps_per_sm, o.active_blocks_per_sm * ((b + 31) / 32));
          ASSERT_LE(o.thread_utilization, o.theoretical);
          ASSERT_EQ(o.active_blocks_per_sm == 0, !launch_blocker(d, kernel(r, 512), b, s).empty())
              << "sm_" << d.compute_major << d.compute_minor << " regs " << r << " dyn " << s << " block " << b;
          ASSERT_EQ(o.limiter.empty(), o.active_blocks_per_sm == 0);
        }
      }
    }
  }
}

TEST(Occupancy, SmCountDoesNotMatter) {
  // Planning targets (sm_limits_for_arch) carry sm_count 0; the calculator needs > 0 but no
  // per-SM figure depends on it.
  SmLimits d = h100();
  d.sm_count = 0;
  EXPECT_EQ(compute_occupancy(d, kernel(32, 32), 4, 0).active_blocks_per_sm, 32);
}

TEST(Occupancy, BadInputThrows) {
  EXPECT_THROW(compute_occupancy(h100(), kernel(32), 0, 0), std::invalid_argument);
  SmLimits future = h100();
  future.compute_major = 99;
  EXPECT_THROW(compute_occupancy(future, kernel(32), 128, 0), std::invalid_argument);
  EXPECT_NE(launch_blocker(h100(), kernel(32), 0, 0), "");
}

}  // namespace
}  // namespace occbench
