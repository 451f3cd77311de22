// The "numcodecs.astype" codec (array -> array), as numcodecs.AsType: casts the elements from
// decode_dtype (the chunk's data type) to encode_dtype with numpy's astype rules, and back.
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsAsTypeCodec final : public ArrayToArrayCodec {
 public:
  /// Resolves {"encode_dtype": numpy dtype (required), "decode_dtype": numpy dtype (default: the
  /// chunk's data type, which it must equal)}. Throws InvalidArgumentError naming the field;
  /// UnsupportedError for complex, raw or big-endian types.
  static std::shared_ptr<NumcodecsAsTypeCodec> create(const nlohmann::json& configuration,
                                                      const ChunkRepresentation& decoded);
  NumcodecsAsTypeCodec(DataType encode_dtype, DataType decode_dtype);

  std::string name() const override { return "numcodecs.astype"; }
  nlohmann::json to_json() const override;
  /// `decoded` with encode_dtype (and its fill value cast).
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  void decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;

  DataType encode_dtype() const { return encode_dtype_; }
  DataType decode_dtype() const { return decode_dtype_; }

 private:
  DataType encode_dtype_;
  DataType decode_dtype_;
};

}  // namespace cuzarr
