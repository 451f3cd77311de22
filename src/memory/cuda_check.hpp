// Checking CUDA runtime calls: every call's result goes through CUZARR_CUDA_CHECK, which throws
// CudaError naming the call and the CUDA error. Only for sources built with CUDA.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "cuzarr/core/error.hpp"

namespace cuzarr::detail {

inline void check_cuda(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  throw CudaError(std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                  cudaGetErrorString(status) + ")");
}

inline cudaStream_t to_cuda(CUstream_st* stream) noexcept { return stream; }

}  // namespace cuzarr::detail

#define CUZARR_CUDA_CHECK(call) ::cuzarr::detail::check_cuda((call), #call)
