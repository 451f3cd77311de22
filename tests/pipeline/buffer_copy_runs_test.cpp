// Copy runs (pipeline/buffer_copy_runs.hpp): which pieces share a copy, where each lands, and that
// copying the runs puts every piece's bytes at its offset.
#include "pipeline/buffer_copy_runs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace cuzarr {
namespace {

Buffer patterned_host(size_t size, uint32_t seed) {
  Buffer b = Buffer::allocate(size, MemoryKind::host);
  std::mt19937 random(seed);
  for (size_t i = 0; i < size; ++i) b.data()[i] = static_cast<std::byte>(random());
  return b;
}

// Copies the runs into a slot of `slot_size` bytes and checks every piece's bytes at its offset.
void expect_pieces_land(const std::vector<Buffer>& pieces, const std::vector<BufferCopyRun>& runs,
                        const std::vector<size_t>& offsets, size_t slot_size) {
  std::vector<std::byte> slot(slot_size, std::byte{0});
  for (const BufferCopyRun& run : runs) {
    ASSERT_LE(run.offset + run.size, slot_size);
    std::memcpy(slot.data() + run.offset, run.source, run.size);
  }
  ASSERT_EQ(offsets.size(), pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_LE(offsets[i] + pieces[i].size(), slot_size);
    EXPECT_EQ(std::memcmp(slot.data() + offsets[i], pieces[i].data(), pieces[i].size()), 0);
  }
}

TEST(BufferCopyRuns, AdjacentSlicesOfOneAllocationTakeOneCopy) {
  const Buffer shard = patterned_host(10000, 1);
  // Inner chunks in an order other than their addresses, as an index may list them.
  const std::vector<Buffer> pieces = {shard.slice(3000, 2000), shard.slice(0, 1000),
                                      shard.slice(5000, 5000), shard.slice(1000, 2000)};
  size_t slot_size = 512;  // the slot already holds 512 bytes
  std::vector<size_t> offsets;
  const auto runs = plan_buffer_copy_runs(pieces, 0, 256, slot_size, offsets);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].source, shard.data());
  EXPECT_EQ(runs[0].size, 10000u);
  EXPECT_GE(runs[0].offset, 512u);
  EXPECT_EQ(offsets[1], runs[0].offset);  // the piece at the allocation's start
  EXPECT_EQ(offsets[0], runs[0].offset + 3000);
  EXPECT_EQ(slot_size % 256, 0u);
  EXPECT_GE(slot_size, runs[0].offset + 10000);
  expect_pieces_land(pieces, runs, offsets, slot_size);
}

TEST(BufferCopyRuns, GapsUpToTheLimitAreCopiedAndLargerOnesSplitTheRun) {
  const Buffer shard = patterned_host(20000, 2);
  const std::vector<Buffer> pieces = {shard.slice(0, 1000), shard.slice(1100, 900),
                                      shard.slice(2100, 1000), shard.slice(8000, 100)};
  size_t slot_size = 0;
  std::vector<size_t> offsets;
  const auto runs = plan_buffer_copy_runs(pieces, 100, 256, slot_size, offsets);
  // Gaps of 100 and 100 bytes join; the 4900 before the last piece does not.
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].size, 3100u);
  EXPECT_EQ(runs[1].source, shard.data() + 8000);
  EXPECT_EQ(runs[1].size, 100u);
  EXPECT_GE(runs[1].offset, runs[0].offset + runs[0].size);
  expect_pieces_land(pieces, runs, offsets, slot_size);
}

TEST(BufferCopyRuns, PiecesOfOtherAllocationsNeverShareACopy) {
  const Buffer first = patterned_host(4096, 3), second = patterned_host(4096, 4);
  // Whole buffers, and a wrap of the first's memory: another allocation as far as copies go.
  const Buffer wrapped =
      Buffer::wrap(const_cast<std::byte*>(first.data()) + 4096 - 16, 16, MemoryKind::host, nullptr);
  const std::vector<Buffer> pieces = {first, second, wrapped, second.slice(0, 10)};
  size_t slot_size = 0;
  std::vector<size_t> offsets;
  const auto runs = plan_buffer_copy_runs(pieces, size_t{1} << 30, 256, slot_size, offsets);
  // first, the wrap and second are three runs whatever the gap allowed; second's slice joins
  // second (it overlaps it).
  ASSERT_EQ(runs.size(), 3u);
  for (size_t r = 1; r < runs.size(); ++r)
    EXPECT_GE(runs[r].offset, runs[r - 1].offset + runs[r - 1].size);
  EXPECT_EQ(offsets[3], offsets[1]);
  expect_pieces_land(pieces, runs, offsets, slot_size);
}

TEST(BufferCopyRuns, OverlappingAndEmptyPiecesLandAndKeepTheirAlignment) {
  const Buffer shard = patterned_host(50000, 5);
  std::mt19937 random(6);
  std::vector<Buffer> pieces;
  for (int k = 0; k < 200; ++k) {
    const size_t at = random() % 50000;
    const size_t size = std::min<size_t>(random() % 3000, 50000 - at);  // may be empty
    pieces.push_back(shard.slice(at, size));
  }
  pieces.push_back(patterned_host(777, 7));
  size_t slot_size = 100;
  std::vector<size_t> offsets;
  const auto runs = plan_buffer_copy_runs(pieces, 64, 256, slot_size, offsets);
  for (size_t i = 0; i < pieces.size(); ++i) {
    EXPECT_EQ(offsets[i] % 256, reinterpret_cast<uintptr_t>(pieces[i].data()) % 256) << i;
    EXPECT_GE(offsets[i], 100u) << i;
  }
  expect_pieces_land(pieces, runs, offsets, slot_size);
}

TEST(BufferCopyRuns, NoPiecesLeaveTheSlotAsItWas) {
  size_t slot_size = 300;
  std::vector<size_t> offsets{1, 2};
  EXPECT_TRUE(plan_buffer_copy_runs({}, 0, 256, slot_size, offsets).empty());
  EXPECT_EQ(slot_size, 300u);
  EXPECT_TRUE(offsets.empty());
}

}  // namespace
}  // namespace cuzarr
