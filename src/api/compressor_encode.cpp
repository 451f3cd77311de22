// Compressor::compress: cut every input into chunks, compress all chunks of the batch in one
// backend call, then frame each buffer's chunks as the chosen bitstream.
#include <fmt/format.h>

#include <cstring>

#include "api/compression_backend.hpp"
#include "api/compressor_memory.hpp"
#include "cuzarr/api/compressor.hpp"
#include "cuzarr/api/native_bitstream.hpp"
#include "cuzarr/codec/crc32c.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"

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
  const CompressionBackend& backend = select_compression_backend(options_, on_device);
  if (backend.data_kind() != MemoryKind::host)
    throw UnsupportedError("compressor: device backends are not wired into the framing yet");
  std::vector<bool> staged;
  const std::vector<Buffer> host_inputs = host_accessible_inputs(inputs, call.stream, staged);

  const size_t chunk_size = options_.chunk_size;
  const size_t bound = backend.max_compressed_size(chunk_size);
  std::vector<BufferPlan> plans(inputs.size());
  std::vector<CompressTask> tasks;
  for (size_t b = 0; b < inputs.size(); ++b) {
    const Buffer& input = host_inputs[b];
    BufferPlan& plan = plans[b];
    plan.first = tasks.size();
    plan.count = static_cast<size_t>(compression_chunk_count(input.size(), chunk_size));
    plan.scratch = Buffer::allocate(plan.count * bound);
    for (size_t i = 0; i < plan.count; ++i) {
      const size_t offset = i * chunk_size;
      const size_t length = std::min(chunk_size, input.size() - offset);
      tasks.push_back(CompressTask{std::span<const std::byte>(input.data() + offset, length),
                                   plan.scratch.bytes().subspan(i * bound, bound), 0,
                                   chunk_label(inputs.size(), b, i)});
    }
  }
  backend.compress(tasks, options_);

  const bool native = options_.bitstream == BitstreamKind::native;
  const bool checksums = native && options_.checksum != ChecksumPolicy::none;
  std::vector<uint32_t> compressed_crc(checksums ? tasks.size() : 0);
  std::vector<uint32_t> uncompressed_crc(checksums ? tasks.size() : 0);
  if (checksums) {
    parallel_for(tasks.size(), [&](size_t t) {
      compressed_crc[t] = crc32c(tasks[t].output.first(tasks[t].compressed_size));
      uncompressed_crc[t] = crc32c(tasks[t].input);
    });
  }

  // Frame each buffer: its header (native) or size prefix (raw_with_size), then the streams.
  std::vector<CompressResult> results(inputs.size());
  std::vector<Buffer> assembled(inputs.size());
  std::vector<size_t> stream_offsets(tasks.size());
  for (size_t b = 0; b < inputs.size(); ++b) {
    const BufferPlan& plan = plans[b];
    CompressResult& result = results[b];
    NativeBitstreamHeader header;
    size_t offset = 0;
    if (native) {
      header.algorithm = options_.algorithm;
      header.level = options_.effective_level();
      header.chunk_size = static_cast<uint32_t>(chunk_size);
      header.uncompressed_size = host_inputs[b].size();
      header.has_checksums = checksums;
      for (size_t t = plan.first; t < plan.first + plan.count; ++t) {
        header.compressed_sizes.push_back(tasks[t].compressed_size);
        if (checksums) {
          header.compressed_crc32c.push_back(compressed_crc[t]);
          header.uncompressed_crc32c.push_back(uncompressed_crc[t]);
        }
      }
      offset = header.header_size();
    } else if (options_.bitstream == BitstreamKind::raw_with_size) {
      offset = kSizePrefix;
    }
    const size_t prefix = offset;
    for (size_t t = plan.first; t < plan.first + plan.count; ++t) {
      stream_offsets[t] = offset;
      offset += tasks[t].compressed_size;
      result.chunk_compressed_sizes.push_back(tasks[t].compressed_size);
    }
    const MemoryKind kind = output_kind_of(inputs[b], call.output_kind);
    assembled[b] = allocate_assembly_buffer(offset, kind);
    std::byte* out = assembled[b].data();
    if (native) {
      write_native_header(header, assembled[b].bytes());
    } else if (prefix == kSizePrefix) {
      const uint64_t size = host_inputs[b].size();
      for (size_t i = 0; i < kSizePrefix; ++i) out[i] = static_cast<std::byte>(size >> (8 * i));
    }
    result.stats.algorithm = options_.algorithm;
    result.stats.bitstream = options_.bitstream;
    result.stats.executed_on = backend.executed_on();
    result.stats.staged_through_host = staged[b] || kind == MemoryKind::device;
    result.stats.bytes_in = host_inputs[b].size();
    result.stats.bytes_out = offset;
    result.stats.chunks = plan.count;
  }
  // Move every stream to its place, in parallel.
  size_t buffer = 0;
  std::vector<size_t> buffer_of(tasks.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    while (t >= plans[buffer].first + plans[buffer].count) ++buffer;
    buffer_of[t] = buffer;
  }
  parallel_for(tasks.size(), [&](size_t t) {
    std::memcpy(assembled[buffer_of[t]].data() + stream_offsets[t], tasks[t].output.data(),
                tasks[t].compressed_size);
  });
  for (size_t b = 0; b < inputs.size(); ++b) {
    results[b].output =
        deliver_output(assembled[b], output_kind_of(inputs[b], call.output_kind), call.stream);
  }
  return results;
}

}  // namespace cuzarr
