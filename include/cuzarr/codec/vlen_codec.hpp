// The "vlen-utf8" and "vlen-bytes" array -> bytes codecs (zarr-python 3 names; numcodecs ids
// VLenUTF8 / VLenBytes) for the variable-length data types string and variable_length_bytes.
// Encoded layout (numcodecs vlen.pyx): a little-endian uint32 item count, then for each element
// in C order a little-endian uint32 byte length followed by that many bytes.
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class VlenCodec final : public ArrayToBytesCodec {
 public:
  enum class Flavor { utf8, bytes };

  /// Resolves the (empty) configuration. vlen-utf8 needs the string data type, vlen-bytes
  /// variable_length_bytes; anything else throws InvalidArgumentError naming the codec.
  static std::shared_ptr<VlenCodec> create(Flavor flavor, const nlohmann::json& configuration,
                                           const ChunkRepresentation& decoded);
  explicit VlenCodec(Flavor flavor) : flavor_(flavor) {}

  std::string name() const override { return flavor_ == Flavor::utf8 ? "vlen-utf8" : "vlen-bytes"; }
  /// {"name": ..., "configuration": {}}.
  nlohmann::json to_json() const override;

  /// Writes each array (any strides) in the layout above. An element or count past 2^32 - 1 marks
  /// the chunk failed (invalid_argument).
  void encode(std::span<const NDBuffer> in, std::span<Buffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  /// The decoded elements point into the encoded bytes, which the output buffer keeps alive.
  /// A count that differs from the chunk's element count, a length past the end, trailing
  /// bytes, or (vlen-utf8) malformed UTF-8 mark the chunk corrupt; nothing is read out of bounds.
  void decode(std::span<const Buffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;

 private:
  Flavor flavor_;
};

}  // namespace cuzarr
