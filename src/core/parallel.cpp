#include "cuzarr/core/parallel.hpp"

#include <mutex>

#if CUZARR_HAVE_TBB
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>

#include <memory>
#else
#include <algorithm>
#include <atomic>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>
#endif

namespace cuzarr {

#if CUZARR_HAVE_TBB

namespace {

std::mutex g_mutex;
std::unique_ptr<tbb::global_control> g_control;

}  // namespace

void set_cpu_threads(size_t threads) {
  std::lock_guard lock(g_mutex);
  g_control.reset();
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

#else  // std::thread fallback for builds without oneTBB

namespace {

std::mutex g_mutex;
size_t g_threads = 0;
// Set on threads running a parallel_for body: nested loops run serially instead of multiplying
// the number of threads.
thread_local bool t_inside_parallel_for = false;

}  // namespace

void set_cpu_threads(size_t threads) {
  std::lock_guard lock(g_mutex);
  g_threads = threads;
}

size_t cpu_threads() {
  std::lock_guard lock(g_mutex);
  if (g_threads > 0) return g_threads;
  return std::max<size_t>(1, std::thread::hardware_concurrency());
}

void parallel_for(size_t n, const std::function<void(size_t)>& body) {
  if (n == 0) return;
  const size_t workers = std::min(n, cpu_threads());
  if (workers <= 1 || t_inside_parallel_for) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  // Indices are handed out one at a time; the calling thread works too. After the first exception
  // no new indices start, and that exception is rethrown once every thread has stopped.
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    t_inside_parallel_for = true;
    for (size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
    t_inside_parallel_for = false;
  };
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  for (size_t t = 1; t < workers; ++t) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // fewer threads than asked for; the others still finish the loop
    }
  }
  work();
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

#endif

}  // namespace cuzarr
