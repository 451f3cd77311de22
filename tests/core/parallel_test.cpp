#include "cuzarr/core/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace cuzarr {
namespace {

TEST(ParallelFor, RunsEveryIndexExactlyOnce) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1000}}) {
    std::vector<std::atomic<int>> hits(n);
    parallel_for(n, [&](size_t i) { hits[i]++; });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n " << n << " index " << i;
  }
}

TEST(ParallelFor, NestedLoopsComplete) {
  std::atomic<int> total{0};
  parallel_for(8, [&](size_t) { parallel_for(8, [&](size_t) { total++; }); });
  EXPECT_EQ(total.load(), 64);
}

TEST(ParallelFor, RethrowsABodysException) {
  EXPECT_THROW(parallel_for(100,
                            [](size_t i) {
                              if (i == 37) throw std::runtime_error("index 37");
                            }),
               std::runtime_error);
}

TEST(ParallelFor, ThreadSettingIsReported) {
  set_cpu_threads(1);
  EXPECT_EQ(cpu_threads(), 1u);
  std::vector<int> order;
  parallel_for(5, [&](size_t i) { order.push_back(static_cast<int>(i)); });  // one thread: safe
  EXPECT_EQ(order.size(), 5u);
  set_cpu_threads(0);
  EXPECT_GE(cpu_threads(), 1u);
}

}  // namespace
}  // namespace cuzarr
