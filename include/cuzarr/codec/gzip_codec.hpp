// The Zarr v3 "gzip" codec (bytes -> bytes): one RFC 1952 gzip member written by zlib.
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class GzipCodec final : public BytesToBytesCodec {
 public:
  /// Resolves {"level": 0..9} (default 5). Throws InvalidArgumentError naming "level".
  static std::shared_ptr<GzipCodec> create(const nlohmann::json& configuration,
                                           const ChunkRepresentation& decoded);
  explicit GzipCodec(int level);

  std::string name() const override { return "gzip"; }
  nlohmann::json to_json() const override;
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// Decodes one or more concatenated gzip members (zlib-wrapped streams are accepted too).
  /// corrupt_data with zlib's message for malformed or truncated input, or when the output
  /// would exceed decoded_size_limit(decoded).
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;

  int level() const { return level_; }

 private:
  int level_;
};

}  // namespace cuzarr
