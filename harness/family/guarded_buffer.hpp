#pragma once
// A device buffer with guard zones, for user kernels' arguments: a write outside the buffer lands
// in memory occbench watches instead of faulting. A fault loses the CUDA context, the driver takes
// 0.05 s to seconds to report it and the sweep must go on in another process; a write into a zone
// costs nothing and is named (which buffer, before or after it, how many bytes).
//
// The buffer lies in a reserved virtual range whose two sides map one physical chunk each, again
// and again (CUDA virtual memory management), so a zone of 16 GiB costs 128 MiB of memory. The
// zones and the slack beside the buffer hold 0xFF bytes (NaN as a float: a kernel that reads past
// its buffer computes NaN); any other byte found there is a write outside the buffer. The buffer
// ends less than 256 bytes before the upper zone (its start 256-byte aligned, as cudaMalloc's), so
// one element past its end is caught. Reads outside are not detected; their NaN fails the result.
#include "harness/family/device_buffer.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace occbench {

// Where a guarded buffer of `bytes` lies in its reserved range (offsets from the range's start):
// [lower zone | body: slack, the buffer, < 256 B of slack | upper zone].
struct GuardLayout {
  std::size_t zone_bytes = 0;     // each side: a multiple of chunk_bytes
  std::size_t chunk_bytes = 0;    // the physical chunk a zone maps again and again
  std::size_t body_offset = 0;    // = zone_bytes
  std::size_t body_bytes = 0;     // the buffer's own allocation, a multiple of the granularity
  std::size_t data_offset = 0;    // the buffer's first byte
  std::size_t upper_offset = 0;   // the upper zone's first byte
  std::size_t reserve_bytes = 0;  // both zones and the body
};
// zone_bytes is rounded up to whole chunks; chunk_bytes (at most the zone) to the granularity.
GuardLayout guard_layout(std::size_t bytes, std::size_t granularity, std::size_t zone_bytes, std::size_t chunk_bytes);

// Bytes found changed below and above the buffer (a byte written as 0xFF is not seen: every
// 256th byte of random data, so the count may be a little under the bytes written).
struct GuardWrites {
  std::uint64_t before = 0, after = 0;
  bool any() const { return before || after; }
};

class GuardedBuffer {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t(128) << 20;

  GuardedBuffer();
  // zone_bytes 0: a plain cudaMalloc buffer. Where the driver cannot map zones (no virtual memory
  // management, e.g. under some virtualization), a plain buffer too, and why_unguarded() says why.
  GuardedBuffer(std::size_t bytes, std::size_t zone_bytes);
  ~GuardedBuffer();
  GuardedBuffer(GuardedBuffer&& other) noexcept;
  GuardedBuffer& operator=(GuardedBuffer&& other) noexcept;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  unsigned char* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  bool guarded() const { return static_cast<bool>(mapping_); }
  const std::string& why_unguarded() const { return why_unguarded_; }

  void upload(const std::vector<unsigned char>& host);
  void poison();  // poison_bytes (device_buffer.hpp) over the buffer
  // The bytes written outside the buffer since the zones were last filled; fills them again.
  GuardWrites take_writes();

 private:
  struct Mapping;
  std::unique_ptr<Mapping> mapping_;
  DeviceBuffer<unsigned char> plain_;
  unsigned char* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::string why_unguarded_;
};

}  // namespace occbench
