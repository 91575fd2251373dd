#include "harness/model/gpu_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace occbench {
namespace {

// What all GPUs of one architecture share.
struct ArchSpec {
  int major, minor;
  int max_threads_per_sm;
  int max_blocks_per_sm;
  std::size_t smem_per_sm_bytes;           // cudaDeviceProp::sharedMemPerMultiprocessor
  std::size_t smem_per_block_optin_bytes;  // cudaDeviceProp::sharedMemPerBlockOptin
  std::size_t reserved_smem_per_block_bytes;
  std::size_t smem_allocation_granularity_bytes;
  std::vector<int> smem_carveout_kib;
  int fp32_lanes_per_sm;
};

// Sources: CUDA C++ Programming Guide, "Compute Capabilities" (threads, blocks, shared memory per
// SM and per block, 64K registers per SM and per block, 255 registers per thread); the Turing,
// Ampere, Ada, Hopper and Blackwell tuning guides (carveouts, 1 KiB reserved per block on 8.x+);
// libcu++ cuda::arch::traits (same figures); cuda_occupancy.h (allocation granularities,
// carveout steps). FP32 lanes: 64 per SM on TU10x and GA100, 128 on GA10x, AD10x, GH100, GB100.
const std::vector<ArchSpec>& arch_table() {
  static const std::vector<ArchSpec> t = {
      {7, 5, 1024, 16, 64 * 1024, 64 * 1024, 0, 256, {32, 64}, 64},
      {8, 0, 2048, 32, 164 * 1024, 163 * 1024, 1024, 128, {0, 8, 16, 32, 64, 100, 132, 164}, 64},
      {8, 6, 1536, 16, 100 * 1024, 99 * 1024, 1024, 128, {0, 8, 16, 32, 64, 100}, 128},
      {8, 9, 1536, 24, 100 * 1024, 99 * 1024, 1024, 128, {0, 8, 16, 32, 64, 100}, 128},
      {9, 0, 2048, 32, 228 * 1024, 227 * 1024, 1024, 128, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}, 128},
      {10, 0, 2048, 32, 228 * 1024, 227 * 1024, 1024, 128, {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}, 128},
  };
  return t;
}

const ArchSpec* find_arch(int major, int minor) {
  for (const auto& a : arch_table()) {
    if (a.major == major && a.minor == minor) return &a;
  }
  return nullptr;
}

SmLimits limits_of(const ArchSpec& a) {
  SmLimits l;
  l.compute_major = a.major;
  l.compute_minor = a.minor;
  l.sm_count = 0;
  l.max_threads_per_block = 1024;
  l.max_threads_per_sm = a.max_threads_per_sm;
  l.max_blocks_per_sm = a.max_blocks_per_sm;
  l.warp_size = 32;
  l.registers_per_sm = 65536;
  l.registers_per_block = 65536;
  l.smem_per_sm_bytes = a.smem_per_sm_bytes;
  l.smem_per_block_bytes = 48 * 1024;
  l.smem_per_block_optin_bytes = a.smem_per_block_optin_bytes;
  l.reserved_smem_per_block_bytes = a.reserved_smem_per_block_bytes;
  return l;
}

struct GpuRow {
  const char* key;
  const char* name;
  std::vector<std::string> aliases;
  int major, minor;
  int sm_count;
  double sm_clock_mhz;           // boost
  double memory_bandwidth_gbps;  // datasheet
  double memory_gib;             // datasheet capacity (the driver reports slightly less usable)
};

GpuSpec make_gpu(const GpuRow& r) {
  const ArchSpec* a = find_arch(r.major, r.minor);
  if (!a) throw std::logic_error("gpu_table: no architecture entry for " + std::string(r.key));
  GpuSpec g;
  g.key = r.key;
  g.name = r.name;
  g.arch = fmt::format("sm_{}{}", r.major, r.minor);
  g.aliases = r.aliases;
  g.limits = limits_of(*a);
  g.limits.sm_count = r.sm_count;
  g.register_allocation_unit = 256;
  g.register_allocation_granularity = "warp";
  g.max_registers_per_thread = 255;
  g.register_file_partitions = 4;
  g.smem_allocation_granularity_bytes = a->smem_allocation_granularity_bytes;
  g.smem_carveout_kib = a->smem_carveout_kib;
  g.sm_clock_mhz = r.sm_clock_mhz;
  g.memory_bandwidth_gbps = r.memory_bandwidth_gbps;
  g.memory_bytes = std::size_t(r.memory_gib * 1073741824.0);
  g.fp32_lanes_per_sm = a->fp32_lanes_per_sm;
  return g;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return out;
}

std::string join_ints(const std::vector<int>& v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

}  // namespace

double GpuSpec::peak_fp32_gflops() const {
  return double(limits.sm_count) * fp32_lanes_per_sm * 2.0 * sm_clock_mhz / 1000.0;
}

const std::vector<GpuSpec>& gpu_table() {
  // SM counts, boost clocks and bandwidths from NVIDIA's datasheets; the aliases are the names
  // cudaGetDeviceProperties reports. The H100 row is the SXM5 80GB part as its driver reports it:
  // 132 SMs, 233472 B shared memory per SM, 232448 B opt-in per block, 1024 B reserved per block.
  static const std::vector<GpuSpec> table = [] {
    const std::vector<GpuRow> rows = {
        {"t4", "NVIDIA T4", {"Tesla T4"}, 7, 5, 40, 1590, 320, 16},
        {"a100", "NVIDIA A100 SXM4 80GB", {"NVIDIA A100-SXM4-80GB"}, 8, 0, 108, 1410, 2039, 80},
        {"a10", "NVIDIA A10", {}, 8, 6, 72, 1695, 600, 24},
        {"rtx3090", "NVIDIA GeForce RTX 3090", {}, 8, 6, 82, 1695, 936, 24},
        {"l4", "NVIDIA L4", {}, 8, 9, 58, 2040, 300, 24},
        {"rtx4090", "NVIDIA GeForce RTX 4090", {}, 8, 9, 128, 2520, 1008, 24},
        {"h100", "NVIDIA H100 SXM5 80GB", {"NVIDIA H100 80GB HBM3"}, 9, 0, 132, 1980, 3350, 80},
        {"h200", "NVIDIA H200 SXM 141GB", {"NVIDIA H200"}, 9, 0, 132, 1980, 4800, 141},
        {"b200", "NVIDIA B200 (HGX, 180GB)", {"NVIDIA B200"}, 10, 0, 148, 1980, 7700, 180},
    };
    std::vector<GpuSpec> t;
    t.reserve(rows.size());
    for (const auto& r : rows) t.push_back(make_gpu(r));
    // Read with nvmlDeviceGetSupportedGraphicsClocks on the lent H100 (driver 580.159).
    for (auto& g : t)
      if (g.key == "h100") g.locked_sm_clocks = GpuSpec::ClockRange{345, 1980, 15};
    return t;
  }();
  return table;
}

std::size_t largest_gpu_memory_bytes() {
  std::size_t most = 0;
  for (const GpuSpec& gpu : gpu_table()) most = std::max(most, gpu.memory_bytes);
  return most;
}

const GpuSpec* find_gpu(std::string_view key_or_name) {
  const std::string want = lower(key_or_name);
  if (want.empty()) return nullptr;
  const auto& t = gpu_table();
  for (const auto& g : t) {
    if (lower(g.key) == want) return &g;
  }
  for (const auto& g : t) {
    if (lower(g.name) == want) return &g;
    for (const auto& a : g.aliases) {
      if (lower(a) == want) return &g;
    }
  }
  for (const auto& g : t) {
    if (lower(g.arch) == want) return &g;
  }
  return nullptr;
}

SmLimits sm_limits_for_arch(int major, int minor) {
  if (const ArchSpec* a = find_arch(major, minor)) return limits_of(*a);
  std::string known;
  for (const auto& a : arch_table()) known += fmt::format("{}sm_{}{}", known.empty() ? "" : ", ", a.major, a.minor);
  throw std::invalid_argument(fmt::format("no built-in limits for sm_{}{} (known: {})", major, minor, known));
}

std::string format_gpu_table() {
  std::string out;
  out += fmt::format("{:<8} {:<25} {:<6} {:>4} {:>6} {:>6} {:>6} {:>6} {:>7} {:>10} {:>11} {:>8} {:>5} {:>6} {:>8} {:>9}\n",
                     "key", "name", "arch", "SMs", "thr/SM", "wrp/SM", "blk/SM", "reg/SM", "reg/blk",
                     "smem/SM B", "optin/blk B", "reserved", "gran", "MHz", "GB/s", "FP32 GF/s");
  for (const auto& g : gpu_table()) {
    const SmLimits& l = g.limits;
    out += fmt::format("{:<8} {:<25} {:<6} {:>4} {:>6} {:>6} {:>6} {:>6} {:>7} {:>10} {:>11} {:>8} {:>5} {:>6.0f} {:>8.0f} {:>9.0f}\n",
                       g.key, g.name, g.arch, l.sm_count, l.max_threads_per_sm, g.max_warps_per_sm(),
                       l.max_blocks_per_sm, l.registers_per_sm, l.registers_per_block, l.smem_per_sm_bytes,
                       l.smem_per_block_optin_bytes, l.reserved_smem_per_block_bytes,
                       g.smem_allocation_granularity_bytes, g.sm_clock_mhz, g.memory_bandwidth_gbps,
                       g.peak_fp32_gflops());
  }
  out += "\nAll: 1024 threads and 48 KiB shared memory per block without opt-in; 32 threads per warp;\n"
         "registers allocated per warp in units of 256 (255 per thread at most), from 4 sub-partitions;\n"
         "gran = shared-memory allocation granularity per block (bytes); reserved = bytes the driver\n"
         "reserves per block.\n";
  out += "\nShared-memory carveouts (KiB per SM; the default carveout allows the largest):\n";
  std::vector<std::string> seen;
  for (const auto& g : gpu_table()) {
    if (std::find(seen.begin(), seen.end(), g.arch) != seen.end()) continue;
    seen.push_back(g.arch);
    out += fmt::format("  {:<6} {}\n", g.arch, join_ints(g.smem_carveout_kib));
  }
  return out;
}

}  // namespace occbench
