// Where the time of a read goes: wall-clock seconds spent in named stages of the chunk pipeline
// (fetching chunks, decoding them on the CPU, packing them for the GPU, waiting for the GPU, the
// GPU's own time, ...), summed over every call and thread since the last reset. `cuzarr bench
// read --stages` prints them. Off by default; while off, a StageTimer costs one relaxed atomic
// load.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace cuzarr {

/// One stage's total: seconds summed over its timed sections, and how many sections there were.
struct StageTime {
  std::string stage;
  double seconds = 0;
  uint64_t sections = 0;
};

/// Turns the recording of stage times on or off (process-wide; thread-safe).
void enable_stage_times(bool on);
/// Whether stage times are being recorded.
bool stage_times_enabled();
/// Forgets every recorded stage time.
void reset_stage_times();
/// The recorded stages, in the order each was first recorded.
std::vector<StageTime> stage_times();
/// Adds `seconds` to the stage named `stage`, one more section.
void add_stage_time(const char* stage, double seconds);

/// Times the section from its construction to its destruction as stage `stage` (a string that
/// outlives the timer, e.g. a literal), when stage times are enabled. Sections on several
/// threads at once each add their own wall time, so a stage run by N threads may add up to N
/// times the elapsed time.
class StageTimer {
 public:
  explicit StageTimer(const char* stage);
  ~StageTimer();
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  const char* stage_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace cuzarr
