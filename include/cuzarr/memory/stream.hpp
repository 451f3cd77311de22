// Stream: a CUDA stream handle (cudaStream_t) that cuzarr's stream-ordered functions take. The
// header does not need the CUDA headers; in builds without CUDA only the default stream exists.
#pragma once

#include <memory>

// cudaStream_t is `struct CUstream_st*`; naming the struct keeps this header free of CUDA headers.
struct CUstream_st;

namespace cuzarr {

class Stream {
 public:
  /// The legacy default (null) stream. It waits for, and is waited for by, every blocking stream.
  Stream() = default;

  /// A new blocking stream (ordered with the default stream), destroyed when the last copy of the
  /// returned handle goes away. Throws UnsupportedError without CUDA, CudaError on failure.
  static Stream create();
  /// The per-thread default stream (cudaStreamPerThread).
  static Stream per_thread() noexcept;
  /// Wraps a stream someone else owns (a cudaStream_t); it must outlive every use through cuzarr.
  static Stream wrap(CUstream_st* native) noexcept;

  /// The cudaStream_t (nullptr for the default stream).
  CUstream_st* native() const noexcept { return handle_; }
  /// True for the legacy default (null) stream.
  bool is_default() const noexcept { return handle_ == nullptr; }

  /// Blocks until all work queued on the stream has finished. A no-op for the default stream in
  /// builds without CUDA; throws CudaError when the stream reports an error (for example from an
  /// earlier asynchronous copy), UnsupportedError for a non-default stream without CUDA.
  void synchronize() const;

  /// Makes the work queued on this stream from now on wait for the work queued on `other` so far
  /// (an event recorded on `other`, waited for here); returns at once. A no-op when both are the
  /// same stream. Throws CudaError on failure, UnsupportedError without CUDA (unless both are the
  /// default stream).
  void wait_for(const Stream& other) const;

  friend bool operator==(const Stream& a, const Stream& b) noexcept {
    return a.handle_ == b.handle_;
  }

 private:
  std::shared_ptr<CUstream_st> owned_;  // set for streams made by create()
  CUstream_st* handle_ = nullptr;
};

}  // namespace cuzarr
