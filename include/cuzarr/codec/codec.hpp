// The three kinds of Zarr v3 codecs (spec, "Codecs"), batch-first: every call encodes or decodes
// a batch of chunks and reports per-chunk status. A batch of one is the simple case.
//
// Lifecycle: a CodecSpec (JSON) is resolved against the ChunkRepresentation it sees by the
// CodecRegistry into a Codec; a Codec is immutable and may be used from many threads.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>

#include "cuzarr/codec/chunk_representation.hpp"
#include "cuzarr/codec/chunk_status.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr {

enum class CodecKind { array_to_array, array_to_bytes, bytes_to_bytes };

class Codec {
 public:
  virtual ~Codec() = default;
  virtual CodecKind kind() const noexcept = 0;
  /// The v3 name ("zstd", "sharding_indexed", ...).
  virtual std::string name() const = 0;
  /// {"name": ..., "configuration": {...}} with every default made explicit.
  virtual nlohmann::json to_json() const = 0;
};

/// Array -> array (transpose, ...). `decoded` is the representation this codec receives on encode.
class ArrayToArrayCodec : public Codec {
 public:
  CodecKind kind() const noexcept final { return CodecKind::array_to_array; }
  /// The representation this codec produces on encode.
  virtual ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const = 0;
  /// out[i] = encode(in[i]); out[i] may be a view of in[i] (no copy).
  virtual void encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                      const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const = 0;
  /// out[i] = decode(in[i]); out[i] may be a view of in[i] (no copy).
  virtual void decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                      const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const = 0;
};

/// Array -> bytes (bytes, sharding_indexed, and a whole CodecChain).
class ArrayToBytesCodec : public Codec {
 public:
  CodecKind kind() const noexcept override { return CodecKind::array_to_bytes; }
  /// Encodes arrays of representation `decoded` (any strides) into bytes.
  virtual void encode(std::span<const NDBuffer> in, std::span<Buffer> out,
                      const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const = 0;
  /// Decodes bytes into arrays of representation `decoded`. When out[i] already holds an NDBuffer
  /// of that shape and data type (any strides, host-accessible), the codec decodes into it;
  /// otherwise it allocates a new C-order host array.
  virtual void decode(std::span<const Buffer> in, std::span<NDBuffer> out,
                      const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const = 0;
  /// The encoded size when it is fixed for every chunk (bytes codec, fixed chains), else nullopt.
  virtual std::optional<int64_t> fixed_encoded_size(const ChunkRepresentation& decoded) const {
    (void)decoded;
    return std::nullopt;
  }
};

/// Bytes -> bytes (gzip, zstd, blosc, crc32c, ...).
class BytesToBytesCodec : public Codec {
 public:
  CodecKind kind() const noexcept final { return CodecKind::bytes_to_bytes; }
  virtual void encode(std::span<const Buffer> in, std::span<Buffer> out,
                      const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const = 0;
  virtual void decode(std::span<const Buffer> in, std::span<Buffer> out,
                      const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const = 0;
  /// Encoded size for a fixed input size when it is fixed (crc32c: +4), else nullopt.
  virtual std::optional<int64_t> fixed_encoded_size(int64_t decoded_size) const {
    (void)decoded_size;
    return std::nullopt;
  }
  /// Decodes one chunk straight into `out` (host memory) when this codec can and `in` decodes to
  /// exactly out.size() bytes: saves the intermediate buffer and its copy. Returns false, having
  /// written nothing, when it cannot (the default): the caller then uses decode(). `threads` is
  /// how many threads the call may use inside the chunk (1: only the calling thread). Throws
  /// CorruptDataError for malformed input it recognised as decodable into `out`.
  virtual bool decode_into(std::span<const std::byte> in, std::span<std::byte> out,
                           const ChunkRepresentation& decoded, size_t threads) const {
    (void)in, (void)out, (void)decoded, (void)threads;
    return false;
  }
  /// The most bytes encode_into() writes for `decoded_size` input bytes when this codec can
  /// encode one chunk into caller-provided memory; nullopt (the default) when it cannot.
  virtual std::optional<size_t> encode_into_bound(size_t decoded_size) const {
    (void)decoded_size;
    return std::nullopt;
  }
  /// Encodes one chunk `in` into `out` (at least encode_into_bound(in.size()) bytes, host
  /// memory) and returns the bytes written: exactly what encode() produces for `in`, with no
  /// intermediate buffer. Only for codecs whose encode_into_bound() has a value; the default
  /// returns nullopt. Throws what encode() reports as a failure (e.g. InvalidArgumentError).
  virtual std::optional<size_t> encode_into(std::span<const std::byte> in,
                                            std::span<std::byte> out) const {
    (void)in, (void)out;
    return std::nullopt;
  }
  /// Receives a chunk's decoded bytes in order, piece by piece.
  using DecodedBytesSink = std::function<void(std::span<const std::byte>)>;
  /// Decodes one chunk into `sink` in pieces of bounded size, with no chunk-sized buffer, when
  /// this codec can and `in` decodes to exactly `size` bytes (for destinations that are strided
  /// views). Returns false, having delivered nothing, when it cannot (the default). Throws
  /// CorruptDataError for malformed input, possibly after delivering some pieces.
  virtual bool decode_to_sink(std::span<const std::byte> in, size_t size,
                              const DecodedBytesSink& sink) const {
    (void)in, (void)size, (void)sink;
    return false;
  }
  /// Writes the next encoded bytes of a chunk into the buffer it is given and returns how many
  /// (0: none are left).
  using EncodedBytesSource = std::function<size_t(std::span<std::byte>)>;
  /// As decode_to_sink, but also reads the `encoded_size` encoded bytes piece by piece from
  /// `source` (no chunk-sized buffer on either side). Returns false, having delivered nothing
  /// (it may have read from `source`), when it cannot (the default: without reading). Throws
  /// CorruptDataError for malformed or short input, possibly after delivering some pieces.
  virtual bool decode_stream_to_sink(size_t encoded_size, const EncodedBytesSource& source,
                                     size_t size, const DecodedBytesSink& sink) const {
    (void)encoded_size, (void)source, (void)size, (void)sink;
    return false;
  }
};

}  // namespace cuzarr
