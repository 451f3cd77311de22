// CUZARR_HOST_DEVICE marks inline functions that run on the CPU and, compiled by nvcc, on the GPU:
// codec logic written once, tested on the CPU everywhere and called from kernels.
#pragma once

#if defined(__CUDACC__)
#define CUZARR_HOST_DEVICE __host__ __device__
#else
#define CUZARR_HOST_DEVICE
#endif

/// CUZARR_NOINLINE keeps the device compiler from inlining a function: a rarely taken path (a
/// slow fallback) then stays out of the hot loops that call it, which keeps them small in the
/// instruction cache. Such functions take and return values, so that callers' state can stay in
/// registers. No effect on the CPU.
#if defined(__CUDACC__)
#define CUZARR_NOINLINE __noinline__
#else
#define CUZARR_NOINLINE
#endif

/// CUZARR_NO_UNROLL before a loop keeps the device compiler from unrolling it: long loops of
/// rarely run code (building tables) would otherwise fill the instruction cache.
#if defined(__CUDA_ARCH__)
#define CUZARR_NO_UNROLL _Pragma("unroll 1")
#else
#define CUZARR_NO_UNROLL
#endif
