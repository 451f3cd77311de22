// The "numcodecs.base64" codec (bytes -> bytes), as numcodecs.Base64 writes it: the bytes as
// standard base64 text with "=" padding (RFC 4648, section 4). zarr-python reads and writes it as
// a zarr v2 compressor or filter (id "base64"); numcodecs.zarr3 has no v3 name for it, so v3
// arrays carry it only where a writer chose "numcodecs.base64".
#pragma once

#include <memory>
#include <span>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsBase64Codec final : public BytesToBytesCodec {
 public:
  /// Resolves an empty configuration; throws InvalidArgumentError for any field.
  static std::shared_ptr<NumcodecsBase64Codec> create(const nlohmann::json& configuration,
                                                      const ChunkRepresentation& decoded);

  std::string name() const override { return "numcodecs.base64"; }
  nlohmann::json to_json() const override {
    return {{"name", "numcodecs.base64"}, {"configuration", nlohmann::json::object()}};
  }
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// corrupt_data for text that is not padded standard base64 (numcodecs writes nothing else).
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  std::optional<int64_t> fixed_encoded_size(int64_t decoded_size) const override {
    return (decoded_size + 2) / 3 * 4;
  }
};

}  // namespace cuzarr
