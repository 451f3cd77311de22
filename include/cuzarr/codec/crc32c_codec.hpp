// The Zarr v3 "crc32c" codec (bytes -> bytes): appends the CRC-32C of the data as 4 little-endian
// bytes; decoding verifies and strips it.
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class Crc32cCodec final : public BytesToBytesCodec {
 public:
  /// Resolves an empty configuration; throws InvalidArgumentError for any field.
  static std::shared_ptr<Crc32cCodec> create(const nlohmann::json& configuration,
                                             const ChunkRepresentation& decoded);

  std::string name() const override { return "crc32c"; }
  nlohmann::json to_json() const override { return {{"name", "crc32c"}}; }
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// out[i] is a zero-copy view of in[i] without its checksum. corrupt_data when the input is
  /// shorter than 4 bytes or the checksum does not match.
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  std::optional<int64_t> fixed_encoded_size(int64_t decoded_size) const override {
    return decoded_size + 4;
  }
};

}  // namespace cuzarr
