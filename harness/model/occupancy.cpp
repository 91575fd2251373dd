#include "harness/model/occupancy.hpp"

#include <cuda_occupancy.h>

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace occbench {
namespace {

// Shared memory sizes past this are refused anyway (no GPU has 1 GiB per block); keeping the
// calculator's inputs below it keeps its int arithmetic from overflowing.
constexpr std::size_t kSmemClamp = std::size_t{1} << 30;

cudaOccDeviceProp to_occ_props(const SmLimits& d) {
  cudaOccDeviceProp p;  // C++ constructor: every field zero
  p.computeMajor = d.compute_major;
  p.computeMinor = d.compute_minor;
  p.maxThreadsPerBlock = d.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = d.max_threads_per_sm;
  p.regsPerBlock = d.registers_per_block;
  p.regsPerMultiprocessor = d.registers_per_sm;
  p.warpSize = d.warp_size;
  p.sharedMemPerBlock = d.smem_per_block_bytes;
  p.sharedMemPerMultiprocessor = d.smem_per_sm_bytes;
  // The calculator insists on numSms > 0 although no per-SM figure depends on it; a planning
  // target from sm_limits_for_arch() has sm_count 0.
  p.numSms = std::max(1, d.sm_count);
  p.sharedMemPerBlockOptin = d.smem_per_block_optin_bytes;
  p.reservedSharedMemPerBlock = d.reserved_smem_per_block_bytes;
  return p;
}

std::size_t assumed_max_dynamic(const SmLimits& d, const KernelResources& k) {
  if (k.max_dynamic_smem_bytes) return *k.max_dynamic_smem_bytes;
  return d.smem_per_block_optin_bytes > k.static_smem_bytes ? d.smem_per_block_optin_bytes - k.static_smem_bytes : 0;
}

// What `cudaOccFuncAttributes occ = cudaFuncAttributes{...}` produces (the header's converting
// constructor): opt-in shared-memory limit config, one block barrier, no virtual resources.
// The default constructor would instead give maxThreadsPerBlock 0 (invalid input), the *default*
// shared-memory limit config and no barriers, which is not what the runtime does.
cudaOccFuncAttributes to_occ_attrs(const SmLimits& d, const KernelResources& k) {
  cudaOccFuncAttributes a;
  a.maxThreadsPerBlock = k.max_threads_per_block > 0 ? k.max_threads_per_block : d.max_threads_per_block;
  a.numRegs = k.registers_per_thread;
  a.sharedSizeBytes = std::min(k.static_smem_bytes, kSmemClamp);
  a.partitionedGCConfig = PARTITIONED_GC_OFF;
  a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  a.maxDynamicSharedSizeBytes = std::min(assumed_max_dynamic(d, k), kSmemClamp);
  a.numBlockBarriers = 1;
  a.virtualResourceCount = 0;
  return a;
}

const char* occ_error_text(cudaOccError e) {
  switch (e) {
    case CUDA_OCC_ERROR_INVALID_INPUT: return "invalid input";
    case CUDA_OCC_ERROR_UNKNOWN_DEVICE: return "architecture not supported by this toolkit's occupancy calculator";
    default: return "unknown error";
  }
}

cudaOccResult run_calculator(const SmLimits& d, const KernelResources& k, int threads_per_block,
                             std::size_t dynamic_smem_bytes) {
  if (threads_per_block <= 0) {
    throw std::invalid_argument("compute_occupancy: threads_per_block must be positive, got " +
                                std::to_string(threads_per_block));
  }
  const cudaOccDeviceProp props = to_occ_props(d);
  const cudaOccFuncAttributes attrs = to_occ_attrs(d, k);
  // The default-constructed state is the runtime's default: cacheConfig PREFER_NONE and
  // carveoutConfig SHAREDMEM_CARVEOUT_DEFAULT (-1), which the calculator maps to the SM's whole
  // shared-memory capacity. (A C-style `= {0}` would mean carveout 0 = "max L1" and give one
  // block per SM for any kernel that uses shared memory.)
  const cudaOccDeviceState state;
  cudaOccResult r{};
  const cudaOccError err = cudaOccMaxActiveBlocksPerMultiprocessor(
      &r, &props, &attrs, &state, threads_per_block, std::min(dynamic_smem_bytes, kSmemClamp));
  if (err != CUDA_OCC_SUCCESS) {
    throw std::invalid_argument("compute_occupancy: sm_" + std::to_string(d.compute_major) +
                                std::to_string(d.compute_minor) + ": " + occ_error_text(err));
  }
  return r;
}

}  // namespace

std::size_t round_up(std::size_t x, std::size_t unit) { return unit ? (x + unit - 1) / unit * unit : x; }

std::string launch_blocker(const SmLimits& d, const KernelResources& k, int threads_per_block,
                           std::size_t dynamic_smem_bytes) {
  std::vector<std::string> why;
  if (threads_per_block <= 0) {
    return "a block of " + std::to_string(threads_per_block) + " threads is not a valid launch";
  }
  if (threads_per_block > d.max_threads_per_block) {
    why.push_back("a block of " + std::to_string(threads_per_block) + " threads is over the device limit of " +
                  std::to_string(d.max_threads_per_block) + " threads per block");
  } else if (k.max_threads_per_block > 0 && threads_per_block > k.max_threads_per_block) {
    why.push_back("a block of " + std::to_string(threads_per_block) + " threads is over this kernel's limit of " +
                  std::to_string(k.max_threads_per_block) +
                  " threads per block (cudaFuncAttributes::maxThreadsPerBlock, set by its registers or __launch_bounds__)");
  }

  const std::size_t total_smem = k.static_smem_bytes + dynamic_smem_bytes;
  if (total_smem > d.smem_per_block_optin_bytes) {
    why.push_back("shared memory per block " + std::to_string(total_smem) + " B (static " +
                  std::to_string(k.static_smem_bytes) + " + dynamic " + std::to_string(dynamic_smem_bytes) +
                  ") is over the device's opt-in limit of " + std::to_string(d.smem_per_block_optin_bytes) + " B");
  } else if (k.max_dynamic_smem_bytes && dynamic_smem_bytes > *k.max_dynamic_smem_bytes) {
    why.push_back("dynamic shared memory " + std::to_string(dynamic_smem_bytes) +
                  " B is over this kernel's cudaFuncAttributeMaxDynamicSharedMemorySize of " +
                  std::to_string(*k.max_dynamic_smem_bytes) + " B (raise it with cudaFuncSetAttribute)");
  }

  // Registers: the calculator's own checks (per thread, and per block as the hardware counts it:
  // per warp rounded up to the allocation unit, warps rounded up to the 4 SM sub-partitions).
  // Evaluate them for a block the device accepts so that a too-large block is not reported twice.
  const int reg_threads = std::min(threads_per_block, d.max_threads_per_block);
  const cudaOccResult r = run_calculator(d, k, reg_threads, 0);
  if (r.blockLimitRegs == 0) {
    why.push_back(std::to_string(k.registers_per_thread) + " registers per thread for a block of " +
                  std::to_string(reg_threads) + " threads (" + std::to_string(r.allocatedRegistersPerBlock) +
                  " allocated) is over the limit of " + std::to_string(d.registers_per_block) +
                  " registers per block or 255 per thread");
  }

  std::string out;
  for (const auto& w : why) out += (out.empty() ? "" : "; ") + w;
  return out;
}

OccupancyResult compute_occupancy(const SmLimits& d, const KernelResources& k, int threads_per_block,
                                  std::size_t dynamic_smem_bytes) {
  const cudaOccResult r = run_calculator(d, k, threads_per_block, dynamic_smem_bytes);

  OccupancyResult o;
  o.blocks_limit_warps = r.blockLimitWarps;
  o.blocks_limit_registers = r.blockLimitRegs;
  o.blocks_limit_shared_memory = r.blockLimitSharedMem;
  o.blocks_limit_blocks = r.blockLimitBlocks;
  o.allocated_registers_per_block = r.allocatedRegistersPerBlock;
  o.allocated_smem_per_block_bytes = r.allocatedSharedMemPerBlock;
  if (k.static_smem_bytes + dynamic_smem_bytes >= kSmemClamp) {  // the calculator saw a clamped size
    o.allocated_smem_per_block_bytes = round_up(k.static_smem_bytes + dynamic_smem_bytes + d.reserved_smem_per_block_bytes,
                                                d.compute_major >= 8 ? 128 : 256);
  }

  // Neither the calculator nor cudaOccupancyMaxActiveBlocksPerMultiprocessor looks at the
  // kernel's own maxThreadsPerBlock (checked on an H100: a __launch_bounds__(256) kernel asked
  // about 257-thread blocks gets 7, not 0). Such a launch fails; launch_blocker() says so.
  const int active = r.activeBlocksPerMultiprocessor;

  const int warps_per_block = (threads_per_block + d.warp_size - 1) / d.warp_size;
  o.active_blocks_per_sm = active;
  o.active_warps_per_sm = active * warps_per_block;
  o.max_warps_per_sm = d.max_threads_per_sm / d.warp_size;
  o.theoretical = o.max_warps_per_sm > 0 ? double(o.active_warps_per_sm) / o.max_warps_per_sm : 0.0;
  o.thread_utilization = d.max_threads_per_sm > 0 ? double(active) * threads_per_block / d.max_threads_per_sm : 0.0;

  const std::pair<const char*, int> limits[] = {
      {"warps", r.blockLimitWarps},
      {"registers", r.blockLimitRegs},
      {"shared_memory", r.blockLimitSharedMem},
      {"blocks_per_sm", r.blockLimitBlocks},
  };
  for (const auto& [name, limit] : limits) {
    if (limit == active) o.limiters.emplace_back(name);
  }
  if (active > 0 && !o.limiters.empty()) o.limiter = o.limiters.front();
  return o;
}

}  // namespace occbench
