// A codec chain (array->array codecs, one array->bytes codec, bytes->bytes codecs), itself an
// array->bytes codec. Encode runs the codecs in order; decode in reverse, each over the whole
// batch.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "cuzarr/codec/codec.hpp"
#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr {

class CodecChain final : public ArrayToBytesCodec {
 public:
  /// Resolves `specs` for chunks of representation `decoded`. Throws InvalidArgumentError when
  /// the order is wrong (not a2a* a2b b2b*) or a configuration is bad, UnsupportedError for an
  /// unknown codec; messages name the codec.
  static std::shared_ptr<CodecChain> create(std::span<const CodecSpec> specs,
                                            const ChunkRepresentation& decoded);

  std::string name() const override { return "codec_chain"; }
  /// The JSON array of the codecs.
  nlohmann::json to_json() const override;

  void encode(std::span<const NDBuffer> in, std::span<Buffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  void decode(std::span<const Buffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  std::optional<int64_t> fixed_encoded_size(const ChunkRepresentation& decoded) const override;

  /// Encode/decode for the representation given at creation.
  void encode(std::span<const NDBuffer> in, std::span<Buffer> out,
              std::span<ChunkStatus> status) const {
    encode(in, out, decoded_, status);
  }
  void decode(std::span<const Buffer> in, std::span<NDBuffer> out,
              std::span<ChunkStatus> status) const {
    decode(in, out, decoded_, status);
  }

  const ChunkRepresentation& decoded_representation() const { return decoded_; }
  const std::vector<std::shared_ptr<ArrayToArrayCodec>>& array_to_array() const { return a2a_; }
  const std::shared_ptr<ArrayToBytesCodec>& array_to_bytes() const { return a2b_; }
  const std::vector<std::shared_ptr<BytesToBytesCodec>>& bytes_to_bytes() const { return b2b_; }
  /// The representation the array -> bytes codec sees for the representation given at creation
  /// (after the array -> array codecs, e.g. a transposed shape).
  const ChunkRepresentation& array_to_bytes_representation() const { return a2b_input_; }

 private:
  ChunkRepresentation decoded_;
  std::vector<std::shared_ptr<ArrayToArrayCodec>> a2a_;
  std::vector<ChunkRepresentation>
      a2a_inputs_;  ///< representation each a2a codec receives on encode
  std::shared_ptr<ArrayToBytesCodec> a2b_;
  ChunkRepresentation a2b_input_;
  std::vector<std::shared_ptr<BytesToBytesCodec>> b2b_;
};

}  // namespace cuzarr
