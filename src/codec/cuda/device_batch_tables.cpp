#include "codec/cuda/device_batch_tables.hpp"

#include <cstring>

namespace cuzarr::gpu {
namespace {

// The six tables, each `count` entries of 8 bytes (statuses use 4 of them).
enum Table : size_t {
  kInputs,
  kInputSizes,
  kOutputs,
  kCapacities,
  kOutputSizes,
  kStatuses,
  kTables
};

}  // namespace

DeviceBatchTables::DeviceBatchTables(std::span<const DeviceChunkRef> chunks, Stream stream)
    : stream_(stream) {
  const size_t count = chunks.size();
  const size_t table_bytes = count * sizeof(uint64_t);
  const size_t total = kTables * table_bytes;
  batch_.count = count;
  if (count == 0) return;
  pinned_ = Buffer::allocate(total, MemoryKind::pinned, stream_);
  device_ = Buffer::allocate(total, MemoryKind::device, stream_);
  std::memset(pinned_.data(), 0, total);
  const auto host_table = [&](Table t) {
    return reinterpret_cast<uint64_t*>(pinned_.data() + t * table_bytes);
  };
  for (size_t i = 0; i < count; ++i) {
    host_table(kInputs)[i] = reinterpret_cast<uint64_t>(chunks[i].input);
    host_table(kInputSizes)[i] = chunks[i].input_size;
    host_table(kOutputs)[i] = reinterpret_cast<uint64_t>(chunks[i].output);
    host_table(kCapacities)[i] = chunks[i].output_capacity;
  }
  copy_bytes(device_.data(), MemoryKind::device, pinned_.data(), MemoryKind::pinned, total,
             stream_);
  const auto device_table = [&](Table t) { return device_.data() + t * table_bytes; };
  batch_.inputs = reinterpret_cast<const std::byte* const*>(device_table(kInputs));
  batch_.input_sizes = reinterpret_cast<const uint64_t*>(device_table(kInputSizes));
  batch_.outputs = reinterpret_cast<std::byte* const*>(device_table(kOutputs));
  batch_.output_capacities = reinterpret_cast<const uint64_t*>(device_table(kCapacities));
  batch_.output_sizes = reinterpret_cast<uint64_t*>(device_table(kOutputSizes));
  batch_.statuses = reinterpret_cast<DeviceChunkStatus*>(device_table(kStatuses));
}

void DeviceBatchTables::fetch_results() {
  if (batch_.count == 0) return;
  const size_t table_bytes = batch_.count * sizeof(uint64_t);
  // The two result tables are adjacent: one copy brings both back.
  copy_bytes(pinned_.data() + kOutputSizes * table_bytes, MemoryKind::pinned,
             device_.data() + kOutputSizes * table_bytes, MemoryKind::device, 2 * table_bytes,
             stream_);
  stream_.synchronize();
}

DeviceChunkStatus DeviceBatchTables::status(size_t i) const {
  const size_t table_bytes = batch_.count * sizeof(uint64_t);
  return reinterpret_cast<const DeviceChunkStatus*>(pinned_.data() + kStatuses * table_bytes)[i];
}

uint64_t DeviceBatchTables::output_size(size_t i) const {
  const size_t table_bytes = batch_.count * sizeof(uint64_t);
  return reinterpret_cast<const uint64_t*>(pinned_.data() + kOutputSizes * table_bytes)[i];
}

Buffer device_scratch(size_t bytes, Stream stream) {
  if (bytes == 0) return Buffer();
  return Buffer::allocate(bytes, MemoryKind::device, stream);
}

}  // namespace cuzarr::gpu
