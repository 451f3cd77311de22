// The "numcodecs.fixedscaleoffset" codec (array -> array), as numcodecs.FixedScaleOffset:
// encode round((x - offset) * scale) cast to astype; decode (y / scale) + offset cast to dtype.
// The arithmetic follows numpy 2's promotion rules (NEP 50): a float chunk computes in its own
// precision, an integer chunk in its integer type (wrapping) while offset and scale are
// integers and in float64 from the first float operand on; rounding is half to even (np.around).
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsFixedScaleOffsetCodec final : public ArrayToArrayCodec {
 public:
  /// A JSON number as Python sees it: an int or a float.
  struct Number {
    bool is_integer = false;
    int64_t integer = 0;
    double real = 0;
    double value() const { return is_integer ? static_cast<double>(integer) : real; }
  };

  /// Resolves {"offset": number, "scale": number (both required), "dtype": numpy dtype
  /// (default: the chunk's data type, which it must equal), "astype": numpy dtype (default:
  /// dtype)}. Throws InvalidArgumentError naming the field (also for integer offsets or scales
  /// outside an integer dtype's range, which numpy rejects); UnsupportedError for bool, complex,
  /// raw or big-endian types.
  static std::shared_ptr<NumcodecsFixedScaleOffsetCodec> create(const nlohmann::json& configuration,
                                                                const ChunkRepresentation& decoded);
  NumcodecsFixedScaleOffsetCodec(Number offset, Number scale, DataType dtype, DataType astype);

  std::string name() const override { return "numcodecs.fixedscaleoffset"; }
  nlohmann::json to_json() const override;
  /// `decoded` with astype (and its fill value encoded).
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  void decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;

  /// Encodes `count` C-ordered elements of dtype at `src` into astype at `dst`.
  void encode_elements(const std::byte* src, std::byte* dst, size_t count) const;
  /// Decodes `count` C-ordered elements of astype at `src` into dtype at `dst`.
  void decode_elements(const std::byte* src, std::byte* dst, size_t count) const;

 private:
  Number offset_;
  Number scale_;
  DataType dtype_;
  DataType astype_;
};

}  // namespace cuzarr
