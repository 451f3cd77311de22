#include "cuzarr/api/dirty_ranges.hpp"

#include <gtest/gtest.h>

namespace cuzarr {
namespace {

using Ranges = std::vector<ByteInterval>;

TEST(DirtyRanges, KeepsDisjointRangesSorted) {
  DirtyRanges r;
  r.add(40, 44);
  r.add(0, 4);
  r.add(20, 24);
  EXPECT_EQ(r.ranges(), (Ranges{{0, 4}, {20, 24}, {40, 44}}));
  EXPECT_EQ(r.count(), 3u);
  EXPECT_EQ(r.total_bytes(), 12u);
}

TEST(DirtyRanges, MergesOverlappingAndTouchingRanges) {
  DirtyRanges r;
  r.add(10, 20);
  r.add(20, 30);  // touches
  EXPECT_EQ(r.ranges(), (Ranges{{10, 30}}));
  r.add(5, 12);   // overlaps the start
  r.add(28, 35);  // overlaps the end
  EXPECT_EQ(r.ranges(), (Ranges{{5, 35}}));
  r.add(50, 60);
  r.add(70, 80);
  r.add(0, 100);  // swallows everything
  EXPECT_EQ(r.ranges(), (Ranges{{0, 100}}));
}

TEST(DirtyRanges, MergesRangesWhoseGapIsBelowTheThreshold) {
  DirtyRanges r(8);
  r.add(0, 4);
  r.add(11, 15);  // gap 7 < 8: merged
  EXPECT_EQ(r.ranges(), (Ranges{{0, 15}}));
  r.add(23, 30);  // gap 8: kept apart
  EXPECT_EQ(r.ranges(), (Ranges{{0, 15}, {23, 30}}));
  r.add(16, 17);  // gap 1 to the left and 6 to the right: bridges both
  EXPECT_EQ(r.ranges(), (Ranges{{0, 30}}));
}

TEST(DirtyRanges, RaisingTheThresholdMergesExistingRanges) {
  DirtyRanges r;
  for (uint64_t i = 0; i < 5; ++i) r.add(i * 10, i * 10 + 2);
  EXPECT_EQ(r.count(), 5u);
  r.set_merge_threshold(8);
  EXPECT_EQ(r.count(), 5u);  // gaps of 8 are not below 8
  r.set_merge_threshold(9);
  EXPECT_EQ(r.ranges(), (Ranges{{0, 42}}));
  EXPECT_EQ(r.merge_threshold(), 9u);
}

TEST(DirtyRanges, RemoveCutsAndSplitsRanges) {
  DirtyRanges r;
  r.add(0, 10);
  r.add(20, 30);
  r.add(40, 50);
  r.remove(5, 45);
  EXPECT_EQ(r.ranges(), (Ranges{{0, 5}, {45, 50}}));
  r.add(0, 50);
  r.remove(10, 20);  // a hole in the middle
  EXPECT_EQ(r.ranges(), (Ranges{{0, 10}, {20, 50}}));
  r.remove(0, 100);
  EXPECT_TRUE(r.empty());
}

TEST(DirtyRanges, IntersectsAndEmptyRanges) {
  DirtyRanges r;
  r.add(5, 5);  // empty: ignored
  EXPECT_TRUE(r.empty());
  r.add(10, 20);
  EXPECT_TRUE(r.intersects(0, 11));
  EXPECT_TRUE(r.intersects(19, 30));
  EXPECT_TRUE(r.intersects(12, 13));
  EXPECT_FALSE(r.intersects(0, 10));
  EXPECT_FALSE(r.intersects(20, 30));
  DirtyRanges other;
  other.add(30, 40);
  r.add(other);
  EXPECT_EQ(r.ranges(), (Ranges{{10, 20}, {30, 40}}));
  r.clear();
  EXPECT_EQ(r.total_bytes(), 0u);
}

}  // namespace
}  // namespace cuzarr
