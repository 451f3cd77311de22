#include "cuzarr/codec/numcodecs_packbits_codec.hpp"

#include <fmt/format.h>

#include "codec/codec_configuration.hpp"
#include "codec/numcodecs_filter_support.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "numcodecs.packbits";
const DataType kBool(DataTypeKind::boolean);
const DataType kUint8(DataTypeKind::uint8);

void require_bool(const DataType& dtype) {
  if (dtype != kBool) {
    throw InvalidArgumentError(
        fmt::format("codec \"numcodecs.packbits\": needs a bool chunk, got {}", dtype.name()));
  }
}

}  // namespace

std::shared_ptr<NumcodecsPackBitsCodec> NumcodecsPackBitsCodec::create(
    const nlohmann::json& configuration, const ChunkRepresentation& decoded) {
  CodecConfiguration config(kName, configuration, {});
  require_bool(decoded.data_type);
  return std::make_shared<NumcodecsPackBitsCodec>();
}

ChunkRepresentation NumcodecsPackBitsCodec::encoded_representation(
    const ChunkRepresentation& decoded) const {
  require_bool(decoded.data_type);
  const int64_t n = element_count(decoded.shape);
  return ChunkRepresentation{{1 + (n + 7) / 8}, kUint8, {std::byte{0}}};
}

void NumcodecsPackBitsCodec::encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                    const ChunkRepresentation& decoded,
                                    std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.packbits", in.size(), out.size(), status.size());
  const Shape encoded_shape = encoded_representation(decoded).shape;
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, kBool, "encode");
    const NDBuffer src = c_ordered(in[i]);
    const auto n = static_cast<size_t>(src.size());
    NDBuffer dst = NDBuffer::allocate(kUint8, encoded_shape);
    auto* bytes = reinterpret_cast<uint8_t*>(dst.data());
    const auto* bits = reinterpret_cast<const uint8_t*>(src.data());
    bytes[0] = static_cast<uint8_t>((8 - n % 8) % 8);  // padding bits in the last byte
    for (size_t b = 0; b < (n + 7) / 8; ++b) bytes[1 + b] = 0;
    for (size_t k = 0; k < n; ++k) {
      if (bits[k] != 0)
        bytes[1 + k / 8] = static_cast<uint8_t>(bytes[1 + k / 8] | (0x80u >> (k % 8)));
    }
    out[i] = dst;
  });
}

void NumcodecsPackBitsCodec::decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                    const ChunkRepresentation& decoded,
                                    std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.packbits", in.size(), out.size(), status.size());
  const Shape encoded_shape = encoded_representation(decoded).shape;
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], encoded_shape, kUint8, "decode");
    const NDBuffer src = c_ordered(in[i]);
    const auto* bytes = reinterpret_cast<const uint8_t*>(src.data());
    const auto n = static_cast<size_t>(element_count(decoded.shape));
    const auto expected_padding = static_cast<uint8_t>((8 - n % 8) % 8);
    if (bytes[0] != expected_padding) {
      throw CorruptDataError(fmt::format(
          "codec \"numcodecs.packbits\": header says {} padding bits, {} elements need {}",
          bytes[0], n, expected_padding));
    }
    NDBuffer dst = NDBuffer::allocate(kBool, decoded.shape);
    auto* bits = reinterpret_cast<uint8_t*>(dst.data());
    for (size_t k = 0; k < n; ++k) bits[k] = (bytes[1 + k / 8] >> (7 - k % 8)) & 1u;
    out[i] = dst;
  });
}

}  // namespace cuzarr
