// Guard zones' layout (harness/family/guarded_buffer.hpp), without a GPU: the buffer ends where
// the upper zone begins (less than 256 bytes before it, its start 256-byte aligned), the zones are
// whole chunks, and nothing overlaps. The GPU tests check that writes there are caught.
#include "harness/family/guarded_buffer.hpp"

#include <gtest/gtest.h>

namespace occbench {
namespace {

constexpr std::size_t kMiB = std::size_t(1) << 20, kGiB = std::size_t(1) << 30;

TEST(GuardLayout, TheBufferEndsWithinAnAlignmentOfTheUpperZone) {
  for (std::size_t bytes : {std::size_t(1), std::size_t(4), std::size_t(1000), std::size_t(4) * kMiB, 2 * kMiB + 4,
                            std::size_t(3) * kGiB + 7}) {
    GuardLayout l = guard_layout(bytes, 2 * kMiB, 16 * kGiB, 128 * kMiB);
    SCOPED_TRACE(bytes);
    EXPECT_EQ(l.chunk_bytes, 128 * kMiB);
    EXPECT_EQ(l.zone_bytes, 16 * kGiB);
    EXPECT_EQ(l.body_offset, l.zone_bytes);
    EXPECT_EQ(l.body_bytes % (2 * kMiB), 0u);
    EXPECT_GE(l.body_bytes, bytes);
    EXPECT_EQ(l.data_offset % 256, 0u);
    EXPECT_GE(l.data_offset, l.body_offset);
    EXPECT_LE(l.data_offset + bytes, l.upper_offset);
    EXPECT_LT(l.upper_offset - (l.data_offset + bytes), 256u);
    EXPECT_EQ(l.upper_offset, l.body_offset + l.body_bytes);
    EXPECT_EQ(l.reserve_bytes, l.upper_offset + l.zone_bytes);
  }
}

TEST(GuardLayout, ZonesAreWholeChunksAndASmallZoneIsOneChunk) {
  GuardLayout l = guard_layout(4096, 2 * kMiB, 100 * kMiB, 64 * kMiB);
  EXPECT_EQ(l.chunk_bytes, 64 * kMiB);
  EXPECT_EQ(l.zone_bytes, 128 * kMiB);  // rounded up to whole chunks
  l = guard_layout(4096, 2 * kMiB, 3 * kMiB, 128 * kMiB);
  EXPECT_EQ(l.chunk_bytes, 4 * kMiB);  // the zone, rounded up to the granularity
  EXPECT_EQ(l.zone_bytes, 4 * kMiB);
  EXPECT_EQ(l.body_bytes, 2 * kMiB);
  EXPECT_EQ(l.data_offset, l.upper_offset - 4096);
}

}  // namespace
}  // namespace occbench
