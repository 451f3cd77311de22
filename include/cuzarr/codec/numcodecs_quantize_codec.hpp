// The "numcodecs.quantize" codec (array -> array), as numcodecs.Quantize: keeps `digits`
// decimal digits of precision by rounding to a multiple of 2^-bits, bits = ceil(log2(10^digits))
// (numcodecs' derivation), computed in the chunk's float type and cast to astype. Decoding casts
// back to dtype.
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsQuantizeCodec final : public ArrayToArrayCodec {
 public:
  /// Resolves {"digits": int (required), "dtype": float numpy dtype (default: the chunk's data
  /// type, which it must equal), "astype": float numpy dtype (default: dtype)}. Throws
  /// InvalidArgumentError naming the field (also for non-float types).
  static std::shared_ptr<NumcodecsQuantizeCodec> create(const nlohmann::json& configuration,
                                                        const ChunkRepresentation& decoded);
  NumcodecsQuantizeCodec(int digits, DataType dtype, DataType astype);

  std::string name() const override { return "numcodecs.quantize"; }
  nlohmann::json to_json() const override;
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  void decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;

  /// 2^bits, the factor values are rounded against.
  double scale() const { return scale_; }

 private:
  void encode_elements(const std::byte* src, std::byte* dst, size_t count) const;

  int digits_;
  DataType dtype_;
  DataType astype_;
  double scale_;
};

}  // namespace cuzarr
