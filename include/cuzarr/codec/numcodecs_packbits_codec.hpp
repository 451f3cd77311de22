// The "numcodecs.packbits" codec (array -> array), as numcodecs.PackBits: a bool chunk of n
// elements (C order) becomes a 1-d uint8 array of 1 + ceil(n / 8) bytes: the number of padding
// bits in the last byte, then the bits packed eight to a byte, first element in the most
// significant bit (np.packbits). zarr-python 3 declares the same encoded shape and type.
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsPackBitsCodec final : public ArrayToArrayCodec {
 public:
  /// Resolves an empty configuration for a bool chunk; throws InvalidArgumentError for any
  /// field or another data type.
  static std::shared_ptr<NumcodecsPackBitsCodec> create(const nlohmann::json& configuration,
                                                        const ChunkRepresentation& decoded);

  std::string name() const override { return "numcodecs.packbits"; }
  nlohmann::json to_json() const override {
    return {{"name", "numcodecs.packbits"}, {"configuration", nlohmann::json::object()}};
  }
  /// uint8 of shape {1 + ceil(n / 8)}, fill value 0.
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  /// corrupt_data when the header byte is not the padding that n elements need.
  void decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
};

}  // namespace cuzarr
