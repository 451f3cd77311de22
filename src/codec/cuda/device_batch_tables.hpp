// A DeviceChunkBatch made from host-side lists of device pointers, for callers that run a batched
// GPU codec on chunks already in device memory (the Compressor's GPU backends). The pointer,
// size, capacity, produced-size and status tables are packed into one pinned buffer and reach the
// device in one copy; the produced sizes and statuses come back in one copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr::gpu {

/// One chunk of a batch: input and output are device memory.
struct DeviceChunkRef {
  const std::byte* input = nullptr;
  uint64_t input_size = 0;
  std::byte* output = nullptr;
  uint64_t output_capacity = 0;
};

class DeviceBatchTables {
 public:
  /// Queues the upload of the tables of `chunks` on `stream`. Throws UnsupportedError without
  /// CUDA, CudaError when a copy fails.
  DeviceBatchTables(std::span<const DeviceChunkRef> chunks, Stream stream);

  /// The batch to hand to a launcher queued on the same stream.
  const DeviceChunkBatch& batch() const noexcept { return batch_; }
  size_t count() const noexcept { return batch_.count; }

  /// Copies the produced sizes and the statuses back and waits for the stream: call after the
  /// launcher has been queued.
  void fetch_results();
  /// After fetch_results(): chunk i's status and produced size.
  DeviceChunkStatus status(size_t i) const;
  uint64_t output_size(size_t i) const;

 private:
  Stream stream_;
  Buffer pinned_;  // the tables: inputs, input sizes, outputs, capacities, output sizes, statuses
  Buffer device_;
  DeviceChunkBatch batch_;
};

/// Scratch device memory of `bytes` bytes on `stream` (an empty buffer for 0 bytes).
Buffer device_scratch(size_t bytes, Stream stream);

}  // namespace cuzarr::gpu
