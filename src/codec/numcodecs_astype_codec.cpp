#include "cuzarr/codec/numcodecs_astype_codec.hpp"

#include <fmt/format.h>

#include "codec/element_cast.hpp"
#include "codec/numcodecs_filter_support.hpp"
#include "codec/numpy_dtype.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "numcodecs.astype";

NDBuffer cast_array(const NDBuffer& in, const DataType& to) {
  NDBuffer src = c_ordered(in);
  NDBuffer dst = NDBuffer::allocate(to, in.shape());
  cast_elements(src.data(), src.dtype(), dst.data(), to, static_cast<size_t>(src.size()),
                "codec \"numcodecs.astype\"");
  return dst;
}

}  // namespace

NumcodecsAsTypeCodec::NumcodecsAsTypeCodec(DataType encode_dtype, DataType decode_dtype)
    : encode_dtype_(encode_dtype), decode_dtype_(decode_dtype) {
  // Rejects complex and raw types up front.
  const std::string where = fmt::format("codec \"{}\"", kName);
  visit_real_type(encode_dtype_, where, [](auto) {});
  visit_real_type(decode_dtype_, where, [](auto) {});
}

std::shared_ptr<NumcodecsAsTypeCodec> NumcodecsAsTypeCodec::create(
    const nlohmann::json& configuration, const ChunkRepresentation& decoded) {
  CodecConfiguration config(kName, configuration, {"encode_dtype", "decode_dtype"});
  config.at("encode_dtype");  // required
  const DataType encode = dtype_field(config, "encode_dtype", decoded.data_type);
  const DataType decode = dtype_field(config, "decode_dtype", decoded.data_type);
  if (decode != decoded.data_type) {
    throw InvalidArgumentError(
        fmt::format("{}\"decode_dtype\" {} differs from the chunk's data type {}", config.prefix(),
                    decode.name(), decoded.data_type.name()));
  }
  return std::make_shared<NumcodecsAsTypeCodec>(encode, decode);
}

nlohmann::json NumcodecsAsTypeCodec::to_json() const {
  return {{"name", kName},
          {"configuration",
           {{"encode_dtype", numpy_dtype_string(encode_dtype_)},
            {"decode_dtype", numpy_dtype_string(decode_dtype_)}}}};
}

ChunkRepresentation NumcodecsAsTypeCodec::encoded_representation(
    const ChunkRepresentation& decoded) const {
  ChunkRepresentation encoded{decoded.shape, encode_dtype_,
                              std::vector<std::byte>(encode_dtype_.size())};
  if (decoded.fill_value.size() == decode_dtype_.size()) {
    cast_elements(decoded.fill_value.data(), decode_dtype_, encoded.fill_value.data(),
                  encode_dtype_, 1, kName);
  }
  return encoded;
}

void NumcodecsAsTypeCodec::encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                  const ChunkRepresentation& decoded,
                                  std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.astype", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, decode_dtype_, "encode");
    out[i] = cast_array(in[i], encode_dtype_);
  });
}

void NumcodecsAsTypeCodec::decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                  const ChunkRepresentation& decoded,
                                  std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.astype", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, encode_dtype_, "decode");
    out[i] = cast_array(in[i], decode_dtype_);
  });
}

}  // namespace cuzarr
