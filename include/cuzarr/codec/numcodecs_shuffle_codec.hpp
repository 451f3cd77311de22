// The "numcodecs.shuffle" codec (bytes -> bytes), as numcodecs.Shuffle writes it: the bytes of
// n elements of `elementsize` bytes regrouped so that byte k of every element comes before byte
// k + 1 of any (encoded[k * n + i] = decoded[i * elementsize + k]).
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsShuffleCodec final : public BytesToBytesCodec {
 public:
  /// Resolves {"elementsize": int >= 0}; when absent, the size of one element of the data type
  /// `decoded` (as zarr-python fills it in). Throws InvalidArgumentError naming "elementsize".
  static std::shared_ptr<NumcodecsShuffleCodec> create(const nlohmann::json& configuration,
                                                       const ChunkRepresentation& decoded);
  explicit NumcodecsShuffleCodec(int64_t elementsize) : elementsize_(elementsize) {}

  std::string name() const override { return "numcodecs.shuffle"; }
  nlohmann::json to_json() const override;
  /// Failed status (invalid_argument) when the size is not a multiple of elementsize.
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// corrupt_data when the size is not a multiple of elementsize. elementsize <= 1: out[i] = in[i].
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  std::optional<int64_t> fixed_encoded_size(int64_t decoded_size) const override {
    return decoded_size;
  }

  int64_t elementsize() const { return elementsize_; }

 private:
  int64_t elementsize_;
};

}  // namespace cuzarr
