// GPU time of stream work as a stage time (cuzarr/core/stage_times.hpp): timing events recorded
// on a stream around queued work, read back once that work has run. Used by the device read sink
// to show how long the GPU spent on a read's copies and kernels; records nothing while stage times
// are off.
#pragma once

#include <vector>

#include "cuzarr/memory/stream.hpp"

struct CUevent_st;

namespace cuzarr {

class StreamStageTimer {
 public:
  /// `stage` must outlive the timer (a string literal).
  explicit StreamStageTimer(const char* stage) : stage_(stage) {}
  ~StreamStageTimer();
  StreamStageTimer(const StreamStageTimer&) = delete;
  StreamStageTimer& operator=(const StreamStageTimer&) = delete;

  /// Records the start of a span on `stream` (when stage times are on).
  void begin(const Stream& stream);
  /// Records the end of the span begun last, on the same stream.
  void end(const Stream& stream);
  /// Adds the spans whose work has run to the stage; the others stay for a later call.
  void collect();

 private:
  struct Span {
    CUevent_st* start = nullptr;
    CUevent_st* stop = nullptr;
  };
  const char* stage_;
  std::vector<Span> spans_;  // the last may still lack its stop
};

}  // namespace cuzarr
