// What the Compressor's GPU backends share: the device batch of a list of tasks, and the checks
// of the statuses and sizes the kernels report (errors name the task's label).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "api/compression_backend.hpp"
#include "codec/cuda/device_batch_tables.hpp"

namespace cuzarr {

/// The device chunks of compress tasks (input -> output space) and of decompress tasks.
std::vector<gpu::DeviceChunkRef> device_chunks_of(std::span<const CompressTask> tasks);
std::vector<gpu::DeviceChunkRef> device_chunks_of(std::span<const DecompressTask> tasks);

/// Sets each task's compressed_size from `tables`; InvalidArgumentError naming the task when a
/// chunk failed to compress.
void take_compressed_sizes(const gpu::DeviceBatchTables& tables, std::span<CompressTask> tasks,
                           std::string_view codec);

/// CorruptDataError naming the task when a chunk failed to decode or decoded to another size
/// than its output. Chunks whose status is `unsupported` are skipped when `unsupported_ok`
/// (the caller decodes them another way), and listed in the result.
std::vector<size_t> check_decoded(const gpu::DeviceBatchTables& tables,
                                  std::span<const DecompressTask> tasks, std::string_view codec,
                                  bool unsupported_ok = false);

}  // namespace cuzarr
