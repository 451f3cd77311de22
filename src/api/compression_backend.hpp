// The seam between the Compressor and the implementations of its algorithms. A backend compresses
// and decompresses batches of chunks of one algorithm; the Compressor cuts buffers into chunks,
// frames the bitstream, computes checksums and moves data between memory kinds.
//
// select_compression_backend() (compression_backend_selection.cpp) is the one place that picks a
// backend per algorithm and execution target. Host backends exist for every algorithm; GPU
// implementations (batched kernels over device chunk pointers, in the style of nvCOMP's batched
// API) plug in through device_compression_backend() (device_compression_backends.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "cuzarr/api/compressor_options.hpp"
#include "cuzarr/memory/memory_kind.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {

/// One chunk to compress: `output` has max_compressed_size(input.size()) bytes; the backend sets
/// `compressed_size`. `label` names the chunk in errors ("chunk 3", "buffer 1, chunk 3").
struct CompressTask {
  std::span<const std::byte> input;
  std::span<std::byte> output;
  size_t compressed_size = 0;
  std::string label;
};

/// One chunk to decompress: `input` is exactly one stream that must decode to exactly
/// output.size() bytes.
struct DecompressTask {
  std::span<const std::byte> input;
  std::span<std::byte> output;
  std::string label;
};

class CompressionBackend {
 public:
  virtual ~CompressionBackend() = default;

  virtual CompressionAlgorithm algorithm() const noexcept = 0;
  virtual ExecutedOn executed_on() const noexcept = 0;
  /// The memory the task spans must point into (host for CPU backends; pinned or host input is
  /// fine for them, device data is staged by the Compressor; device for GPU backends).
  virtual MemoryKind data_kind() const noexcept = 0;
  /// False when compressing with `options` needs what this backend does not implement (a GPU
  /// encoder without the requested level, say): the selection then uses the host backend.
  virtual bool compresses_with(const CompressorOptions& options) const {
    (void)options;
    return true;
  }

  /// True for decode-only backends (GPU decoders without an encoder): compresses_with() is
  /// false for every option.
  virtual bool decodes_only() const noexcept { return false; }
  /// False when the backend cannot decode raw bitstreams (no table of stream sizes): it neither
  /// finds stream ends without decoding nor decodes prefixes (GPU deflate). The selection then
  /// uses the host backend for them.
  virtual bool decodes_raw_bitstreams() const noexcept { return true; }

  /// The largest stream a chunk of `chunk_size` bytes can compress to.
  virtual size_t max_compressed_size(size_t chunk_size) const = 0;
  /// Compresses every task (in parallel); throws the first failure, its message prefixed with the
  /// task's label.
  /// GPU backends queue their work on `stream` and wait for it.
  virtual void compress(std::span<CompressTask> tasks, const CompressorOptions& options,
                        const Stream& stream) const = 0;
  /// Decompresses every task (in parallel); CorruptDataError naming the task's label for a stream
  /// that is malformed, does not end exactly at the end of its input or decodes to another size.
  virtual void decompress(std::span<const DecompressTask> tasks, const Stream& stream) const = 0;

  /// For raw bitstreams (chunks back to back, no table): the size of the stream at the start of
  /// `input`, which decodes to `decoded_size` bytes, when the backend can find it without
  /// decoding (zstd frame headers, lz4 sequences, blosc headers); nullopt when it cannot.
  /// CorruptDataError when the stream is malformed or runs past `input`.
  virtual std::optional<size_t> find_stream_size(std::span<const std::byte> input,
                                                 size_t decoded_size) const = 0;
  /// For raw bitstreams whose stream ends are only found by decoding: decodes the stream at the
  /// start of `input` into exactly `output.size()` bytes and returns the bytes of `input` it used.
  virtual size_t decompress_prefix(std::span<const std::byte> input, std::span<std::byte> output,
                                   const std::string& label) const = 0;
};

/// The host (CPU) backend of `algorithm`, from the reference libraries. UnsupportedError for blosc
/// without c-blosc.
const CompressionBackend& host_compression_backend(CompressionAlgorithm algorithm);

/// The GPU backend of `algorithm`, or null while there is none. GPU implementations register here.
const CompressionBackend* device_compression_backend(CompressionAlgorithm algorithm);

/// What a backend is selected for.
enum class CompressionDirection { compress, decompress };

/// The backend the Compressor uses for `options.algorithm` and `options.execution`, given where
/// the caller's data lives (`data_on_device`: any input or requested output in device memory).
/// automatic: the device backend when one exists, a GPU is usable, the data is on the device and
/// (compressing) the backend honours the options, else the host backend. device:
/// UnsupportedError when the build has no CUDA, no GPU is usable, the algorithm has no GPU
/// implementation yet or (compressing) it does not honour the options. host: the host backend.
const CompressionBackend& select_compression_backend(const CompressorOptions& options,
                                                     bool data_on_device,
                                                     CompressionDirection direction);

}  // namespace cuzarr
