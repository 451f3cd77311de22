// Compressor::compress: cut every input into chunks, compress all chunks of the batch in one
// backend call, then frame each buffer's chunks as the chosen bitstream.
#include <fmt/format.h>

#include <cstring>

#include "api/compression_backend.hpp"
#include "api/compression_data_plane.hpp"
#include "api/compressor_memory.hpp"
#include "cuzarr/api/compressor.hpp"
#include "cuzarr/api/native_bitstream.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

// Bytes of the uncompressed-size prefix of BitstreamKind::raw_with_size.
constexpr size_t kSizePrefix = 8;

// The chunks of one input: their tasks are tasks[first, first + count).
struct BufferPlan {
  size_t first = 0;
  size_t count = 0;
  Buffer scratch;  // count * bound bytes, chunk i's stream at i * bound
};

}  // namespace

std::vector<CompressResult> Compressor::compress(std::span<const Buffer> inputs,
                                                 const CompressCall& call) const {
  const bool on_device = involves_device_memory(inputs, call.output_kind);
  const CompressionBackend& backend =
      select_compression_backend(options_, on_device, CompressionDirection::compress);
  const CompressionDataPlane& plane = data_plane_of(backend);
  std::vector<Buffer> resident(inputs.size());
  std::vector<bool> copied(inputs.size());
  for (size_t b = 0; b < inputs.size(); ++b) {
    bool was_copied = false;
    resident[b] = plane.resident(inputs[b], Buffer(), call.stream, was_copied);
    copied[b] = was_copied;
  }

  const size_t chunk_size = options_.chunk_size;
  const size_t bound = backend.max_compressed_size(chunk_size);
  std::vector<BufferPlan> plans(inputs.size());
  std::vector<CompressTask> tasks;
  for (size_t b = 0; b < inputs.size(); ++b) {
    const std::span<const std::byte> input = plane_bytes(resident[b]);
    BufferPlan& plan = plans[b];
    plan.first = tasks.size();
    plan.count = static_cast<size_t>(compression_chunk_count(input.size(), chunk_size));
    plan.scratch = plane.allocate(plan.count * bound, MemoryKind::host, call.stream);
    for (size_t i = 0; i < plan.count; ++i) {
      const size_t offset = i * chunk_size;
      const size_t length = std::min(chunk_size, input.size() - offset);
      tasks.push_back(CompressTask{input.subspan(offset, length),
                                   plane_bytes(plan.scratch).subspan(i * bound, bound), 0,
                                   chunk_label(inputs.size(), b, i)});
    }
  }
  backend.compress(tasks, options_, call.stream);

  const bool native = options_.bitstream == BitstreamKind::native;
  const bool checksums = native && options_.checksum != ChecksumPolicy::none;
  std::vector<uint32_t> compressed_crc, uncompressed_crc;
  if (checksums) {
    std::vector<std::span<const std::byte>> spans(tasks.size());
    for (size_t t = 0; t < tasks.size(); ++t)
      spans[t] = tasks[t].output.first(tasks[t].compressed_size);
    compressed_crc = plane.crc32c(spans, call.stream);
    for (size_t t = 0; t < tasks.size(); ++t) spans[t] = tasks[t].input;
    uncompressed_crc = plane.crc32c(spans, call.stream);
  }

  // Frame each buffer: its header (native) or size prefix (raw_with_size), then the streams.
  std::vector<CompressResult> results(inputs.size());
  std::vector<Buffer> assembled(inputs.size());
  std::vector<ByteCopy> copies(tasks.size());
  for (size_t b = 0; b < inputs.size(); ++b) {
    const BufferPlan& plan = plans[b];
    CompressResult& result = results[b];
    const size_t input_size = resident[b].size();
    NativeBitstreamHeader header;
    std::vector<std::byte> prefix;
    if (native) {
      header.algorithm = options_.algorithm;
      header.level = options_.effective_level();
      header.chunk_size = static_cast<uint32_t>(chunk_size);
      header.uncompressed_size = input_size;
      header.has_checksums = checksums;
      for (size_t t = plan.first; t < plan.first + plan.count; ++t) {
        header.compressed_sizes.push_back(tasks[t].compressed_size);
        if (checksums) {
          header.compressed_crc32c.push_back(compressed_crc[t]);
          header.uncompressed_crc32c.push_back(uncompressed_crc[t]);
        }
      }
      prefix.resize(header.header_size());
      write_native_header(header, prefix);
    } else if (options_.bitstream == BitstreamKind::raw_with_size) {
      prefix.resize(kSizePrefix);
      for (size_t i = 0; i < kSizePrefix; ++i)
        prefix[i] = static_cast<std::byte>(static_cast<uint64_t>(input_size) >> (8 * i));
    }
    size_t offset = prefix.size();
    const MemoryKind kind = output_kind_of(inputs[b], call.output_kind);
    for (size_t t = plan.first; t < plan.first + plan.count; ++t)
      offset += tasks[t].compressed_size;
    assembled[b] = plane.allocate(offset, kind, call.stream);
    plane.put(assembled[b].data(), prefix, call.stream);
    offset = prefix.size();
    for (size_t t = plan.first; t < plan.first + plan.count; ++t) {
      copies[t] = {tasks[t].output.data(), assembled[b].data() + offset, tasks[t].compressed_size};
      offset += tasks[t].compressed_size;
      result.chunk_compressed_sizes.push_back(tasks[t].compressed_size);
    }
    result.stats.algorithm = options_.algorithm;
    result.stats.bitstream = options_.bitstream;
    result.stats.executed_on = backend.executed_on();
    result.stats.staged_through_host =
        !plane.on_device() && (copied[b] || kind == MemoryKind::device);
    result.stats.bytes_in = input_size;
    result.stats.bytes_out = offset;
    result.stats.chunks = plan.count;
  }
  // Move every stream to its place, in one parallel step.
  plane.copy(copies, call.stream);
  for (size_t b = 0; b < inputs.size(); ++b) {
    results[b].output =
        plane.deliver(assembled[b], output_kind_of(inputs[b], call.output_kind), call.stream);
  }
  return results;
}

}  // namespace cuzarr
