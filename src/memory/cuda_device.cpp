#include "cuzarr/memory/cuda_device.hpp"

#if CUZARR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace cuzarr {

bool built_with_cuda() noexcept {
#if CUZARR_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

int cuda_device_count() noexcept {
#if CUZARR_HAVE_CUDA
  // The set of visible devices is fixed when the runtime starts.
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
#else
  return 0;
#endif
}

std::string cuda_unavailable_reason() {
#if CUZARR_HAVE_CUDA
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    return std::string("no CUDA device: ") + cudaGetErrorName(status) + " (" +
           cudaGetErrorString(status) + ")";
  }
  if (count == 0) return "no CUDA device: cudaGetDeviceCount() returned 0";
  return {};
#else
  return "cuzarr was built without CUDA support";
#endif
}

}  // namespace cuzarr
