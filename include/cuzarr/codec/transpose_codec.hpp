// The Zarr v3 "transpose" codec (array -> array): encoded dimension i is decoded dimension
// order[i]. Both directions return zero-copy permuted views; the bytes codec then writes the
// permuted view in C order.
#pragma once

#include <memory>
#include <vector>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class TransposeCodec final : public ArrayToArrayCodec {
 public:
  /// Resolves {"order": [permutation of 0..rank-1]} for chunks of `decoded`. Throws
  /// InvalidArgumentError naming "order" when it is missing or not a permutation of the rank.
  static std::shared_ptr<TransposeCodec> create(const nlohmann::json& configuration,
                                                const ChunkRepresentation& decoded);
  /// `order` must be a permutation of 0..order.size()-1 (throws InvalidArgumentError).
  explicit TransposeCodec(std::vector<int64_t> order);

  std::string name() const override { return "transpose"; }
  nlohmann::json to_json() const override;
  ChunkRepresentation encoded_representation(const ChunkRepresentation& decoded) const override;
  /// out[i] = in[i].permuted(order): a view, no copy.
  void encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  /// out[i] = in[i] permuted by the inverse order: a view, no copy.
  void decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;

  const std::vector<int64_t>& order() const { return order_; }
  const std::vector<int64_t>& inverse_order() const { return inverse_; }

 private:
  std::vector<int64_t> order_;
  std::vector<int64_t> inverse_;
};

}  // namespace cuzarr
