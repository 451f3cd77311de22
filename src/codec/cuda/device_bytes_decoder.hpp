// The GPU side of bytes -> bytes codecs: for each codec that has batched kernels, a decoder that
// runs them over a DeviceChunkBatch. The chunk pipeline asks make_device_decoder for each codec
// of a chain; codecs without one (bz2, lzma, ...) decode on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "codec/cuda/device_chunk_batch.hpp"
#include "cuzarr/codec/codec.hpp"
#include "cuzarr/codec/codec_placement.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {
class BloscCodec;
}

namespace cuzarr::gpu {

class DeviceBytesDecoder {
 public:
  virtual ~DeviceBytesDecoder() = default;
  /// The decoded size of a chunk whose encoded size is `encoded_size` when it follows from that
  /// alone (crc32c: 4 less; shuffle: the same); nullopt for compressors.
  virtual std::optional<uint64_t> decoded_size_from(uint64_t encoded_size) const = 0;
  /// Scratch bytes decode() needs for `count` chunks of at most `max_output` decoded bytes.
  virtual size_t temp_bytes(size_t count, uint64_t max_output) const {
    (void)count, (void)max_output;
    return 0;
  }
  /// The largest decoded chunk for which automatic placement decodes on the GPU, for a decoder
  /// that is slower than the CPU's cores on large chunks. None is now: zstd and deflate decode
  /// chunks of a few MiB and more block-parallel, several times faster than zlib and libzstd on
  /// 16 cores (bench/RESULTS.md).
  virtual uint64_t automatic_chunk_limit() const { return UINT64_MAX; }
  /// Queues the decode of `batch` on `stream` (statuses and output sizes land in the batch).
  virtual void decode(const DeviceChunkBatch& batch, void* temp, uint64_t max_output,
                      Stream stream) const = 0;
};

/// Whether the GPU decoder of a blosc codec takes chunks with zstd / zlib blocks (when the
/// codec's cname is zstd or zlib; it waits for the stream once per batch to read the headers).
/// With other cnames it takes lz4 / lz4hc / blosclz blocks only and never waits.
bool blosc_inner_streams_on_gpu(const BloscCodec& codec);

/// The GPU decoder of `codec`, or null when it has none (or this build has no CUDA).
std::unique_ptr<DeviceBytesDecoder> make_device_decoder(const BytesToBytesCodec& codec);

/// Whether a chunk of `decoded_bytes` (nullopt: unknown) decodes on the GPU with `decoder` when
/// its codec's placement is `placement` (see CodecPlacement): cpu never, gpu always, automatic
/// when the chunk is within decoder.automatic_chunk_limit() (or its size is unknown).
bool decodes_on_gpu(const DeviceBytesDecoder& decoder, Placement placement,
                    std::optional<uint64_t> decoded_bytes);

}  // namespace cuzarr::gpu
