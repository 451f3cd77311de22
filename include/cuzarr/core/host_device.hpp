// CUZARR_HOST_DEVICE marks inline functions that run on the CPU and, compiled by nvcc, on the GPU:
// codec logic written once, tested on the CPU everywhere and called from kernels.
#pragma once

#if defined(__CUDACC__)
#define CUZARR_HOST_DEVICE __host__ __device__
#else
#define CUZARR_HOST_DEVICE
#endif
