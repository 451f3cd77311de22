#include "api/device_backend_batches.hpp"

#if defined(CUZARR_HAVE_CUDA)
#include <fmt/format.h>

#include "cuzarr/core/error.hpp"

namespace cuzarr {

std::vector<gpu::DeviceChunkRef> device_chunks_of(std::span<const CompressTask> tasks) {
  std::vector<gpu::DeviceChunkRef> chunks(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i)
    chunks[i] = {tasks[i].input.data(), tasks[i].input.size(), tasks[i].output.data(),
                 tasks[i].output.size()};
  return chunks;
}

std::vector<gpu::DeviceChunkRef> device_chunks_of(std::span<const DecompressTask> tasks) {
  std::vector<gpu::DeviceChunkRef> chunks(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i)
    chunks[i] = {tasks[i].input.data(), tasks[i].input.size(), tasks[i].output.data(),
                 tasks[i].output.size()};
  return chunks;
}

void take_compressed_sizes(const gpu::DeviceBatchTables& tables, std::span<CompressTask> tasks,
                           std::string_view codec) {
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (tables.status(i) != gpu::DeviceChunkStatus::ok)
      throw InvalidArgumentError(fmt::format("{}: {} (GPU): compression of {} bytes failed: {}",
                                             tasks[i].label, codec, tasks[i].input.size(),
                                             gpu::device_chunk_status_message(tables.status(i))));
    tasks[i].compressed_size = static_cast<size_t>(tables.output_size(i));
  }
}

std::vector<size_t> check_decoded(const gpu::DeviceBatchTables& tables,
                                  std::span<const DecompressTask> tasks, std::string_view codec,
                                  bool unsupported_ok) {
  std::vector<size_t> unsupported;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const gpu::DeviceChunkStatus status = tables.status(i);
    if (status == gpu::DeviceChunkStatus::unsupported && unsupported_ok) {
      unsupported.push_back(i);
      continue;
    }
    if (status != gpu::DeviceChunkStatus::ok)
      throw CorruptDataError(fmt::format("{}: {} (GPU): stream of {} bytes: {}", tasks[i].label,
                                         codec, tasks[i].input.size(),
                                         gpu::device_chunk_status_message(status)));
    if (tables.output_size(i) != tasks[i].output.size())
      throw CorruptDataError(fmt::format("{}: {} (GPU): stream decodes to {} bytes, expected {}",
                                         tasks[i].label, codec, tables.output_size(i),
                                         tasks[i].output.size()));
  }
  return unsupported;
}

}  // namespace cuzarr
#endif
