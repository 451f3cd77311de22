#include "cuzarr/codec/chunk_status.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

namespace cuzarr {
namespace {

TEST(ForEachChunk, RecordsErrorsPerChunkAndRunsTheOthers) {
  std::vector<ChunkStatus> status(50);
  std::vector<int> ran(50, 0);
  for_each_chunk(status, [&](size_t i) {
    ran[i] = 1;
    if (i == 3) throw CorruptDataError("bad chunk three");
    if (i == 7) throw UnsupportedError("not here");
    if (i == 9) throw std::runtime_error("plain exception");
  });
  for (size_t i = 0; i < status.size(); ++i) EXPECT_EQ(ran[i], 1) << i;
  EXPECT_FALSE(status[3].ok);
  EXPECT_EQ(status[3].code, ErrorCode::corrupt_data);
  EXPECT_EQ(status[3].message, "bad chunk three");
  EXPECT_FALSE(status[7].ok);
  EXPECT_EQ(status[7].code, ErrorCode::unsupported);
  EXPECT_FALSE(status[9].ok);
  EXPECT_EQ(status[9].code, ErrorCode::corrupt_data);
  EXPECT_EQ(status[9].message, "plain exception");
  int ok = 0;
  for (const auto& s : status) ok += s.ok;
  EXPECT_EQ(ok, 47);
}

TEST(ForEachChunk, SkipsChunksThatAlreadyFailed) {
  std::vector<ChunkStatus> status(4);
  status[2].fail(ErrorCode::io, "earlier stage");
  std::atomic<int> calls{0};
  for_each_chunk(status, [&](size_t i) {
    EXPECT_NE(i, 2u);
    ++calls;
  });
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(status[2].message, "earlier stage");
}

TEST(ForEachChunk, EmptyAndSingleBatches) {
  std::vector<ChunkStatus> none;
  for_each_chunk(none, [](size_t) { FAIL() << "no chunk to run"; });
  std::vector<ChunkStatus> one(1);
  for_each_chunk(one, [](size_t) { throw InvalidArgumentError("single"); });
  EXPECT_FALSE(one[0].ok);
  EXPECT_EQ(one[0].code, ErrorCode::invalid_argument);
}

TEST(ThrowIfFailed, ThrowsTheFirstFailureWithContextAndTheRightType) {
  std::vector<ChunkStatus> status(3);
  EXPECT_NO_THROW(throw_if_failed(status, [](size_t) { return std::string("x"); }));
  status[1].fail(ErrorCode::corrupt_data, "crc32c checksum mismatch");
  status[2].fail(ErrorCode::io, "later");
  try {
    throw_if_failed(status, [](size_t i) { return "chunk c/" + std::to_string(i); });
    FAIL() << "expected a throw";
  } catch (const CorruptDataError& e) {
    EXPECT_STREQ(e.what(), "chunk c/1: crc32c checksum mismatch");
  }
}

}  // namespace
}  // namespace cuzarr
