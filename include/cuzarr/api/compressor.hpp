// Compressor: compression of plain byte buffers, no Zarr involved (in the spirit of nvCOMP's
// Codec / manager API). The input is cut into chunks of options().chunk_size bytes compressed
// independently and in parallel; the result is a native bitstream (self-describing, see
// docs/compression_format.md), a raw bitstream (the chunks' standard streams back to back,
// readable by the reference libraries) or raw with the uncompressed size in front.
//
// Memory: inputs may be host, pinned or device buffers; outputs are made in the input's kind
// unless the call asks for another. Where an algorithm has a GPU implementation (lz4), device
// data is compressed and decompressed on the GPU without leaving device memory (only native
// headers, and the whole input of a raw bitstream whose stream ends must be found, are read on
// the host). Other algorithms run on the host: device data is copied to pinned memory, processed
// there and copied back. The stats say which happened. Device memory needs a CUDA build and a
// GPU, else UnsupportedError.
//
// Thread safety: a Compressor is immutable; its calls may run concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cuzarr/api/compressor_options.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {

/// What one call did, per buffer.
struct CompressionStats {
  CompressionAlgorithm algorithm = CompressionAlgorithm::zstd;
  BitstreamKind bitstream = BitstreamKind::native;
  ExecutedOn executed_on = ExecutedOn::host;
  /// True when device data was copied to host memory to be processed (and back).
  bool staged_through_host = false;
  size_t bytes_in = 0;   ///< bytes read (uncompressed on compress, compressed on decompress)
  size_t bytes_out = 0;  ///< bytes produced
  size_t chunks = 0;
  /// True when the decoded chunks were checked against stored CRC-32C values.
  bool checksums_verified = false;
};

struct CompressResult {
  Buffer output;
  CompressionStats stats;
  /// The size of each chunk's stream, in order (the split points of a raw bitstream).
  std::vector<uint64_t> chunk_compressed_sizes;
};

struct DecompressResult {
  Buffer output;
  CompressionStats stats;
};

/// Per-call settings of compress().
struct CompressCall {
  /// Memory of the output; nullopt: the input's kind.
  std::optional<MemoryKind> output_kind;
  /// Stream of the copies between memory kinds (the call waits for them before returning).
  Stream stream;
};

/// Per-call settings of decompress().
struct DecompressCall {
  std::optional<MemoryKind> output_kind;
  /// The uncompressed size; required for BitstreamKind::raw (ignored otherwise).
  std::optional<uint64_t> uncompressed_size;
  /// Refuses (CorruptDataError) inputs whose header or size prefix claims more uncompressed
  /// bytes, before any output is allocated: a bound for untrusted input. Without it, a claim is
  /// only checked against what the compressed bytes could hold (at least one byte per chunk).
  std::optional<uint64_t> max_uncompressed_size;
  Stream stream;
};

class Compressor {
 public:
  /// Validates `options` (see CompressorOptions::validate: InvalidArgumentError naming the
  /// option, UnsupportedError for blosc without c-blosc).
  explicit Compressor(CompressorOptions options = {});

  const CompressorOptions& options() const noexcept { return options_; }

  /// Compresses one buffer. UnsupportedError for device memory without CUDA or a GPU, or for
  /// "device" execution while the algorithm has no GPU implementation.
  CompressResult compress(const Buffer& input, const CompressCall& call = {}) const;
  /// Compresses several buffers in one call, in parallel across buffers and chunks. Errors name
  /// the buffer and chunk.
  std::vector<CompressResult> compress(std::span<const Buffer> inputs,
                                       const CompressCall& call = {}) const;

  /// Decompresses one buffer written with this bitstream kind. Native: algorithm, chunk size and
  /// sizes come from the header (this Compressor's algorithm and chunk size are not used), and
  /// checksums present are checked under ChecksumPolicy::compute_and_verify. Raw kinds: this
  /// Compressor's algorithm and chunk size must be those used to encode; raw needs
  /// call.uncompressed_size (InvalidArgumentError without it). CorruptDataError naming the chunk
  /// and field for malformed, truncated or mismatching input.
  DecompressResult decompress(const Buffer& input, const DecompressCall& call = {}) const;
  /// Decompresses several buffers in one call. For raw, `uncompressed_sizes` holds one size per
  /// input (or is empty when call.uncompressed_size serves every input).
  std::vector<DecompressResult> decompress(std::span<const Buffer> inputs,
                                           const DecompressCall& call = {},
                                           std::span<const uint64_t> uncompressed_sizes = {}) const;

 private:
  CompressorOptions options_;
};

}  // namespace cuzarr
