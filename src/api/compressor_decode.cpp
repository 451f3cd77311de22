// Compressor::decompress: read each buffer's framing (native header, or the raw layout from the
// options), locate every chunk's stream, decompress all chunks of the batch, and check
// checksums where the policy asks for it.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "api/compression_backend.hpp"
#include "api/compression_data_plane.hpp"
#include "api/compressor_memory.hpp"
#include "cuzarr/api/compressor.hpp"
#include "cuzarr/api/native_bitstream.hpp"
#include "cuzarr/codec/crc32c.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"

namespace cuzarr {
namespace {

constexpr size_t kSizePrefix = 8;

// One buffer's decoding plan.
struct DecodePlan {
  const CompressionBackend* backend = nullptr;
  const CompressionDataPlane* plane = nullptr;
  uint64_t uncompressed_size = 0;
  size_t chunk_size = 0;
  size_t chunk_count = 0;
  // Host-accessible bytes of the input: all of it, or (device input, native bitstream) the header.
  Buffer host_view;
  Buffer source;              // the input in the plane's memory
  bool copied = false;        // source is a copy of the input
  size_t streams_offset = 0;  // where the chunks' streams start (after any header or prefix)
  size_t streams_size = 0;
  bool located = false;  // true when the chunk tasks below are known
  std::vector<DecompressTask> tasks;
  NativeBitstreamHeader header;  // native only
  bool verify = false;           // native with checksums under compute_and_verify
  Buffer assembled;
  MemoryKind kind = MemoryKind::host;

  std::span<const std::byte> host_streams() const {
    return host_view.bytes().subspan(streams_offset, streams_size);
  }
};

// The bytes of `input` that planning reads on the host: host-accessible inputs as they are; of a
// device input, the header of a native bitstream, or all of a raw one (its stream ends are found
// by walking the streams).
Buffer host_view_of(const Buffer& input, BitstreamKind bitstream, const Stream& stream) {
  if (is_host_accessible(input.kind())) return input;
  const auto copy_prefix = [&](size_t size) {
    Buffer prefix = Buffer::allocate(size, MemoryKind::pinned, stream);
    copy_bytes(prefix.data(), MemoryKind::pinned, input.data(), input.kind(), size, stream);
    stream.synchronize();
    return prefix;
  };
  if (bitstream != BitstreamKind::native) return copy_prefix(input.size());
  Buffer fixed = copy_prefix(std::min(input.size(), kNativeFixedHeaderSize));
  if (fixed.size() < kNativeFixedHeaderSize || !is_native_bitstream(fixed.bytes())) return fixed;
  return copy_prefix(native_header_size(fixed.bytes(), input.size()));
}

// Rethrows a cuzarr error with `prefix` in front of its message.
template <typename Body>
void prefixed(const std::string& prefix, Body&& body) {
  if (prefix.empty()) return body();
  try {
    body();
  } catch (const Error& e) {
    throw_error(e.code(), prefix + e.what());
  }
}

uint64_t read_size_prefix(std::span<const std::byte> bytes) {
  if (bytes.size() < kSizePrefix)
    throw CorruptDataError(fmt::format(
        "raw_with_size bitstream: {} bytes are too few for the 8-byte uncompressed size",
        bytes.size()));
  uint64_t size = 0;
  for (size_t i = 0; i < kSizePrefix; ++i) size |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  return size;
}

// A raw bitstream's chunk count, refused when the streams cannot hold that many chunks (every
// stream takes at least one byte): bounds what a corrupt size makes us allocate.
size_t raw_chunk_count(uint64_t uncompressed_size, size_t chunk_size, size_t stream_bytes) {
  const uint64_t count = compression_chunk_count(uncompressed_size, chunk_size);
  if (count > stream_bytes)
    throw CorruptDataError(fmt::format(
        "raw bitstream: {} uncompressed bytes in chunks of {} make {} chunks, more than {} "
        "compressed bytes can hold",
        uncompressed_size, chunk_size, count, stream_bytes));
  return static_cast<size_t>(count);
}

size_t chunk_length(uint64_t total, size_t chunk_size, size_t i) {
  const uint64_t start = static_cast<uint64_t>(i) * chunk_size;
  return static_cast<size_t>(std::min<uint64_t>(chunk_size, total - start));
}

}  // namespace

std::vector<DecompressResult> Compressor::decompress(
    std::span<const Buffer> inputs, const DecompressCall& call,
    std::span<const uint64_t> uncompressed_sizes) const {
  if (!uncompressed_sizes.empty() && uncompressed_sizes.size() != inputs.size())
    throw InvalidArgumentError(
        fmt::format("compressor: \"uncompressed_sizes\" has {} entries for {} inputs",
                    uncompressed_sizes.size(), inputs.size()));
  const bool on_device = involves_device_memory(inputs, call.output_kind);
  const bool verify = options_.checksum == ChecksumPolicy::compute_and_verify;
  const bool native = options_.bitstream == BitstreamKind::native;

  // Plan every buffer: its backend, sizes and (when cheap) its chunk streams.
  std::vector<DecodePlan> plans(inputs.size());
  for (size_t b = 0; b < inputs.size(); ++b) {
    DecodePlan& plan = plans[b];
    const std::string prefix = buffer_prefix(inputs.size(), b);
    prefixed(prefix, [&] {
      plan.host_view = host_view_of(inputs[b], options_.bitstream, call.stream);
      const std::span<const std::byte> bytes = plan.host_view.bytes();
      const uint64_t total = inputs[b].size();
      CompressorOptions chosen = options_;
      if (native) {
        plan.header = read_native_header(bytes, total);
        chosen.algorithm = plan.header.algorithm;
        plan.verify = verify && plan.header.has_checksums;
        if (plan.verify) verify_native_header_checksum(plan.header, bytes);
        plan.uncompressed_size = plan.header.uncompressed_size;
        plan.chunk_size = plan.header.chunk_size;
        plan.chunk_count = plan.header.chunk_count();
        plan.streams_offset = plan.header.header_size();
      } else {
        plan.chunk_size = options_.chunk_size;
        if (options_.bitstream == BitstreamKind::raw_with_size) {
          plan.uncompressed_size = read_size_prefix(bytes);
          plan.streams_offset = kSizePrefix;
        } else if (!uncompressed_sizes.empty()) {
          plan.uncompressed_size = uncompressed_sizes[b];
        } else if (call.uncompressed_size) {
          plan.uncompressed_size = *call.uncompressed_size;
        } else {
          throw InvalidArgumentError(
              "compressor: decoding a raw bitstream needs \"uncompressed_size\"");
        }
        plan.chunk_count = raw_chunk_count(plan.uncompressed_size, plan.chunk_size,
                                           static_cast<size_t>(total) - plan.streams_offset);
      }
      plan.streams_size = static_cast<size_t>(total) - plan.streams_offset;
      if (call.max_uncompressed_size && plan.uncompressed_size > *call.max_uncompressed_size)
        throw CorruptDataError(
            fmt::format("{} bitstream: \"uncompressed_size\" {} exceeds the limit of {} bytes",
                        bitstream_kind_name(options_.bitstream), plan.uncompressed_size,
                        *call.max_uncompressed_size));
      plan.backend =
          &select_compression_backend(chosen, on_device, CompressionDirection::decompress);
      // Raw bitstreams of a backend that can only decode located streams (GPU deflate): the
      // host finds the stream ends by decoding (device execution cannot, and says so).
      if (!native && !plan.backend->decodes_raw_bitstreams()) {
        if (chosen.execution == ExecutionTarget::device)
          throw UnsupportedError(fmt::format(
              "compressor: \"execution\" device: the GPU {} backend decodes only the native "
              "bitstream (raw streams' ends are found by decoding them on the host)",
              compression_algorithm_name(chosen.algorithm)));
        plan.backend = &host_compression_backend(chosen.algorithm);
      }
      plan.plane = &data_plane_of(*plan.backend);
      const bool host_view_complete = plan.host_view.size() == total;
      plan.source = plan.plane->resident(inputs[b], host_view_complete ? plan.host_view : Buffer(),
                                         call.stream, plan.copied);
      plan.kind = output_kind_of(inputs[b], call.output_kind);
      plan.assembled =
          plan.plane->allocate(static_cast<size_t>(plan.uncompressed_size), plan.kind, call.stream);
    });

    // Locate the chunk streams: from the native table, or by walking a raw bitstream when the
    // backend finds stream ends without decoding.
    const std::span<const std::byte> streams =
        plane_bytes(plan.source).subspan(plan.streams_offset, plan.streams_size);
    const std::span<std::byte> out = plane_bytes(plan.assembled);
    prefixed(prefix, [&] {
      size_t offset = 0;
      for (size_t i = 0; i < plan.chunk_count; ++i) {
        const size_t length = chunk_length(plan.uncompressed_size, plan.chunk_size, i);
        size_t size = 0;
        if (native) {
          size = static_cast<size_t>(plan.header.compressed_sizes[i]);
          const size_t bound = plan.backend->max_compressed_size(length);
          if (size > bound)
            throw CorruptDataError(fmt::format(
                "native bitstream: chunk {}: \"compressed_size\" {} exceeds the {} bytes a chunk "
                "of {} bytes can take",
                i, size, bound, length));
        } else {
          std::optional<size_t> found;
          try {
            found = plan.backend->find_stream_size(plan.host_streams().subspan(offset), length);
          } catch (const Error& e) {
            throw_error(e.code(), fmt::format("chunk {}: {}", i, e.what()));
          }
          if (!found) {
            // Only decoding finds the ends: done chunk by chunk on the host below.
            if (plan.plane->on_device())
              throw UnsupportedError(
                  fmt::format("compressor: the GPU {} backend cannot find raw stream ends",
                              compression_algorithm_name(plan.backend->algorithm())));
            return;
          }
          size = *found;
        }
        plan.tasks.push_back(DecompressTask{streams.subspan(offset, size),
                                            out.subspan(i * plan.chunk_size, length),
                                            chunk_label(inputs.size(), b, i)});
        offset += size;
      }
      if (offset != plan.streams_size)
        throw CorruptDataError(
            fmt::format("raw bitstream: {} bytes follow the last chunk (are the uncompressed size "
                        "and chunk size "
                        "those used to encode?)",
                        plan.streams_size - offset));
      plan.located = true;
    });
  }

  // The chunks whose checksums are checked, and a check of one side (compressed or decoded) of
  // all of them, run on the plane where each buffer's data lives.
  std::vector<std::pair<size_t, size_t>> checked;  // (buffer, chunk) with stored checksums
  for (size_t b = 0; b < plans.size(); ++b)
    if (plans[b].verify)
      for (size_t i = 0; i < plans[b].tasks.size(); ++i) checked.emplace_back(b, i);
  const auto check_crcs = [&](bool decoded) {
    std::map<const CompressionDataPlane*, std::vector<size_t>> by_plane;  // indices into checked
    for (size_t k = 0; k < checked.size(); ++k)
      by_plane[plans[checked[k].first].plane].push_back(k);
    for (const auto& [plane, ks] : by_plane) {
      std::vector<std::span<const std::byte>> spans;
      for (size_t k : ks) {
        const DecompressTask& task = plans[checked[k].first].tasks[checked[k].second];
        spans.push_back(decoded ? std::span<const std::byte>(task.output) : task.input);
      }
      const std::vector<uint32_t> actual = plane->crc32c(spans, call.stream);
      for (size_t j = 0; j < ks.size(); ++j) {
        const auto [b, i] = checked[ks[j]];
        const uint32_t stored =
            decoded ? plans[b].header.uncompressed_crc32c[i] : plans[b].header.compressed_crc32c[i];
        if (actual[j] != stored)
          throw CorruptDataError(fmt::format(
              "{}: crc32c of the {} bytes is 0x{:08x}, the header records 0x{:08x}",
              plans[b].tasks[i].label, decoded ? "decoded" : "compressed", actual[j], stored));
      }
    }
  };
  // Checksums of the compressed bytes first: a corrupt stream is reported as such, not decoded.
  check_crcs(false);

  // Decode: located chunks of every buffer in one call per backend; the others buffer by buffer
  // (in parallel across buffers), each stream's end found by decoding it.
  std::map<const CompressionBackend*, std::vector<DecompressTask>> batches;
  std::vector<size_t> sequential;
  for (size_t b = 0; b < plans.size(); ++b) {
    if (plans[b].located) {
      auto& batch = batches[plans[b].backend];
      batch.insert(batch.end(), plans[b].tasks.begin(), plans[b].tasks.end());
    } else {
      sequential.push_back(b);
    }
  }
  for (const auto& [backend, tasks] : batches) backend->decompress(tasks, call.stream);
  parallel_for(sequential.size(), [&](size_t k) {
    const size_t b = sequential[k];
    DecodePlan& plan = plans[b];
    const std::span<const std::byte> streams = plan.host_streams();
    size_t offset = 0;
    for (size_t i = 0; i < plan.chunk_count; ++i) {
      const size_t length = chunk_length(plan.uncompressed_size, plan.chunk_size, i);
      offset += plan.backend->decompress_prefix(
          streams.subspan(offset),
          std::span<std::byte>(plan.assembled.data() + i * plan.chunk_size, length),
          chunk_label(inputs.size(), b, i));
    }
    if (offset != streams.size())
      throw CorruptDataError(fmt::format(
          "{}raw bitstream: {} bytes follow the last chunk (are the uncompressed size and chunk "
          "size those used to encode?)",
          buffer_prefix(inputs.size(), b), streams.size() - offset));
  });

  // Checksums of the decoded chunks.
  check_crcs(true);

  std::vector<DecompressResult> results(inputs.size());
  for (size_t b = 0; b < inputs.size(); ++b) {
    const DecodePlan& plan = plans[b];
    DecompressResult& result = results[b];
    result.output = plan.plane->deliver(plan.assembled, plan.kind, call.stream);
    result.stats.algorithm = plan.backend->algorithm();
    result.stats.bitstream = options_.bitstream;
    result.stats.executed_on = plan.backend->executed_on();
    result.stats.staged_through_host =
        !plan.plane->on_device() && (plan.copied || plan.kind == MemoryKind::device);
    result.stats.bytes_in = inputs[b].size();
    result.stats.bytes_out = static_cast<size_t>(plan.uncompressed_size);
    result.stats.chunks = plan.chunk_count;
    result.stats.checksums_verified = plan.verify;
  }
  return results;
}

}  // namespace cuzarr
