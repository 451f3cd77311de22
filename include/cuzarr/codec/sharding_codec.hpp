// sharding_indexed (Zarr v3 sharding spec): a shard holds a grid of inner chunks, each encoded with
// the inner codec chain, and an index (encoded with the index codec chain) at the start or end.
// The pipeline reads shards partially through index_byte_range() / decode_index() and the inner
// chain; encode()/decode() handle whole shards.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "cuzarr/codec/codec_chain.hpp"
#include "cuzarr/codec/shard_index.hpp"
#include "cuzarr/store/byte_range.hpp"

namespace cuzarr {

class ShardingCodec final : public ArrayToBytesCodec {
 public:
  enum class IndexLocation { start, end };

  /// Resolves {"chunk_shape", "codecs", "index_codecs", "index_location"} for shards of
  /// representation `shard`. Throws InvalidArgumentError (naming the field) when the inner chunk
  /// shape does not divide the shard shape, a chain is invalid, the index chain has no fixed
  /// encoded size or a field is unknown; UnsupportedError for an unknown inner codec. Missing
  /// "codecs"/"index_codecs" default to bytes / bytes + crc32c (as zarr-python does).
  static std::shared_ptr<ShardingCodec> create(const nlohmann::json& configuration,
                                               const ChunkRepresentation& shard);

  std::string name() const override { return "sharding_indexed"; }
  nlohmann::json to_json() const override;
  /// Encodes whole shards. Inner chunks equal to the fill value (bytewise) are not stored; a
  /// shard whose inner chunks are all empty encodes to an empty Buffer (nothing to store).
  void encode(std::span<const NDBuffer> in, std::span<Buffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  /// Memory encode_shard() reuses from one shard to the next (grown as needed).
  struct EncodeScratch {
    Buffer inner_chunks;          ///< the encoded inner chunks, one slot each
    std::vector<Buffer> encoded;  ///< inner chunks of chains without a direct encoder
    Buffer index;                 ///< the encoded index
    std::vector<std::span<const std::byte>> parts;  ///< what encode_shard() returns
  };
  /// Encodes one whole shard (host memory, any strides) into `scratch` and returns the stored
  /// shard as parts in order (views of `scratch`, valid until its next use) whose concatenation
  /// is the bytes encode() produces: no assembled copy, for a store's gathered write. Empty when
  /// every inner chunk holds only the fill value (nothing to store). Inner chunks are encoded in
  /// parallel; with [bytes, zstd or blosc] inner codecs each is compressed straight into its
  /// slot of scratch.inner_chunks. Throws InvalidArgumentError for a shard of another shape or
  /// type, UnsupportedError for device memory, and what the inner codecs throw (naming the
  /// inner chunk).
  std::span<const std::span<const std::byte>> encode_shard(const NDBuffer& shard,
                                                           EncodeScratch& scratch) const;
  /// Decodes whole shards; an empty Buffer decodes to a shard of fill value. A corrupt index or
  /// inner chunk marks the shard's status (corrupt_data, naming the inner chunk).
  void decode(std::span<const Buffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;

  const Shape& inner_chunk_shape() const { return inner_shape_; }
  /// Inner chunks per shard along each dimension.
  const Shape& inner_grid() const { return grid_; }
  const CodecChain& inner_chain() const { return *inner_; }
  const CodecChain& index_chain() const { return *index_; }
  IndexLocation index_location() const { return location_; }
  /// Encoded size of the index in bytes.
  int64_t index_encoded_size() const { return index_size_; }
  /// Where the index lies in a stored shard: a prefix range or a suffix.
  ByteRange index_byte_range() const;
  /// Decodes and validates an index read from index_byte_range() of a shard of `shard_size` bytes.
  /// Throws CorruptDataError naming `source` (the shard key).
  ShardIndex decode_index(const Buffer& encoded_index, uint64_t shard_size,
                          const std::string& source) const;

 private:
  ChunkRepresentation shard_;
  Shape inner_shape_;
  Shape grid_;
  std::shared_ptr<CodecChain> inner_;
  std::shared_ptr<CodecChain> index_;
  IndexLocation location_ = IndexLocation::end;
  int64_t index_size_ = 0;
};

}  // namespace cuzarr
