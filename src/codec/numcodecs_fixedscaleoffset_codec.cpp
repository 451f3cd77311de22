#include "cuzarr/codec/numcodecs_fixedscaleoffset_codec.hpp"

#include <fmt/format.h>

#include <cmath>
#include <type_traits>

#include "codec/element_cast.hpp"
#include "codec/numcodecs_filter_support.hpp"
#include "codec/numpy_dtype.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "numcodecs.fixedscaleoffset";
const std::string kWhere = "codec \"numcodecs.fixedscaleoffset\"";
using Number = NumcodecsFixedScaleOffsetCodec::Number;

Number number_field(const CodecConfiguration& config, const char* field) {
  const auto& v = config.at(field);
  Number n;
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      throw InvalidArgumentError(
          fmt::format("{}\"{}\" {} is too large", config.prefix(), field, v.dump()));
    }
    n.is_integer = true;
    n.integer = v.get<int64_t>();
  } else if (v.is_number_float()) {
    n.real = v.get<double>();
  } else {
    throw InvalidArgumentError(
        fmt::format("{}\"{}\" must be a number, got {}", config.prefix(), field, v.dump()));
  }
  return n;
}

template <class T>
T wrap_multiply(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}
template <class T>
T wrap_subtract(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}

// round((x - offset) * scale) in numpy's types, cast to A.
template <class T, class A>
A encode_one(T x, const Number& offset, const Number& scale) {
  if constexpr (is_real_v<T>) {
    calc_t<T> v = round_to<T>(to_calc(x) - scalar_to<T>(offset.value()));
    v = round_to<T>(v * scalar_to<T>(scale.value()));
    return convert<A>(std::nearbyint(v));
  } else {
    // Integer chunk: stays in T while the operand is a Python int, else goes to float64.
    double d = 0;
    if (offset.is_integer) {
      const T t1 = wrap_subtract(x, static_cast<T>(offset.integer));
      if (scale.is_integer) return convert<A>(wrap_multiply(t1, static_cast<T>(scale.integer)));
      d = static_cast<double>(t1) * scale.real;
    } else {
      d = (static_cast<double>(x) - offset.real) * scale.value();
    }
    return convert<A>(std::nearbyint(d));
  }
}

// (y / scale) + offset in numpy's types (true division: float64 for integer y), cast to T.
template <class T, class A>
T decode_one(A y, const Number& offset, const Number& scale) {
  if constexpr (is_real_v<A>) {
    calc_t<A> v = round_to<A>(to_calc(y) / scalar_to<A>(scale.value()));
    v = round_to<A>(v + scalar_to<A>(offset.value()));
    return convert<T>(v);
  } else {
    return convert<T>(static_cast<double>(y) / scale.value() + offset.value());
  }
}

void check_integer_operand(const Number& n, const DataType& dtype, const char* field) {
  if (!n.is_integer || !dtype.is_integer()) return;
  visit_real_type(dtype, kWhere, [&](auto t) {
    using T = decltype(t);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const bool fits = std::is_signed_v<T>
                            ? (n.integer >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                               (sizeof(T) == 8 ||
                                n.integer <= static_cast<int64_t>(std::numeric_limits<T>::max())))
                            : (n.integer >= 0 &&
                               (sizeof(T) == 8 ||
                                n.integer <= static_cast<int64_t>(std::numeric_limits<T>::max())));
      if (!fits) {
        throw InvalidArgumentError(fmt::format("{}: integer \"{}\" {} is out of range for dtype {}",
                                               kWhere, field, n.integer, dtype.name()));
      }
    }
  });
}

}  // namespace

NumcodecsFixedScaleOffsetCodec::NumcodecsFixedScaleOffsetCodec(Number offset, Number scale,
                                                               DataType dtype, DataType astype)
    : offset_(offset), scale_(scale), dtype_(dtype), astype_(astype) {
  visit_real_type(dtype_, kWhere, [](auto) {});
  visit_real_type(astype_, kWhere, [](auto) {});
  if (dtype_.kind() == DataTypeKind::boolean)
    throw UnsupportedError(fmt::format("{}: \"dtype\" bool is not supported", kWhere));
  check_integer_operand(offset_, dtype_, "offset");
  check_integer_operand(scale_, dtype_, "scale");
}

std::shared_ptr<NumcodecsFixedScaleOffsetCodec> NumcodecsFixedScaleOffsetCodec::create(
    const nlohmann::json& configuration, const ChunkRepresentation& decoded) {
  CodecConfiguration config(kName, configuration, {"offset", "scale", "dtype", "astype"});
  const Number offset = number_field(config, "offset");
  const Number scale = number_field(config, "scale");
  const DataType dtype = dtype_field(config, "dtype", decoded.data_type);
  if (dtype != decoded.data_type) {
    throw InvalidArgumentError(fmt::format("{}\"dtype\" {} differs from the chunk's data type {}",
                                           config.prefix(), dtype.name(),
                                           decoded.data_type.name()));
  }
  return std::make_shared<NumcodecsFixedScaleOffsetCodec>(offset, scale, dtype,
                                                          dtype_field(config, "astype", dtype));
}

nlohmann::json NumcodecsFixedScaleOffsetCodec::to_json() const {
  auto number = [](const Number& n) {
    return n.is_integer ? nlohmann::json(n.integer) : nlohmann::json(n.real);
  };
  return {{"name", kName},
          {"configuration",
           {{"offset", number(offset_)},
            {"scale", number(scale_)},
            {"dtype", numpy_dtype_string(dtype_)},
            {"astype", numpy_dtype_string(astype_)}}}};
}

void NumcodecsFixedScaleOffsetCodec::encode_elements(const std::byte* src, std::byte* dst,
                                                     size_t count) const {
  visit_real_type(dtype_, kWhere, [&](auto t) {
    using T = decltype(t);
    visit_real_type(astype_, kWhere, [&](auto a) {
      using A = decltype(a);
      if constexpr (!std::is_same_v<T, bool>) {
        for (size_t k = 0; k < count; ++k) {
          store_element<A>(dst + k * sizeof(A),
                           encode_one<T, A>(load_element<T>(src + k * sizeof(T)), offset_, scale_));
        }
      }
    });
  });
}

void NumcodecsFixedScaleOffsetCodec::decode_elements(const std::byte* src, std::byte* dst,
                                                     size_t count) const {
  visit_real_type(dtype_, kWhere, [&](auto t) {
    using T = decltype(t);
    visit_real_type(astype_, kWhere, [&](auto a) {
      using A = decltype(a);
      for (size_t k = 0; k < count; ++k) {
        store_element<T>(dst + k * sizeof(T),
                         decode_one<T, A>(load_element<A>(src + k * sizeof(A)), offset_, scale_));
      }
    });
  });
}

ChunkRepresentation NumcodecsFixedScaleOffsetCodec::encoded_representation(
    const ChunkRepresentation& decoded) const {
  ChunkRepresentation encoded{decoded.shape, astype_, std::vector<std::byte>(astype_.size())};
  if (decoded.fill_value.size() == dtype_.size())
    encode_elements(decoded.fill_value.data(), encoded.fill_value.data(), 1);
  return encoded;
}

void NumcodecsFixedScaleOffsetCodec::encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                            const ChunkRepresentation& decoded,
                                            std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.fixedscaleoffset", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, dtype_, "encode");
    const NDBuffer src = c_ordered(in[i]);
    NDBuffer dst = NDBuffer::allocate(astype_, decoded.shape);
    encode_elements(src.data(), dst.data(), static_cast<size_t>(src.size()));
    out[i] = dst;
  });
}

void NumcodecsFixedScaleOffsetCodec::decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                            const ChunkRepresentation& decoded,
                                            std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.fixedscaleoffset", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, astype_, "decode");
    const NDBuffer src = c_ordered(in[i]);
    NDBuffer dst = NDBuffer::allocate(dtype_, decoded.shape);
    decode_elements(src.data(), dst.data(), static_cast<size_t>(src.size()));
    out[i] = dst;
  });
}

}  // namespace cuzarr
