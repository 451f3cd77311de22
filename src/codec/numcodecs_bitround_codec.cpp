#include "cuzarr/codec/numcodecs_bitround_codec.hpp"

#include <fmt/format.h>

#include <cstring>

#include "codec/codec_configuration.hpp"
#include "codec/numcodecs_filter_support.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "numcodecs.bitround";

int mantissa_bits(const DataType& dtype) {
  switch (dtype.kind()) {
    case DataTypeKind::float16:
      return 10;
    case DataTypeKind::float32:
      return 23;
    case DataTypeKind::float64:
      return 52;
    default:
      throw InvalidArgumentError(fmt::format(
          "codec \"numcodecs.bitround\": needs a float16, float32 or float64 chunk, got {}",
          dtype.name()));
  }
}

// numcodecs: b += ((b >> maskbits) & 1) + (2^(maskbits-1) - 1); b &= mask, on the bit pattern
// as an integer of the same width (wrapping).
template <class U>
void round_bits(std::byte* data, size_t count, int maskbits) {
  const U mask = static_cast<U>(~((U{1} << maskbits) - 1));
  const U half_quantum = static_cast<U>((U{1} << (maskbits - 1)) - 1);
  for (size_t k = 0; k < count; ++k) {
    U b;
    std::memcpy(&b, data + k * sizeof(U), sizeof(U));
    b = static_cast<U>(b + ((b >> maskbits) & U{1}) + half_quantum);
    b = static_cast<U>(b & mask);
    std::memcpy(data + k * sizeof(U), &b, sizeof(U));
  }
}

}  // namespace

NumcodecsBitRoundCodec::NumcodecsBitRoundCodec(int keepbits, DataType dtype)
    : keepbits_(keepbits), dtype_(dtype) {
  const int bits = mantissa_bits(dtype_);
  if (keepbits < 0 || keepbits > bits) {
    throw InvalidArgumentError(
        fmt::format("codec \"numcodecs.bitround\": \"keepbits\" must be in [0, {}] for {}, got {}",
                    bits, dtype_.name(), keepbits));
  }
}

std::shared_ptr<NumcodecsBitRoundCodec> NumcodecsBitRoundCodec::create(
    const nlohmann::json& configuration, const ChunkRepresentation& decoded) {
  CodecConfiguration config(kName, configuration, {"keepbits"});
  config.at("keepbits");  // required
  return std::make_shared<NumcodecsBitRoundCodec>(
      static_cast<int>(config.integer("keepbits", 0, 64).value()), decoded.data_type);
}

nlohmann::json NumcodecsBitRoundCodec::to_json() const {
  return {{"name", kName}, {"configuration", {{"keepbits", keepbits_}}}};
}

ChunkRepresentation NumcodecsBitRoundCodec::encoded_representation(
    const ChunkRepresentation& decoded) const {
  return decoded;
}

void NumcodecsBitRoundCodec::encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                    const ChunkRepresentation& decoded,
                                    std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.bitround", in.size(), out.size(), status.size());
  const int maskbits = mantissa_bits(dtype_) - keepbits_;
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, dtype_, "encode");
    if (maskbits == 0) {  // numcodecs: keepbits == mantissa bits returns the input
      out[i] = in[i];
      return;
    }
    NDBuffer dst = NDBuffer::allocate(dtype_, decoded.shape);
    dst.assign(in[i]);
    const auto count = static_cast<size_t>(dst.size());
    switch (dtype_.size()) {
      case 2:
        round_bits<uint16_t>(dst.data(), count, maskbits);
        break;
      case 4:
        round_bits<uint32_t>(dst.data(), count, maskbits);
        break;
      default:
        round_bits<uint64_t>(dst.data(), count, maskbits);
        break;
    }
    out[i] = dst;
  });
}

void NumcodecsBitRoundCodec::decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                    const ChunkRepresentation& decoded,
                                    std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.bitround", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, dtype_, "decode");
    out[i] = in[i];
  });
}

}  // namespace cuzarr
