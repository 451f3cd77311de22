#include "cuzarr/codec/numcodecs_quantize_codec.hpp"

#include <fmt/format.h>

#include <cmath>

#include "codec/element_cast.hpp"
#include "codec/numcodecs_filter_support.hpp"
#include "codec/numpy_dtype.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "numcodecs.quantize";
const std::string kWhere = "codec \"numcodecs.quantize\"";

// numcodecs: precision = 10**-digits; exp = floor or ceil of log10(precision);
// bits = ceil(log2(10**-exp)); scale = 2**bits.
double quantize_scale(int digits) {
  const double precision = std::pow(10.0, -static_cast<double>(digits));
  double exponent = std::log10(precision);
  exponent = exponent < 0 ? std::floor(exponent) : std::ceil(exponent);
  const double bits = std::ceil(std::log2(std::pow(10.0, -exponent)));
  return std::ldexp(1.0, static_cast<int>(bits));
}

}  // namespace

NumcodecsQuantizeCodec::NumcodecsQuantizeCodec(int digits, DataType dtype, DataType astype)
    : digits_(digits), dtype_(dtype), astype_(astype), scale_(quantize_scale(digits)) {
  if (!dtype_.is_float() || !astype_.is_float()) {
    throw InvalidArgumentError(
        fmt::format("{}: \"dtype\" and \"astype\" must be float types, got {} and {}", kWhere,
                    dtype_.name(), astype_.name()));
  }
}

std::shared_ptr<NumcodecsQuantizeCodec> NumcodecsQuantizeCodec::create(
    const nlohmann::json& configuration, const ChunkRepresentation& decoded) {
  CodecConfiguration config(kName, configuration, {"digits", "dtype", "astype"});
  config.at("digits");  // required
  const auto digits = config.integer("digits", -300, 300).value();
  const DataType dtype = dtype_field(config, "dtype", decoded.data_type);
  if (dtype != decoded.data_type) {
    throw InvalidArgumentError(fmt::format("{}\"dtype\" {} differs from the chunk's data type {}",
                                           config.prefix(), dtype.name(),
                                           decoded.data_type.name()));
  }
  return std::make_shared<NumcodecsQuantizeCodec>(static_cast<int>(digits), dtype,
                                                  dtype_field(config, "astype", dtype));
}

nlohmann::json NumcodecsQuantizeCodec::to_json() const {
  return {{"name", kName},
          {"configuration",
           {{"digits", digits_},
            {"dtype", numpy_dtype_string(dtype_)},
            {"astype", numpy_dtype_string(astype_)}}}};
}

void NumcodecsQuantizeCodec::encode_elements(const std::byte* src, std::byte* dst,
                                             size_t count) const {
  visit_real_type(dtype_, kWhere, [&](auto t) {
    using T = decltype(t);
    visit_real_type(astype_, kWhere, [&](auto a) {
      using A = decltype(a);
      if constexpr (is_real_v<T>) {
        const calc_t<T> scale = scalar_to<T>(scale_);
        for (size_t k = 0; k < count; ++k) {
          // np.around(scale * arr) / scale, each step in T.
          calc_t<T> v = round_to<T>(scale * to_calc(load_element<T>(src + k * sizeof(T))));
          v = round_to<T>(std::nearbyint(v) / scale);
          store_element<A>(dst + k * sizeof(A), convert<A>(v));
        }
      }
    });
  });
}

ChunkRepresentation NumcodecsQuantizeCodec::encoded_representation(
    const ChunkRepresentation& decoded) const {
  ChunkRepresentation encoded{decoded.shape, astype_, std::vector<std::byte>(astype_.size())};
  if (decoded.fill_value.size() == dtype_.size())
    encode_elements(decoded.fill_value.data(), encoded.fill_value.data(), 1);
  return encoded;
}

void NumcodecsQuantizeCodec::encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                    const ChunkRepresentation& decoded,
                                    std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.quantize", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, dtype_, "encode");
    const NDBuffer src = c_ordered(in[i]);
    NDBuffer dst = NDBuffer::allocate(astype_, decoded.shape);
    encode_elements(src.data(), dst.data(), static_cast<size_t>(src.size()));
    out[i] = dst;
  });
}

void NumcodecsQuantizeCodec::decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                    const ChunkRepresentation& decoded,
                                    std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.quantize", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, astype_, "decode");
    const NDBuffer src = c_ordered(in[i]);
    NDBuffer dst = NDBuffer::allocate(dtype_, decoded.shape);
    cast_elements(src.data(), astype_, dst.data(), dtype_, static_cast<size_t>(src.size()), kWhere);
    out[i] = dst;
  });
}

}  // namespace cuzarr
