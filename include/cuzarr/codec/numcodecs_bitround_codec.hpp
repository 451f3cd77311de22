// The "numcodecs.bitround" codec (array -> array), as numcodecs.BitRound: rounds each float's
// mantissa to `keepbits` bits (round half to even on the bit pattern; the low bits become zero).
// Decoding is the identity.
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsBitRoundCodec final : public ArrayToArrayCodec {
 public:
  /// Resolves {"keepbits": 0..mantissa bits of the chunk's float type (10, 23 or 52)}. Throws
  /// InvalidArgumentError naming "keepbits", or for a chunk type that is not a float.
  static std::shared_ptr<NumcodecsBitRoundCodec> create(const nlohmann::json& configuration,
                                                        const ChunkRepresentation& decoded);
  NumcodecsBitRoundCodec(int keepbits, DataType dtype);

  std::string name() const override { return "numcodecs.bitround"; }
  nlohmann::json to_json() const override;
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  /// out[i] = in[i] (no copy).
  void decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;

 private:
  int keepbits_;
  DataType dtype_;
};

}  // namespace cuzarr
