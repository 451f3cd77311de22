// A stream forked from a caller's stream, so that two kernels of one batch can run side by side.
// Only for sources built with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include "memory/cuda_check.hpp"

namespace cuzarr::gpu::detail {

/// A stream of its own that starts after everything enqueued on `parent` so far. join() makes
/// `parent` wait for everything enqueued on it since; the destructor joins if join() was not
/// called, then releases the stream and events (CUDA frees them once their work is done), so the
/// parent never runs ahead of the fork's work.
///
/// With `high_priority` the fork's thread blocks are dispatched before those of the parent's
/// kernels when both wait for room on the GPU: a kernel launched on the fork and then one on the
/// parent starts first and holds its place beside the other.
class StreamFork {
 public:
  StreamFork(cudaStream_t parent, bool high_priority) : parent_(parent) {
    int least = 0, greatest = 0;
    CUZARR_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUZARR_CUDA_CHECK(cudaStreamCreateWithPriority(&fork_, cudaStreamNonBlocking,
                                                   high_priority ? greatest : least));
    try {
      CUZARR_CUDA_CHECK(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming));
      CUZARR_CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
      CUZARR_CUDA_CHECK(cudaEventRecord(forked_, parent_));
      CUZARR_CUDA_CHECK(cudaStreamWaitEvent(fork_, forked_, 0));
    } catch (...) {
      release();
      throw;
    }
  }
  StreamFork(const StreamFork&) = delete;
  StreamFork& operator=(const StreamFork&) = delete;
  ~StreamFork() {
    if (!joined_) {
      // Best effort on an error path: the parent still waits for the fork where CUDA allows.
      if (cudaEventRecord(done_, fork_) == cudaSuccess) cudaStreamWaitEvent(parent_, done_, 0);
    }
    release();
  }

  cudaStream_t get() const noexcept { return fork_; }

  /// The parent waits for everything enqueued on the fork so far.
  void join() {
    CUZARR_CUDA_CHECK(cudaEventRecord(done_, fork_));
    CUZARR_CUDA_CHECK(cudaStreamWaitEvent(parent_, done_, 0));
    joined_ = true;
  }

 private:
  void release() noexcept {
    if (done_ != nullptr) cudaEventDestroy(done_);
    if (forked_ != nullptr) cudaEventDestroy(forked_);
    if (fork_ != nullptr) cudaStreamDestroy(fork_);
  }

  cudaStream_t parent_;
  cudaStream_t fork_ = nullptr;
  cudaEvent_t forked_ = nullptr;
  cudaEvent_t done_ = nullptr;
  bool joined_ = false;
};

}  // namespace cuzarr::gpu::detail
