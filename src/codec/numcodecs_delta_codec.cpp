#include "cuzarr/codec/numcodecs_delta_codec.hpp"

#include <fmt/format.h>

#include <type_traits>

#include "codec/element_cast.hpp"
#include "codec/numcodecs_filter_support.hpp"
#include "codec/numpy_dtype.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr const char* kName = "numcodecs.delta";
const std::string kWhere = "codec \"numcodecs.delta\"";

// numpy arithmetic in T: integers wrap modulo 2^bits; float16 is computed in float and rounded
// back to half after each operation.
template <class T>
T subtract(T a, T b) {
  if constexpr (std::is_same_v<T, Half>) {
    return convert<Half>(half_bits_to_float(a.bits) - half_bits_to_float(b.bits));
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <class T>
T add(T a, T b) {
  if constexpr (std::is_same_v<T, Half>) {
    return convert<Half>(half_bits_to_float(a.bits) + half_bits_to_float(b.bits));
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

// The running sum of decode: dst[k] = src[0] + ... + src[k], np.cumsum in T (elements of A
// converted to T), continuing `sum` across calls (`first`: nothing summed yet). src and dst may
// be the same bytes when A is T: each element is read before its sum is written there.
template <class T, class A>
void running_sum(const std::byte* src, std::byte* dst, size_t n, T& sum, bool& first) {
  size_t k = 0;
  if (first && n > 0) {  // dec[0] = enc[0]
    sum = convert<T>(load_element<A>(src));
    store_element<T>(dst, sum);
    first = false;
    k = 1;
  }
  for (; k < n; ++k) {
    sum = add(sum, convert<T>(load_element<A>(src + k * sizeof(A))));
    store_element<T>(dst + k * sizeof(T), sum);
  }
}

}  // namespace

NumcodecsDeltaCodec::NumcodecsDeltaCodec(DataType dtype, DataType astype)
    : dtype_(dtype), astype_(astype) {
  visit_real_type(dtype_, kWhere, [](auto) {});
  visit_real_type(astype_, kWhere, [](auto) {});
  if (dtype_.kind() == DataTypeKind::boolean) {
    throw InvalidArgumentError(
        "codec \"numcodecs.delta\": \"dtype\" bool has no difference (numpy cannot subtract "
        "bools)");
  }
}

std::shared_ptr<NumcodecsDeltaCodec> NumcodecsDeltaCodec::create(
    const nlohmann::json& configuration, const ChunkRepresentation& decoded) {
  CodecConfiguration config(kName, configuration, {"dtype", "astype"});
  const DataType dtype = dtype_field(config, "dtype", decoded.data_type);
  if (dtype != decoded.data_type) {
    throw InvalidArgumentError(fmt::format("{}\"dtype\" {} differs from the chunk's data type {}",
                                           config.prefix(), dtype.name(),
                                           decoded.data_type.name()));
  }
  return std::make_shared<NumcodecsDeltaCodec>(dtype, dtype_field(config, "astype", dtype));
}

nlohmann::json NumcodecsDeltaCodec::to_json() const {
  return {{"name", kName},
          {"configuration",
           {{"dtype", numpy_dtype_string(dtype_)}, {"astype", numpy_dtype_string(astype_)}}}};
}

ChunkRepresentation NumcodecsDeltaCodec::encoded_representation(
    const ChunkRepresentation& decoded) const {
  ChunkRepresentation encoded{decoded.shape, astype_, std::vector<std::byte>(astype_.size())};
  if (decoded.fill_value.size() == dtype_.size()) {
    cast_elements(decoded.fill_value.data(), dtype_, encoded.fill_value.data(), astype_, 1, kWhere);
  }
  return encoded;
}

void NumcodecsDeltaCodec::encode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                 const ChunkRepresentation& decoded,
                                 std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.delta", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, dtype_, "encode");
    const NDBuffer src = c_ordered(in[i]);
    NDBuffer dst = NDBuffer::allocate(astype_, decoded.shape);
    const auto n = static_cast<size_t>(src.size());
    visit_real_type(dtype_, kWhere, [&](auto t) {
      using T = decltype(t);
      visit_real_type(astype_, kWhere, [&](auto a) {
        using A = decltype(a);
        if constexpr (!std::is_same_v<T, bool>) {
          T previous{};
          for (size_t k = 0; k < n; ++k) {
            const T value = load_element<T>(src.data() + k * sizeof(T));
            // enc[0] = arr[0]; enc[k] = arr[k] - arr[k - 1] (np.diff), cast to astype.
            store_element<A>(dst.data() + k * sizeof(A),
                             convert<A>(k == 0 ? value : subtract(value, previous)));
            previous = value;
          }
        }
      });
    });
    out[i] = dst;
  });
}

void NumcodecsDeltaCodec::decode(std::span<const NDBuffer> in, std::span<NDBuffer> out,
                                 const ChunkRepresentation& decoded,
                                 std::span<ChunkStatus> status) const {
  check_batch_sizes("numcodecs.delta", in.size(), out.size(), status.size());
  for_each_chunk(status, [&](size_t i) {
    require_filter_input(kName, in[i], decoded.shape, astype_, "decode");
    const NDBuffer src = c_ordered(in[i]);
    NDBuffer dst = NDBuffer::allocate(dtype_, decoded.shape);
    const auto n = static_cast<size_t>(src.size());
    visit_real_type(dtype_, kWhere, [&](auto t) {
      using T = decltype(t);
      visit_real_type(astype_, kWhere, [&](auto a) {
        using A = decltype(a);
        if constexpr (!std::is_same_v<T, bool>) {
          // np.cumsum(enc, out=dec) accumulates in the output's type, dtype.
          T sum{};
          bool first = true;
          running_sum<T, A>(src.data(), dst.data(), n, sum, first);
        }
      });
    });
    out[i] = dst;
  });
}

void NumcodecsDeltaCodec::decode_in_place(std::span<const std::span<std::byte>> runs) const {
  if (dtype_ != astype_) {
    throw UnsupportedError(
        fmt::format("{}: decoding in place needs \"astype\" {} to equal "
                    "\"dtype\" {}",
                    kWhere, astype_.name(), dtype_.name()));
  }
  visit_real_type(dtype_, kWhere, [&](auto t) {
    using T = decltype(t);
    if constexpr (!std::is_same_v<T, bool>) {
      T sum{};
      bool first = true;
      for (const std::span<std::byte> run : runs)
        running_sum<T, T>(run.data(), run.data(), run.size() / sizeof(T), sum, first);
    }
  });
}

}  // namespace cuzarr
