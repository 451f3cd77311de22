// Helpers of the GPU benchmarks (cuzarr_gpu_codec_throughput, cuzarr_nvcomp_comparison): device
// allocations, a batch of equal chunks in one allocation with the DeviceChunkBatch arrays,
// best-of-N timing with CUDA events and the byte check (the data: bench_data.hpp).
// A failing CUDA call prints what failed and exits with status 2.
#pragma once

#include <cuda_runtime_api.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "bench_data.hpp"
#include "codec/cuda/device_chunk_batch.hpp"

namespace cuzarr::bench {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(2);
  }
}
#define CHECK(call) ::cuzarr::bench::check((call), #call)

/// Device memory owned for the lifetime of one measurement.
struct Device {
  void* p = nullptr;
  explicit Device(size_t bytes) { CHECK(cudaMalloc(&p, std::max<size_t>(bytes, 1))); }
  ~Device() { cudaFree(p); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  std::byte* bytes() const { return static_cast<std::byte*>(p); }
};

template <class T>
T* upload(Device& d, const std::vector<T>& v) {
  CHECK(cudaMemcpy(d.p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return static_cast<T*>(d.p);
}

/// A batch of `count` chunks of `chunk` bytes in one allocation (chunk i at i * stride), with the
/// device arrays of a DeviceChunkBatch: pointers, sizes (all `chunk`), capacities (all `stride`),
/// produced sizes and statuses.
struct Batch {
  size_t count, chunk, stride;
  Device data;
  Device pointers, sizes, capacities, produced, statuses;

  Batch(size_t count_, size_t chunk_, size_t stride_)
      : count(count_),
        chunk(chunk_),
        stride(stride_),
        data(count_ * stride_),
        pointers(count_ * sizeof(void*)),
        sizes(count_ * 8),
        capacities(count_ * 8),
        produced(count_ * 8),
        statuses(count_ * sizeof(gpu::DeviceChunkStatus)) {
    std::vector<std::byte*> p(count);
    for (size_t i = 0; i < count; ++i) p[i] = data.bytes() + i * stride;
    upload(pointers, p);
    upload(capacities, std::vector<uint64_t>(count, stride));
    upload(sizes, std::vector<uint64_t>(count, chunk));
  }
  /// This batch's chunks as inputs (sizes from `sizes`) and `out`'s as outputs.
  gpu::DeviceChunkBatch to(const Batch& out) const {
    gpu::DeviceChunkBatch b;
    b.inputs = static_cast<const std::byte* const*>(pointers.p);
    b.input_sizes = static_cast<const uint64_t*>(sizes.p);
    b.outputs = static_cast<std::byte* const*>(out.pointers.p);
    b.output_capacities = static_cast<const uint64_t*>(out.capacities.p);
    b.output_sizes = static_cast<uint64_t*>(out.produced.p);
    b.statuses = static_cast<gpu::DeviceChunkStatus*>(out.statuses.p);
    b.count = count;
    return b;
  }
  /// Makes the sizes this batch holds the ones a previous step produced into it.
  void take_produced_sizes() {
    CHECK(cudaMemcpy(sizes.p, produced.p, count * 8, cudaMemcpyDeviceToDevice));
  }
  std::vector<uint64_t> produced_sizes() const {
    std::vector<uint64_t> v(count);
    CHECK(cudaMemcpy(v.data(), produced.p, count * 8, cudaMemcpyDeviceToHost));
    return v;
  }
  bool all_ok() const {
    std::vector<gpu::DeviceChunkStatus> s(count);
    CHECK(cudaMemcpy(s.data(), statuses.p, count * sizeof(gpu::DeviceChunkStatus),
                     cudaMemcpyDeviceToHost));
    return std::all_of(s.begin(), s.end(),
                       [](gpu::DeviceChunkStatus x) { return x == gpu::DeviceChunkStatus::ok; });
  }
};

/// Best time in seconds of `repetitions` runs of `work` (after one warm-up run), timed with CUDA
/// events on the default stream.
inline double best_seconds(int repetitions, const std::function<void()>& work) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  work();  // warm-up
  CHECK(cudaDeviceSynchronize());
  float best = 1e30f;
  for (int r = 0; r < repetitions; ++r) {
    CHECK(cudaEventRecord(start));
    work();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    best = std::min(best, ms);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return best / 1e3;
}

/// Whether the first `a.chunk` bytes of every chunk of `a` and `b` are equal.
inline bool same_bytes(const Batch& a, const Batch& b) {
  std::vector<unsigned char> x(a.count * a.stride), y(b.count * b.stride);
  CHECK(cudaMemcpy(x.data(), a.data.p, x.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(y.data(), b.data.p, y.size(), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < a.count; ++i) {
    if (std::memcmp(x.data() + i * a.stride, y.data() + i * b.stride, a.chunk) != 0) return false;
  }
  return true;
}

}  // namespace cuzarr::bench
