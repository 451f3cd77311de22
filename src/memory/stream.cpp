#include "cuzarr/memory/stream.hpp"

#include "cuzarr/core/error.hpp"
#include "cuzarr/memory/cuda_device.hpp"

#if CUZARR_HAVE_CUDA
#include "memory/cuda_check.hpp"
#endif

namespace cuzarr {

Stream Stream::create() {
#if CUZARR_HAVE_CUDA
  cudaStream_t native = nullptr;
  CUZARR_CUDA_CHECK(cudaStreamCreateWithFlags(&native, cudaStreamDefault));
  Stream s;
  s.owned_ = std::shared_ptr<CUstream_st>(native, [](CUstream_st* p) { cudaStreamDestroy(p); });
  s.handle_ = native;
  return s;
#else
  throw UnsupportedError("Stream::create: this build of cuzarr has no CUDA support");
#endif
}

Stream Stream::per_thread() noexcept {
#if CUZARR_HAVE_CUDA
  return wrap(cudaStreamPerThread);
#else
  // The value of cudaStreamPerThread; without CUDA it is never used.
  return wrap(reinterpret_cast<CUstream_st*>(0x2));
#endif
}

Stream Stream::wrap(CUstream_st* native) noexcept {
  Stream s;
  s.handle_ = native;
  return s;
}

void Stream::synchronize() const {
#if CUZARR_HAVE_CUDA
  // Without a device nothing can have been queued on the default stream.
  if (handle_ == nullptr && cuda_device_count() == 0) return;
  CUZARR_CUDA_CHECK(cudaStreamSynchronize(handle_));
#else
  if (handle_ != nullptr)
    throw UnsupportedError("Stream::synchronize: this build of cuzarr has no CUDA support");
#endif
}

void Stream::wait_for(const Stream& other) const {
  if (other.handle_ == handle_) return;
#if CUZARR_HAVE_CUDA
  cudaEvent_t event = nullptr;
  CUZARR_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  cudaError_t status = cudaEventRecord(event, other.handle_);
  if (status == cudaSuccess) status = cudaStreamWaitEvent(handle_, event, 0);
  // Destroying an event that a queued wait refers to is allowed: the wait keeps what it needs.
  cudaEventDestroy(event);
  CUZARR_CUDA_CHECK(status);
#else
  throw UnsupportedError("Stream::wait_for: this build of cuzarr has no CUDA support");
#endif
}

}  // namespace cuzarr
