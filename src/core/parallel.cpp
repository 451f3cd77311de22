#include "cuzarr/core/parallel.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <memory>
#include <mutex>

namespace cuzarr {
namespace {

std::mutex g_mutex;
std::unique_ptr<tbb::global_control> g_control;
size_t g_threads = 0;

}  // namespace

void set_cpu_threads(size_t threads) {
  std::lock_guard lock(g_mutex);
  g_control.reset();
  g_threads = threads;
  if (threads > 0) {
    g_control = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                      threads);
  }
}

size_t cpu_threads() {
  return tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
}

void parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  if (n == 1) {
    body(0);
    return;
  }
  // TBB propagates the first exception thrown by a task to the caller.
  tbb::parallel_for(size_t{0}, n, [&](size_t i) { body(i); });
}

}  // namespace cuzarr
