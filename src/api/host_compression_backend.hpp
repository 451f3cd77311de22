// The CPU backends of the Compressor: one per algorithm, each over its reference library. They
// share the batch loop (chunks on cuzarr's thread pool) and the error labelling here; each
// algorithm supplies the per-chunk calls.
#pragma once

#include "api/compression_backend.hpp"

namespace cuzarr {

class HostCompressionBackend : public CompressionBackend {
 public:
  ExecutedOn executed_on() const noexcept final { return ExecutedOn::host; }
  MemoryKind data_kind() const noexcept final { return MemoryKind::host; }

  void compress(std::span<CompressTask> tasks, const CompressorOptions& options,
                const Stream& stream) const final;
  void decompress(std::span<const DecompressTask> tasks, const Stream& stream) const final;
  size_t decompress_prefix(std::span<const std::byte> input, std::span<std::byte> output,
                           const std::string& label) const final;
  std::optional<size_t> find_stream_size(std::span<const std::byte> input,
                                         size_t decoded_size) const override;

 protected:
  /// Compresses `input` into `output` (max_compressed_size bytes); returns the stream size.
  virtual size_t compress_chunk(std::span<const std::byte> input, std::span<std::byte> output,
                                const CompressorOptions& options) const = 0;
  /// Decodes the stream at the start of `input` into exactly output.size() bytes; returns the
  /// bytes of `input` it used. CorruptDataError otherwise. The default finds the stream's end
  /// with find_stream_size, then calls decompress_chunk: backends override either this, or
  /// find_stream_size and decompress_chunk.
  virtual size_t decompress_chunk_prefix(std::span<const std::byte> input,
                                         std::span<std::byte> output) const;
  /// Decodes `input`, exactly one stream, into exactly output.size() bytes. The default uses
  /// decompress_chunk_prefix and requires the stream to end at the end of `input`.
  virtual void decompress_chunk(std::span<const std::byte> input,
                                std::span<std::byte> output) const;
};

// The backend of each algorithm (one file each).
const CompressionBackend& host_lz4_backend();
const CompressionBackend& host_zstd_backend();
const CompressionBackend& host_deflate_backend();
const CompressionBackend& host_gzip_backend();
const CompressionBackend& host_zlib_backend();
const CompressionBackend& host_bz2_backend();
const CompressionBackend& host_lzma_backend();
const CompressionBackend& host_blosc_backend();

}  // namespace cuzarr
