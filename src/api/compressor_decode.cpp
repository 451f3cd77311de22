// Compressor::decompress: read each buffer's framing (native header, or the raw layout from the
// options), locate every chunk's stream, decompress all chunks of the batch, and check
// checksums where the policy asks for it.
#include <fmt/format.h>

#include <map>

#include "api/compression_backend.hpp"
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
  uint64_t uncompressed_size = 0;
  size_t chunk_size = 0;
  size_t chunk_count = 0;
  std::span<const std::byte> streams;  // the chunks' streams (after any header or prefix)
  bool located = false;                // true when the chunk tasks below are known
  std::vector<DecompressTask> tasks;
  NativeBitstreamHeader header;  // native only
  bool verify = false;           // native with checksums under compute_and_verify
  Buffer assembled;
  MemoryKind kind = MemoryKind::host;
};

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
  std::vector<bool> staged;
  const std::vector<Buffer> host_inputs = host_accessible_inputs(inputs, call.stream, staged);
  const bool verify = options_.checksum == ChecksumPolicy::compute_and_verify;

  // Plan every buffer: its backend, sizes and (when cheap) its chunk streams.
  std::vector<DecodePlan> plans(inputs.size());
  for (size_t b = 0; b < inputs.size(); ++b) {
    DecodePlan& plan = plans[b];
    const std::span<const std::byte> bytes = host_inputs[b].bytes();
    const std::string prefix = buffer_prefix(inputs.size(), b);
    prefixed(prefix, [&] {
      CompressorOptions chosen = options_;
      if (options_.bitstream == BitstreamKind::native) {
        plan.header = read_native_header(bytes);
        chosen.algorithm = plan.header.algorithm;
        plan.backend = &select_compression_backend(chosen, on_device);
        plan.verify = verify && plan.header.has_checksums;
        if (plan.verify) verify_native_header_checksum(plan.header, bytes);
        plan.uncompressed_size = plan.header.uncompressed_size;
        plan.chunk_size = plan.header.chunk_size;
        plan.chunk_count = plan.header.chunk_count();
        plan.streams = bytes.subspan(plan.header.header_size());
      } else {
        plan.backend = &select_compression_backend(chosen, on_device);
        plan.chunk_size = options_.chunk_size;
        if (options_.bitstream == BitstreamKind::raw_with_size) {
          plan.uncompressed_size = read_size_prefix(bytes);
          plan.streams = bytes.subspan(kSizePrefix);
        } else {
          if (!uncompressed_sizes.empty()) {
            plan.uncompressed_size = uncompressed_sizes[b];
          } else if (call.uncompressed_size) {
            plan.uncompressed_size = *call.uncompressed_size;
          } else {
            throw InvalidArgumentError(
                "compressor: decoding a raw bitstream needs \"uncompressed_size\"");
          }
          plan.streams = bytes;
        }
        plan.chunk_count =
            raw_chunk_count(plan.uncompressed_size, plan.chunk_size, plan.streams.size());
      }
      if (call.max_uncompressed_size && plan.uncompressed_size > *call.max_uncompressed_size)
        throw CorruptDataError(
            fmt::format("{} bitstream: \"uncompressed_size\" {} exceeds the limit of {} bytes",
                        bitstream_kind_name(options_.bitstream), plan.uncompressed_size,
                        *call.max_uncompressed_size));
      if (plan.backend->data_kind() != MemoryKind::host)
        throw UnsupportedError("compressor: device backends are not wired into the framing yet");
      plan.kind = output_kind_of(inputs[b], call.output_kind);
      plan.assembled =
          allocate_assembly_buffer(static_cast<size_t>(plan.uncompressed_size), plan.kind);
    });

    // Locate the chunk streams: from the native table, or by walking a raw bitstream when the
    // backend finds stream ends without decoding.
    std::byte* out = plan.assembled.data();
    prefixed(prefix, [&] {
      size_t offset = 0;
      for (size_t i = 0; i < plan.chunk_count; ++i) {
        const size_t length = chunk_length(plan.uncompressed_size, plan.chunk_size, i);
        const std::span<const std::byte> rest = plan.streams.subspan(offset);
        size_t size = 0;
        if (options_.bitstream == BitstreamKind::native) {
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
            found = plan.backend->find_stream_size(rest, length);
          } catch (const Error& e) {
            throw_error(e.code(), fmt::format("chunk {}: {}", i, e.what()));
          }
          if (!found) return;  // only decoding finds the ends: done chunk by chunk below
          size = *found;
        }
        plan.tasks.push_back(DecompressTask{rest.first(size),
                                            std::span<std::byte>(out + i * plan.chunk_size, length),
                                            chunk_label(inputs.size(), b, i)});
        offset += size;
      }
      if (offset != plan.streams.size())
        throw CorruptDataError(
            fmt::format("raw bitstream: {} bytes follow the last chunk (are the uncompressed size "
                        "and chunk size "
                        "those used to encode?)",
                        plan.streams.size() - offset));
      plan.located = true;
    });
  }

  // Checksums of the compressed bytes first: a corrupt stream is reported as such, not decoded.
  std::vector<std::pair<size_t, size_t>> checked;  // (buffer, chunk) with stored checksums
  for (size_t b = 0; b < plans.size(); ++b)
    if (plans[b].verify)
      for (size_t i = 0; i < plans[b].tasks.size(); ++i) checked.emplace_back(b, i);
  parallel_for(checked.size(), [&](size_t k) {
    const auto [b, i] = checked[k];
    const uint32_t actual = crc32c(plans[b].tasks[i].input);
    const uint32_t stored = plans[b].header.compressed_crc32c[i];
    if (actual != stored)
      throw CorruptDataError(
          fmt::format("{}: crc32c of the compressed bytes is 0x{:08x}, the header records 0x{:08x}",
                      plans[b].tasks[i].label, actual, stored));
  });

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
  for (const auto& [backend, tasks] : batches) backend->decompress(tasks);
  parallel_for(sequential.size(), [&](size_t k) {
    const size_t b = sequential[k];
    DecodePlan& plan = plans[b];
    size_t offset = 0;
    for (size_t i = 0; i < plan.chunk_count; ++i) {
      const size_t length = chunk_length(plan.uncompressed_size, plan.chunk_size, i);
      offset += plan.backend->decompress_prefix(
          plan.streams.subspan(offset),
          std::span<std::byte>(plan.assembled.data() + i * plan.chunk_size, length),
          chunk_label(inputs.size(), b, i));
    }
    if (offset != plan.streams.size())
      throw CorruptDataError(fmt::format(
          "{}raw bitstream: {} bytes follow the last chunk (are the uncompressed size and chunk "
          "size those used to encode?)",
          buffer_prefix(inputs.size(), b), plan.streams.size() - offset));
  });

  // Checksums of the decoded chunks.
  parallel_for(checked.size(), [&](size_t k) {
    const auto [b, i] = checked[k];
    const uint32_t actual = crc32c(plans[b].tasks[i].output);
    const uint32_t stored = plans[b].header.uncompressed_crc32c[i];
    if (actual != stored)
      throw CorruptDataError(
          fmt::format("{}: crc32c of the decoded bytes is 0x{:08x}, the header records 0x{:08x}",
                      plans[b].tasks[i].label, actual, stored));
  });

  std::vector<DecompressResult> results(inputs.size());
  for (size_t b = 0; b < inputs.size(); ++b) {
    const DecodePlan& plan = plans[b];
    DecompressResult& result = results[b];
    result.output = deliver_output(plan.assembled, plan.kind, call.stream);
    result.stats.algorithm = plan.backend->algorithm();
    result.stats.bitstream = options_.bitstream;
    result.stats.executed_on = plan.backend->executed_on();
    result.stats.staged_through_host = staged[b] || plan.kind == MemoryKind::device;
    result.stats.bytes_in = host_inputs[b].size();
    result.stats.bytes_out = static_cast<size_t>(plan.uncompressed_size);
    result.stats.chunks = plan.chunk_count;
    result.stats.checksums_verified = plan.verify;
  }
  return results;
}

}  // namespace cuzarr
