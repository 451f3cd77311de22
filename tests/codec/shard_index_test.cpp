#include "cuzarr/codec/shard_index.hpp"

#include <gtest/gtest.h>

#include <string>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr uint64_t kEmpty = ShardIndex::kEmpty;

// Expects `f` to throw CorruptDataError whose message contains every one of `parts`.
template <class F>
void expect_corrupt(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    FAIL() << "expected CorruptDataError";
  } catch (const CorruptDataError& e) {
    const std::string message = e.what();
    for (const auto& part : parts)
      EXPECT_NE(message.find(part), std::string::npos) << message << " lacks " << part;
  }
}

TEST(ShardIndex, EmptyHasEveryEntryEmpty) {
  const ShardIndex index = ShardIndex::empty({2, 3});
  EXPECT_EQ(index.grid, (Shape{2, 3}));
  ASSERT_EQ(index.chunk_count(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_TRUE(index.is_empty(i));
    EXPECT_EQ(index.offsets[i], kEmpty);
    EXPECT_EQ(index.nbytes[i], kEmpty);
  }
  EXPECT_TRUE(index.all_empty());
}

TEST(ShardIndex, ZeroDimensionalGridHasOneChunk) {
  const ShardIndex index = ShardIndex::empty({});
  EXPECT_EQ(index.chunk_count(), 1u);
  EXPECT_EQ(index.linear_index(Index{}), 0u);
  EXPECT_TRUE(index.chunk_coords(0).empty());
}

TEST(ShardIndex, LinearIndexIsCOrder) {
  const ShardIndex index = ShardIndex::empty({2, 3, 4});
  EXPECT_EQ(index.linear_index(Index{0, 0, 0}), 0u);
  EXPECT_EQ(index.linear_index(Index{0, 0, 1}), 1u);
  EXPECT_EQ(index.linear_index(Index{0, 1, 0}), 4u);
  EXPECT_EQ(index.linear_index(Index{1, 0, 0}), 12u);
  EXPECT_EQ(index.linear_index(Index{1, 2, 3}), 23u);
  for (size_t i = 0; i < index.chunk_count(); ++i)
    EXPECT_EQ(index.linear_index(index.chunk_coords(i)), i);
  EXPECT_EQ(index.chunk_coords(23), (Index{1, 2, 3}));
}

TEST(ShardIndex, LinearIndexRejectsBadCoordinates) {
  const ShardIndex index = ShardIndex::empty({2, 3});
  EXPECT_THROW(index.linear_index(Index{1}), InvalidArgumentError);
  EXPECT_THROW(index.linear_index(Index{2, 0}), InvalidArgumentError);
  EXPECT_THROW(index.linear_index(Index{0, -1}), InvalidArgumentError);
}

TEST(ShardIndex, AllEmptyIsFalseOnceOneChunkIsStored) {
  ShardIndex index = ShardIndex::empty({4});
  index.offsets[3] = 0;
  index.nbytes[3] = 10;
  EXPECT_FALSE(index.is_empty(3));
  EXPECT_FALSE(index.all_empty());
}

TEST(ShardIndex, ValidAcceptsEntriesInsideTheDataRegion) {
  ShardIndex index = ShardIndex::empty({2, 2});
  index.offsets = {0, 10, kEmpty, 30};
  index.nbytes = {10, 20, kEmpty, 2};
  EXPECT_NO_THROW(index.validate(0, 32, "shard/c/0"));
}

TEST(ShardIndex, ValidAcceptsOverlapsGapsAndAnyOrder) {
  // Sharding spec, "Binary shard format": the order of the chunks is free and unused space is
  // allowed; nothing forbids two entries that share bytes.
  ShardIndex index = ShardIndex::empty({3});
  index.offsets = {50, 10, 10};
  index.nbytes = {5, 20, 20};
  EXPECT_NO_THROW(index.validate(0, 100, "k"));
}

TEST(ShardIndex, ValidAllEmptyIndexInAnEmptyRegion) {
  const ShardIndex index = ShardIndex::empty({3});
  EXPECT_NO_THROW(index.validate(0, 0, "k"));
}

TEST(ShardIndex, RejectsEntryPastTheEnd) {
  ShardIndex index = ShardIndex::empty({2, 2});
  index.offsets[1] = 10;
  index.nbytes[1] = 23;
  expect_corrupt([&] { index.validate(0, 32, "arr/c/1/2"); },
                 {"arr/c/1/2", "[0, 1]", "[10, 33)", "[0, 32)"});
}

TEST(ShardIndex, RejectsEntryStartingPastTheEnd) {
  ShardIndex index = ShardIndex::empty({2});
  index.offsets[0] = 40;
  index.nbytes[0] = 0;
  expect_corrupt([&] { index.validate(0, 32, "key"); }, {"key", "[0]"});
}

TEST(ShardIndex, RejectsEntryBeforeTheDataRegion) {
  // With the index at the start, the data region begins after it: an entry pointing into the
  // index is corrupt.
  ShardIndex index = ShardIndex::empty({2});
  index.offsets = {36, 0};
  index.nbytes = {4, 4};
  expect_corrupt([&] { index.validate(36, 44, "s"); }, {"s", "inner chunk [1]", "[36, 44)"});
}

TEST(ShardIndex, RejectsOverflowingEntry) {
  ShardIndex index = ShardIndex::empty({2});
  index.offsets[1] = kEmpty - 5;
  index.nbytes[1] = 10;
  expect_corrupt([&] { index.validate(0, kEmpty - 1, "k"); }, {"k", "[1]", "overflow"});
}

TEST(ShardIndex, RejectsHalfEmptyEntries) {
  ShardIndex only_offset = ShardIndex::empty({2});
  only_offset.nbytes[0] = 4;  // offset stays 2^64-1
  expect_corrupt([&] { only_offset.validate(0, 100, "k"); }, {"k", "[0]", "half empty"});

  ShardIndex only_nbytes = ShardIndex::empty({2});
  only_nbytes.offsets[1] = 0;  // nbytes stays 2^64-1
  expect_corrupt([&] { only_nbytes.validate(0, 100, "k"); }, {"k", "[1]", "half empty"});
}

TEST(ShardIndex, RejectsIndexOfTheWrongLength) {
  ShardIndex index = ShardIndex::empty({2, 2});
  index.offsets.pop_back();
  index.nbytes.pop_back();
  expect_corrupt([&] { index.validate(0, 100, "k"); }, {"k"});
}

}  // namespace
}  // namespace cuzarr
