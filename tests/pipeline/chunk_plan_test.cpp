#include "cuzarr/pipeline/chunk_plan.hpp"

#include <gtest/gtest.h>

#include <map>

#include "cuzarr/pipeline/byte_range_coalescing.hpp"
#include "cuzarr/pipeline/stored_chunks.hpp"

namespace cuzarr {
namespace {

// Brute force: every selected position of every dimension, mapped to (chunk, offset, out index).
void expect_plan_matches_brute_force(const Selection& sel, const Shape& shape, const Shape& chunk) {
  auto norm = normalize_selection(sel, shape);
  auto plan = plan_chunks(norm, shape, chunk);
  // Collect (array position -> output position) from the plan.
  std::map<std::vector<int64_t>, std::vector<int64_t>> from_plan;
  for (const auto& p : plan) {
    std::vector<int64_t> k(shape.size(), 0);
    size_t total = 1;
    for (auto& s : p.in_chunk) total *= static_cast<size_t>(s.count);
    for (size_t t = 0; t < total; ++t) {
      size_t rem = t;
      std::vector<int64_t> pos(shape.size()), out(shape.size());
      for (size_t d = shape.size(); d-- > 0;) {
        int64_t kd = static_cast<int64_t>(rem % static_cast<size_t>(p.in_chunk[d].count));
        rem /= static_cast<size_t>(p.in_chunk[d].count);
        int64_t in = p.in_chunk[d].start + kd * p.in_chunk[d].step;
        ASSERT_GE(in, 0);
        ASSERT_LT(in, chunk[d]);
        pos[d] = p.coords[d] * chunk[d] + in;
        out[d] = p.out_start[d] + kd;
      }
      EXPECT_TRUE(from_plan.emplace(pos, out).second) << "position planned twice";
    }
  }
  // Expected: numpy semantics.
  size_t expected_total = 1;
  for (auto& d : norm.dims) expected_total *= static_cast<size_t>(d.count);
  EXPECT_EQ(from_plan.size(), expected_total);
  for (const auto& [pos, out] : from_plan) {
    for (size_t d = 0; d < shape.size(); ++d) {
      EXPECT_EQ(pos[d], norm.dims[d].start + out[d] * norm.dims[d].step);
    }
  }
}

TEST(ChunkPlan, MatchesBruteForceForStepsAndEdges) {
  expect_plan_matches_brute_force({}, {10, 7}, {3, 4});
  expect_plan_matches_brute_force({Slice{1, 9, 2}, Slice{}}, {10, 7}, {3, 4});
  expect_plan_matches_brute_force({Slice{std::nullopt, std::nullopt, -1}, Slice{6, 0, -3}}, {10, 7},
                                  {3, 4});
  expect_plan_matches_brute_force({int64_t{5}, Ellipsis{}}, {10, 7, 5}, {3, 4, 2});
  expect_plan_matches_brute_force({Slice{0, 100, 7}}, {100}, {10});
  expect_plan_matches_brute_force({Slice{-1, -101, -9}}, {100}, {10});
}

TEST(ChunkPlan, CoverageFlags) {
  Shape shape{10}, chunk{4};
  auto plan = plan_chunks(normalize_selection({}, shape), shape, chunk);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_TRUE(plan[0].covers_whole_chunk);
  EXPECT_TRUE(plan[0].covers_valid_region);
  EXPECT_FALSE(plan[2].covers_whole_chunk);  // edge chunk: 2 of 4 elements exist
  EXPECT_TRUE(plan[2].covers_valid_region);
  auto partial = plan_chunks(normalize_selection({Slice{1, 10, 1}}, shape), shape, chunk);
  EXPECT_FALSE(partial[0].covers_valid_region);
  EXPECT_TRUE(partial[1].covers_valid_region);
  auto stepped = plan_chunks(normalize_selection({Slice{0, 10, 2}}, shape), shape, chunk);
  EXPECT_FALSE(stepped[0].covers_valid_region);
}

TEST(ChunkPlan, EmptySelectionPlansNothing) {
  Shape shape{10, 10};
  EXPECT_TRUE(plan_chunks(normalize_selection({Slice{5, 5}}, shape), shape, Shape{3, 3}).empty());
}

TEST(ChunkPlan, ZeroDimensionalArrayHasOneChunk) {
  auto plan = plan_chunks(normalize_selection({}, Shape{}), Shape{}, Shape{});
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_TRUE(plan[0].coords.empty());
}

TEST(ByteRangeCoalescing, MergesWithinGapAndKeepsMembers) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges{{100, 10}, {0, 10}, {15, 5}, {1000, 1}};
  auto reads = coalesce_byte_ranges(ranges, 8);
  ASSERT_EQ(reads.size(), 3u);
  EXPECT_EQ(reads[0].offset, 0u);
  EXPECT_EQ(reads[0].length, 20u);
  EXPECT_EQ(reads[0].members, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(reads[1].offset, 100u);
  EXPECT_EQ(reads[2].members, (std::vector<size_t>{3}));
  EXPECT_EQ(coalesce_byte_ranges(ranges, 0).size(), 4u);
  EXPECT_EQ(coalesce_byte_ranges(ranges, 10000).size(), 1u);
}

TEST(StoredChunks, ParsesChunkKeysOfEveryEncoding) {
  ChunkKeyEncoding def{ChunkKeyEncoding::Kind::default_, '/'};
  EXPECT_EQ(parse_chunk_key(def, "c/1/23", 2), (Index{1, 23}));
  EXPECT_FALSE(parse_chunk_key(def, "c/1", 2));
  EXPECT_FALSE(parse_chunk_key(def, "zarr.json", 2));
  EXPECT_FALSE(parse_chunk_key(def, "c/1/-2", 2));
  EXPECT_EQ(parse_chunk_key(def, "c", 0), Index{});
  ChunkKeyEncoding dot{ChunkKeyEncoding::Kind::default_, '.'};
  EXPECT_EQ(parse_chunk_key(dot, "c.4.5", 2), (Index{4, 5}));
  ChunkKeyEncoding v2{ChunkKeyEncoding::Kind::v2, '.'};
  EXPECT_EQ(parse_chunk_key(v2, "4.5", 2), (Index{4, 5}));
  EXPECT_EQ(parse_chunk_key(v2, "0", 0), Index{});
  EXPECT_FALSE(parse_chunk_key(v2, "sub/4.5", 2));
}

}  // namespace
}  // namespace cuzarr
