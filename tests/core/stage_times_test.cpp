#include "cuzarr/core/stage_times.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace cuzarr {
namespace {

// Leaves stage times off and empty for the tests that follow.
struct StageTimesOff {
  ~StageTimesOff() {
    enable_stage_times(false);
    reset_stage_times();
  }
};

TEST(StageTimes, OffRecordsNothing) {
  const StageTimesOff off;
  enable_stage_times(false);
  reset_stage_times();
  { const StageTimer timer("fetch"); }
  EXPECT_FALSE(stage_times_enabled());
  EXPECT_TRUE(stage_times().empty());
}

TEST(StageTimes, TimersAddTheirSectionsPerStageInFirstRecordedOrder) {
  const StageTimesOff off;
  enable_stage_times(true);
  reset_stage_times();
  {
    const StageTimer timer("decode");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  { const StageTimer timer("fetch"); }
  {
    const StageTimer timer("decode");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  add_stage_time("fetch", 1.5);
  const auto stages = stage_times();
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].stage, "decode");
  EXPECT_EQ(stages[0].sections, 2u);
  EXPECT_GE(stages[0].seconds, 0.025);
  EXPECT_EQ(stages[1].stage, "fetch");
  EXPECT_EQ(stages[1].sections, 2u);
  EXPECT_GE(stages[1].seconds, 1.5);
  EXPECT_LT(stages[1].seconds, 2.5);

  reset_stage_times();
  EXPECT_TRUE(stage_times().empty());
}

TEST(StageTimes, AStartedTimerRecordsEvenIfTurnedOffMeanwhileButANewOneDoesNot) {
  const StageTimesOff off;
  enable_stage_times(true);
  reset_stage_times();
  {
    const StageTimer timer("started");
    enable_stage_times(false);
    const StageTimer later("later");
  }
  const auto stages = stage_times();
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_EQ(stages[0].stage, "started");
}

}  // namespace
}  // namespace cuzarr
