// The "numcodecs.delta" codec (array -> array), as numcodecs.Delta: over the chunk's elements in
// C order, the first element and then each element minus the one before it, computed in dtype
// (integers wrap) and cast to astype. Decoding is the running sum, accumulated in dtype.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsDeltaCodec final : public ArrayToArrayCodec {
 public:
  /// Resolves {"dtype": numpy dtype (default: the chunk's data type, which it must equal),
  /// "astype": numpy dtype (default: dtype)}. Throws InvalidArgumentError naming the field
  /// (bool has no difference); UnsupportedError for complex, raw or big-endian types.
  static std::shared_ptr<NumcodecsDeltaCodec> create(const nlohmann::json& configuration,
                                                     const ChunkRepresentation& decoded);
  NumcodecsDeltaCodec(DataType dtype, DataType astype);

  std::string name() const override { return "numcodecs.delta"; }
  nlohmann::json to_json() const override;
  /// `decoded` with astype.
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  void encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  void decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;

  DataType dtype() const { return dtype_; }
  DataType astype() const { return astype_; }

  /// Decodes one chunk in place when dtype == astype: the running sum of decode() over `runs`,
  /// the chunk's elements in C order (whole elements of dtype in host byte order) spread over
  /// consecutive runs, the sum carried from run to run. Throws UnsupportedError when dtype
  /// differs from astype.
  void decode_in_place(std::span<const std::span<std::byte>> runs) const;

 private:
  DataType dtype_;
  DataType astype_;
};

}  // namespace cuzarr
