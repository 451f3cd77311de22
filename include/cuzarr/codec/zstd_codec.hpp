// The Zarr v3 "zstd" codec (bytes -> bytes): one Zstandard frame.
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class ZstdCodec final : public BytesToBytesCodec {
 public:
  /// Resolves {"level": int (negative allowed, default 0 = zstd's default), "checksum": bool
  /// (default false)}. Throws InvalidArgumentError naming the field.
  static std::shared_ptr<ZstdCodec> create(const nlohmann::json& configuration,
                                           const ChunkRepresentation& decoded);
  ZstdCodec(int level, bool checksum);

  std::string name() const override { return "zstd"; }
  nlohmann::json to_json() const override;
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// Decodes one or more frames back to back, with or without a content size in their headers.
  /// corrupt_data with zstd's error name for malformed input, or when the output would exceed
  /// decoded_size_limit(decoded).
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// ZSTD_compressBound(decoded_size).
  std::optional<size_t> encode_into_bound(size_t decoded_size) const override;
  /// Compresses one chunk into `out` (the frame encode() produces).
  std::optional<size_t> encode_into(std::span<const std::byte> in,
                                    std::span<std::byte> out) const override;
  /// Decodes into `out` when the frame headers record a total content size of out.size() (on the
  /// calling thread: a zstd frame decodes sequentially).
  bool decode_into(std::span<const std::byte> in, std::span<std::byte> out,
                   const ChunkRepresentation& decoded, size_t threads) const override;
  /// Streams frames whose headers record a total content size of `size` through a small buffer.
  bool decode_to_sink(std::span<const std::byte> in, size_t size,
                      const DecodedBytesSink& sink) const override;
  /// Streams frames whose first header records a content size of at most `size`, reading the
  /// input in pieces of about 512 KiB; declines frames without a content size.
  bool decode_stream_to_sink(size_t encoded_size, const EncodedBytesSource& source, size_t size,
                             const DecodedBytesSink& sink) const override;

  int level() const { return level_; }
  bool checksum() const { return checksum_; }

 private:
  int level_;
  bool checksum_;
};

}  // namespace cuzarr
