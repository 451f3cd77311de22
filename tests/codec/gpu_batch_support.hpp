// Device batches for the GPU codec tests: uploads host chunks into one DeviceChunkBatch (each
// input and output in its own cudaMalloc allocation, so that out-of-bounds accesses fault under
// compute-sanitizer), runs a launcher and brings the outputs, sizes and statuses back.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "codec/cuda/device_chunk_batch.hpp"
#include "gpu_test.hpp"

namespace cuzarr::test {

inline void cuda_ok(cudaError_t status) {
  ASSERT_EQ(status, cudaSuccess) << cudaGetErrorName(status) << ": " << cudaGetErrorString(status);
}

/// Skips the test when the machine has no CUDA device.
class GpuCodecTest : public ::cuzarr::test::GpuTest {};

/// Device memory freed on destruction.
class DeviceMemory {
 public:
  DeviceMemory() = default;
  explicit DeviceMemory(size_t bytes) {
    if (bytes > 0) cuda_ok(cudaMalloc(&ptr_, bytes));
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  DeviceMemory(DeviceMemory&& o) noexcept : ptr_(o.ptr_) { o.ptr_ = nullptr; }
  DeviceMemory& operator=(DeviceMemory&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    return *this;
  }
  ~DeviceMemory() {
    if (ptr_) cudaFree(ptr_);
  }
  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

template <class T>
DeviceMemory upload(const std::vector<T>& v) {
  DeviceMemory m(v.size() * sizeof(T));
  if (!v.empty())
    cuda_ok(cudaMemcpy(m.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return m;
}

/// A batch of host chunks on the device, with outputs of the given capacities.
class DeviceBatch {
 public:
  /// `misalign` > 0 places every input and output that many bytes past an allocation's start
  /// (so that kernels take their unaligned paths).
  DeviceBatch(const std::vector<std::vector<unsigned char>>& inputs,
              const std::vector<uint64_t>& capacities, size_t misalign = 0)
      : capacities_(capacities), misalign_(misalign) {
    std::vector<const std::byte*> in_ptrs;
    std::vector<std::byte*> out_ptrs;
    std::vector<uint64_t> sizes;
    for (size_t i = 0; i < inputs.size(); ++i) {
      // Exact sizes (a null pointer for an empty chunk), so that out-of-bounds accesses fault.
      std::vector<unsigned char> padded(misalign, 0xAB);
      padded.insert(padded.end(), inputs[i].begin(), inputs[i].end());
      in_.push_back(upload(padded));
      out_.emplace_back(capacities[i] + misalign);
      in_ptrs.push_back(in_.back().as<const std::byte>() + (padded.empty() ? 0 : misalign));
      out_ptrs.push_back(out_.back().as<std::byte>() +
                         (capacities[i] + misalign == 0 ? 0 : misalign));
      sizes.push_back(inputs[i].size());
    }
    in_ptrs_ = upload(in_ptrs);
    out_ptrs_ = upload(out_ptrs);
    sizes_ = upload(sizes);
    caps_ = upload(capacities);
    out_sizes_ = DeviceMemory(inputs.size() * sizeof(uint64_t));
    statuses_ = DeviceMemory(inputs.size() * sizeof(gpu::DeviceChunkStatus));
    batch_.inputs = in_ptrs_.as<const std::byte* const>();
    batch_.input_sizes = sizes_.as<const uint64_t>();
    batch_.outputs = out_ptrs_.as<std::byte* const>();
    batch_.output_capacities = caps_.as<const uint64_t>();
    batch_.output_sizes = out_sizes_.as<uint64_t>();
    batch_.statuses = statuses_.as<gpu::DeviceChunkStatus>();
    batch_.count = inputs.size();
  }

  const gpu::DeviceChunkBatch& batch() const { return batch_; }

  std::vector<gpu::DeviceChunkStatus> statuses() const {
    std::vector<gpu::DeviceChunkStatus> s(batch_.count);
    if (!s.empty())
      cuda_ok(
          cudaMemcpy(s.data(), statuses_.get(), s.size() * sizeof(s[0]), cudaMemcpyDeviceToHost));
    return s;
  }
  std::vector<uint64_t> output_sizes() const {
    std::vector<uint64_t> s(batch_.count);
    if (!s.empty())
      cuda_ok(cudaMemcpy(s.data(), out_sizes_.get(), s.size() * 8, cudaMemcpyDeviceToHost));
    return s;
  }
  /// The first `size` bytes of output i.
  std::vector<unsigned char> output(size_t i, uint64_t size) const {
    std::vector<unsigned char> v(size);
    if (size > 0) {
      cuda_ok(cudaMemcpy(v.data(), out_[i].as<unsigned char>() + misalign_, size,
                         cudaMemcpyDeviceToHost));
    }
    return v;
  }
  /// Output i, as long as output_sizes() says.
  std::vector<unsigned char> output(size_t i) const { return output(i, output_sizes()[i]); }

 private:
  std::vector<uint64_t> capacities_;
  size_t misalign_ = 0;
  std::vector<DeviceMemory> in_, out_;
  DeviceMemory in_ptrs_, out_ptrs_, sizes_, caps_, out_sizes_, statuses_;
  gpu::DeviceChunkBatch batch_;
};

inline std::vector<uint64_t> sizes_of(const std::vector<std::vector<unsigned char>>& v,
                                      int64_t extra = 0) {
  std::vector<uint64_t> s;
  for (const auto& x : v)
    s.push_back(static_cast<uint64_t>(static_cast<int64_t>(x.size()) + extra));
  return s;
}

/// The size of the largest of `v` (0 when empty).
inline uint64_t largest_size(const std::vector<std::vector<unsigned char>>& v) {
  uint64_t m = 0;
  for (const auto& x : v) m = std::max<uint64_t>(m, x.size());
  return m;
}

}  // namespace cuzarr::test
