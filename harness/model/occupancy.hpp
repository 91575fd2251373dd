// Theoretical occupancy, computed on the CPU with the CUDA toolkit's occupancy calculator
// (cuda_occupancy.h). No CUDA runtime calls: works with no GPU present (`occbench plan`).
//
// compute_occupancy() reproduces cudaOccupancyMaxActiveBlocksPerMultiprocessor for the
// default shared-memory carveout and cache config (cudaFuncAttributePreferredSharedMemoryCarveout
// left at -1, cudaFuncCachePreferNone), i.e. the SM's whole shared-memory capacity is available.
//
// Dynamic shared memory: the runtime API returns 0 blocks when the launch's dynamic shared memory
// is above the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize. Pass that attribute in
// KernelResources::max_dynamic_smem_bytes when known (cudaFuncAttributes::maxDynamicSharedSizeBytes,
// read after any cudaFuncSetAttribute). Left empty, the kernel is assumed to have opted in to the
// most the device allows (smem_per_block_optin_bytes - static_smem_bytes): the harness must then
// call cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, that value)
// before it queries or launches, for the API to agree.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace occbench {

// x rounded up to a multiple of `unit` (x itself where unit is 0): shared memory and registers are
// allocated in such units.
std::size_t round_up(std::size_t x, std::size_t unit);

struct SmLimits {                     // what occupancy needs to know about one GPU
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;                   // 0 = unknown (per-SM results do not depend on it)
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int warp_size = 32;
  int registers_per_sm = 65536;
  int registers_per_block = 65536;
  std::size_t smem_per_sm_bytes = 0;
  std::size_t smem_per_block_bytes = 49152;          // default limit without opt-in
  std::size_t smem_per_block_optin_bytes = 0;
  std::size_t reserved_smem_per_block_bytes = 0;     // 1 KiB on sm_80+
};

struct KernelResources {
  int registers_per_thread = 0;
  std::size_t static_smem_bytes = 0;
  std::size_t local_bytes_per_thread = 0;
  int max_threads_per_block = 0;     // cudaFuncAttributes::maxThreadsPerBlock; 0 = unknown (use the device limit)
  // cudaFuncAttributes::maxDynamicSharedSizeBytes; empty = assume opted in to
  // smem_per_block_optin_bytes - static_smem_bytes (see the note at the top of this file).
  std::optional<std::size_t> max_dynamic_smem_bytes;
};

struct OccupancyResult {
  int active_blocks_per_sm = 0;
  int active_warps_per_sm = 0;
  int max_warps_per_sm = 0;
  double theoretical = 0;            // active warps / max warps per SM
  double thread_utilization = 0;     // active threads (blocks * threads_per_block, NOT rounded to warps) / max threads per SM
  std::string limiter;               // "warps", "registers", "shared_memory", "blocks_per_sm" (the binding one; ties broken in that order); "" when nothing can run
  std::vector<std::string> limiters; // every resource whose block limit equals the active count
                                     // (when nothing can run: every resource whose limit is 0)
  // Blocks per SM each resource alone allows (cudaOccResult::blockLimit*). As in the calculator:
  // INT_MAX for registers when the kernel uses none, and for shared memory when a block takes
  // none (never on sm_80+, where every block reserves 1 KiB); 0 when the launch cannot run.
  int blocks_limit_warps = 0, blocks_limit_registers = 0, blocks_limit_shared_memory = 0, blocks_limit_blocks = 0;
  int allocated_registers_per_block = 0;          // per warp rounded up to 256, times warps
  std::size_t allocated_smem_per_block_bytes = 0; // static + dynamic + reserved, rounded up to the granularity
};

// Why a launch of this shape cannot run on this GPU ("" when it can): threads per block over the
// device or kernel limit, shared memory (static + dynamic) over the opt-in limit (or dynamic over
// the kernel's max_dynamic_smem_bytes when given), too many registers (per thread or per block).
// Several reasons are joined with "; ".
std::string launch_blocker(const SmLimits&, const KernelResources&, int threads_per_block, std::size_t dynamic_smem_bytes);

// Throws std::invalid_argument for threads_per_block <= 0 or an architecture the toolkit's
// calculator does not know. A launch that cannot run gives active_blocks_per_sm 0 and limiter "".
// Like the runtime API, it does not check the kernel's own max_threads_per_block (a block over a
// __launch_bounds__ limit still gets a non-zero count); launch_blocker() does.
OccupancyResult compute_occupancy(const SmLimits&, const KernelResources&, int threads_per_block, std::size_t dynamic_smem_bytes);

}  // namespace occbench
