#include "cuzarr/codec/transpose_codec.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "codec/codec_configuration.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

void require_shape(const NDBuffer& array, const Shape& expected, const char* direction) {
  if (array.shape() != expected) {
    throw InvalidArgumentError(
        fmt::format("codec \"transpose\": {} got an array of shape {}, expected {}", direction,
                    shape_to_string(array.shape()), shape_to_string(expected)));
  }
}

}  // namespace

TransposeCodec::TransposeCodec(std::vector<int64_t> order)
    : order_(std::move(order)), inverse_(order_.size(), -1) {
  const auto rank = static_cast<int64_t>(order_.size());
  for (size_t i = 0; i < order_.size(); ++i) {
    const int64_t o = order_[i];
    if (o < 0 || o >= rank || inverse_[static_cast<size_t>(o)] != -1) {
      throw InvalidArgumentError(
          fmt::format("codec \"transpose\": \"order\" must be a permutation of 0..{}, got [{}]",
                      rank - 1, fmt::join(order_, ", ")));
    }
    inverse_[static_cast<size_t>(o)] = static_cast<int64_t>(i);
  }
}

std::shared_ptr<TransposeCodec> TransposeCodec::create(const nlohmann::json& configuration,
                                                       const ChunkRepresentation& decoded) {
  CodecConfiguration config("transpose", configuration, {"order"});
  const auto& order_json = config.at("order");
  const size_t rank = decoded.shape.size();
  std::vector<int64_t> order;
  if (order_json.is_string() && (order_json == "C" || order_json == "F")) {
    // An early draft of the v3 transpose codec allowed "C" (identity) and "F" (reversed).
    for (size_t i = 0; i < rank; ++i)
      order.push_back(static_cast<int64_t>(order_json == "C" ? i : rank - 1 - i));
  } else {
    if (!order_json.is_array()) {
      throw InvalidArgumentError(fmt::format("{}\"order\" must be an array of integers, got {}",
                                             config.prefix(), order_json.dump()));
    }
    for (const auto& v : order_json) {
      if (!v.is_number_integer()) {
        throw InvalidArgumentError(fmt::format("{}\"order\" must be an array of integers, got {}",
                                               config.prefix(), order_json.dump()));
      }
      order.push_back(v.get<int64_t>());
    }
  }
  if (order.size() != rank) {
    throw InvalidArgumentError(
        fmt::format("{}\"order\" {} has {} entries but the chunk has {} dimensions",
                    config.prefix(), order_json.dump(), order.size(), rank));
  }
  return std::make_shared<TransposeCodec>(std::move(order));
}

nlohmann::json TransposeCodec::to_json() const {
  return {{"name", "transpose"}, {"configuration", {{"order", order_}}}};
}

ChunkRepresentation TransposeCodec::encoded_representation(
    const ChunkRepresentation& decoded) const {
  if (decoded.shape.size() != order_.size()) {
    throw InvalidArgumentError(
        fmt::format("codec \"transpose\": \"order\" has {} entries but the chunk has {} dimensions",
                    order_.size(), decoded.shape.size()));
  }
  ChunkRepresentation encoded = decoded;
  for (size_t i = 0; i < order_.size(); ++i)
    encoded.shape[i] = decoded.shape[static_cast<size_t>(order_[i])];
  return encoded;
}

void TransposeCodec::encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                            const ChunkRepresentation& decoded,
                            std::span<ChunkStatus> status) const {
  check_batch_sizes("transpose", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    require_shape(in[i], decoded.shape, "encode");
    out[i] = in[i].permuted(order_);
  });
}

void TransposeCodec::decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                            const ChunkRepresentation& decoded,
                            std::span<ChunkStatus> status) const {
  check_batch_sizes("transpose", in.size(), out.size(), status.size());
  const Shape encoded_shape = encoded_representation(decoded).shape;
  for_each_chunk(status, [&](size_t i) {
    require_shape(in[i], encoded_shape, "decode");
    out[i] = in[i].permuted(inverse_);
  });
}

}  // namespace cuzarr
