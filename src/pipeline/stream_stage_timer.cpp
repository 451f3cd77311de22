#include "pipeline/stream_stage_timer.hpp"

#include "cuzarr/core/stage_times.hpp"

#if defined(CUZARR_HAVE_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace cuzarr {

#if defined(CUZARR_HAVE_CUDA)

namespace {
void destroy(cudaEvent_t event) {
  if (event) cudaEventDestroy(event);
}
}  // namespace

StreamStageTimer::~StreamStageTimer() {
  for (const Span& s : spans_) {
    destroy(s.start);
    destroy(s.stop);
  }
}

void StreamStageTimer::begin(const Stream& stream) {
  if (!stage_times_enabled()) return;
  Span span;
  if (cudaEventCreate(&span.start) != cudaSuccess) {
    cudaGetLastError();  // timing is best effort: a failure leaves the span out
    return;
  }
  cudaEventRecord(span.start, stream.native());
  spans_.push_back(span);
}

void StreamStageTimer::end(const Stream& stream) {
  if (spans_.empty() || spans_.back().stop) return;
  Span& span = spans_.back();
  if (cudaEventCreate(&span.stop) != cudaSuccess) {
    cudaGetLastError();
    span.stop = nullptr;
    destroy(span.start);
    spans_.pop_back();
    return;
  }
  cudaEventRecord(span.stop, stream.native());
}

void StreamStageTimer::collect() {
  std::vector<Span> pending;
  for (const Span& s : spans_) {
    float ms = 0;
    if (!s.stop || cudaEventQuery(s.stop) != cudaSuccess ||
        cudaEventElapsedTime(&ms, s.start, s.stop) != cudaSuccess) {
      cudaGetLastError();  // not done yet (or not timed): clear the status
      pending.push_back(s);
      continue;
    }
    add_stage_time(stage_, ms / 1000.0);
    destroy(s.start);
    destroy(s.stop);
  }
  spans_ = std::move(pending);
}

#else

StreamStageTimer::~StreamStageTimer() = default;
void StreamStageTimer::begin(const Stream&) {}
void StreamStageTimer::end(const Stream&) {}
void StreamStageTimer::collect() {}

#endif

}  // namespace cuzarr
