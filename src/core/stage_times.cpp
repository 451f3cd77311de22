#include "cuzarr/core/stage_times.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace cuzarr {
namespace {

std::atomic<bool> recording{false};

struct Recorded {
  std::mutex mutex;
  std::vector<StageTime> stages;
};

Recorded& recorded() {
  static Recorded instance;
  return instance;
}

}  // namespace

void enable_stage_times(bool on) { recording.store(on, std::memory_order_relaxed); }

bool stage_times_enabled() { return recording.load(std::memory_order_relaxed); }

void reset_stage_times() {
  std::lock_guard lock(recorded().mutex);
  recorded().stages.clear();
}

std::vector<StageTime> stage_times() {
  std::lock_guard lock(recorded().mutex);
  return recorded().stages;
}

void add_stage_time(const char* stage, double seconds) {
  std::lock_guard lock(recorded().mutex);
  auto& stages = recorded().stages;
  auto it = std::find_if(stages.begin(), stages.end(),
                         [&](const StageTime& s) { return s.stage == stage; });
  if (it == stages.end()) it = stages.insert(stages.end(), StageTime{stage, 0, 0});
  it->seconds += seconds;
  ++it->sections;
}

StageTimer::StageTimer(const char* stage) : stage_(stage_times_enabled() ? stage : nullptr) {
  if (stage_) start_ = std::chrono::steady_clock::now();
}

StageTimer::~StageTimer() {
  if (!stage_) return;
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
  try {
    add_stage_time(stage_, elapsed.count());
  } catch (...) {  // out of memory: the section goes unrecorded rather than ending the program
  }
}

}  // namespace cuzarr
