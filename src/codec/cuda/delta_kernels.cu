#include <type_traits>

#include "codec/cuda/delta_kernels.hpp"
#include "codec/cuda/kernel_support.cuh"
#include "memory/cuda_check.hpp"

namespace cuzarr::gpu {
namespace {

using detail::kFullMask;
using detail::kWarpSize;

constexpr int kThreads = 256;
constexpr int kItems = 8;  // elements per thread per tile of the integer scan

// Checks chunk i's sizes; the first thread of part 0 records the status.
__device__ inline bool chunk_valid(const DeviceChunkBatch& batch, size_t chunk, uint32_t element,
                                   bool writer) {
  const uint64_t size = batch.input_sizes[chunk];
  DeviceChunkStatus status = DeviceChunkStatus::ok;
  if (size % element != 0) {
    status = DeviceChunkStatus::corrupt_input;
  } else if (batch.output_capacities[chunk] < size) {
    status = DeviceChunkStatus::output_too_small;
  }
  if (writer) {
    batch.statuses[chunk] = status;
    batch.output_sizes[chunk] = status == DeviceChunkStatus::ok ? size : 0;
  }
  return status == DeviceChunkStatus::ok;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    delta_encode_kernel(DeviceChunkBatch batch, uint32_t parts) {
  const size_t chunk = blockIdx.x / parts;
  const uint32_t part = blockIdx.x % parts;
  if (!chunk_valid(batch, chunk, sizeof(T), part == 0 && threadIdx.x == 0)) return;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  const uint64_t n = batch.input_sizes[chunk] / sizeof(T);
  const uint64_t stride = uint64_t{parts} * blockDim.x;
  for (uint64_t k = uint64_t{part} * blockDim.x + threadIdx.x; k < n; k += stride) {
    const T value = delta_load<T>(in + k * sizeof(T));
    delta_store<T>(out + k * sizeof(T),
                   k == 0 ? value : delta_subtract(value, delta_load<T>(in + (k - 1) * sizeof(T))));
  }
}

// Integer decode: one block per chunk scans tiles of kThreads * kItems elements, carrying the sum
// of the previous tiles (wrap-around addition is associative, so any grouping gives numpy's bits).
template <class T>
__global__ void __launch_bounds__(kThreads) delta_decode_scan_kernel(DeviceChunkBatch batch) {
  __shared__ T warp_sums[kThreads / kWarpSize];
  __shared__ T carry_shared;
  const size_t chunk = blockIdx.x;
  if (!chunk_valid(batch, chunk, sizeof(T), threadIdx.x == 0)) return;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  const uint64_t n = batch.input_sizes[chunk] / sizeof(T);
  const unsigned lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  T carry = 0;
  for (uint64_t base = 0; base < n; base += uint64_t{kThreads} * kItems) {
    T items[kItems];
    T local = 0;
    const uint64_t first = base + uint64_t{threadIdx.x} * kItems;
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      items[q] = first + q < n ? delta_load<T>(in + (first + q) * sizeof(T)) : T{0};
      local = delta_add(local, items[q]);
    }
    // Inclusive scan of the thread totals within the warp, then across warps.
    T scan = local;
    for (int d = 1; d < kWarpSize; d *= 2) {
      const T other =
          static_cast<T>(__shfl_up_sync(kFullMask, static_cast<unsigned long long>(scan), d));
      if (static_cast<int>(lane) >= d) scan = delta_add(scan, other);
    }
    if (lane == kWarpSize - 1) warp_sums[warp] = scan;
    __syncthreads();
    T before = carry;
    for (unsigned w = 0; w < warp; ++w) before = delta_add(before, warp_sums[w]);
    before = delta_add(before, delta_subtract(scan, local));  // exclusive within the warp
    T running = before;
#pragma unroll
    for (int q = 0; q < kItems; ++q) {
      running = delta_add(running, items[q]);
      if (first + q < n) delta_store<T>(out + (first + q) * sizeof(T), running);
    }
    if (threadIdx.x == kThreads - 1) carry_shared = running;
    __syncthreads();
    carry = carry_shared;
    __syncthreads();
  }
}

// Float decode: numpy's cumsum adds in order; one thread per chunk reproduces its rounding.
template <class T>
__global__ void delta_decode_serial_kernel(DeviceChunkBatch batch) {
  const size_t chunk = blockIdx.x * size_t{blockDim.x} + threadIdx.x;
  if (chunk >= batch.count) return;
  if (!chunk_valid(batch, chunk, sizeof(T), true)) return;
  const auto* in = reinterpret_cast<const unsigned char*>(batch.inputs[chunk]);
  auto* out = reinterpret_cast<unsigned char*>(batch.outputs[chunk]);
  const uint64_t n = batch.input_sizes[chunk] / sizeof(T);
  T sum = 0;
  for (uint64_t k = 0; k < n; ++k) {
    sum = k == 0 ? delta_load<T>(in) : delta_add(sum, delta_load<T>(in + k * sizeof(T)));
    delta_store<T>(out + k * sizeof(T), sum);
  }
}

// The host-side twin of visit_delta_type for the launchers (host lambdas).
template <class F>
void visit_on_host(DeltaType type, F&& f) {
  switch (type) {
    case DeltaType::int8:
    case DeltaType::uint8:
      return f(uint8_t{});
    case DeltaType::int16:
    case DeltaType::uint16:
      return f(uint16_t{});
    case DeltaType::int32:
    case DeltaType::uint32:
      return f(uint32_t{});
    case DeltaType::int64:
    case DeltaType::uint64:
      return f(uint64_t{});
    case DeltaType::float32:
      return f(float{});
    case DeltaType::float64:
      return f(double{});
  }
}

}  // namespace

void delta_encode_batch(const DeviceChunkBatch& batch, DeltaType type, Stream stream) {
  if (batch.count == 0) return;
  const uint32_t parts = detail::parts_per_chunk(batch.count);
  visit_on_host(type, [&](auto t) {
    using T = decltype(t);
    delta_encode_kernel<T>
        <<<detail::grid_for(batch.count, parts), kThreads, 0, detail::to_cuda(stream.native())>>>(
            batch, parts);
  });
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

void delta_decode_batch(const DeviceChunkBatch& batch, DeltaType type, Stream stream) {
  if (batch.count == 0) return;
  const cudaStream_t s = detail::to_cuda(stream.native());
  visit_on_host(type, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_floating_point_v<T>) {
      constexpr int kSerialThreads = 64;
      const auto blocks =
          static_cast<unsigned>((batch.count + kSerialThreads - 1) / kSerialThreads);
      delta_decode_serial_kernel<T><<<blocks, kSerialThreads, 0, s>>>(batch);
    } else {
      delta_decode_scan_kernel<T><<<static_cast<unsigned>(batch.count), kThreads, 0, s>>>(batch);
    }
  });
  CUZARR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuzarr::gpu
