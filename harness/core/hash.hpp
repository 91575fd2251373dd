#pragma once
// FNV-1a over text: the one string hash of cache keys, compile requests and shard ranks (stable
// across processes and runs, unlike std::hash).
#include <cstdint>
#include <string_view>

namespace occbench {

inline std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 1469598103934665603ull) {
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

}  // namespace occbench
