// CPU parallelism (oneTBB underneath, or std::thread in builds without oneTBB) and the setting for
// how many threads cuzarr uses.
#pragma once

#include <cstddef>
#include <functional>

namespace cuzarr {

/// Limits cuzarr's CPU parallelism to `threads` (0 = all cores, the default).
void set_cpu_threads(size_t threads);
/// The number of threads cuzarr's parallel loops may use now.
size_t cpu_threads();

/// Runs body(i) for i in [0, n) on the thread pool and waits. An exception thrown by a body is
/// rethrown here (the first one; the others are dropped).
void parallel_for(size_t n, const std::function<void(size_t)>& body);

}  // namespace cuzarr
