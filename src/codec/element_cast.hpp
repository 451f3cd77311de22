// numpy-style element types and casts for the numcodecs array filters: a visitor over the real
// data types (bool, integers, float16/32/64) and conversions with the semantics of numpy's
// ndarray.astype (C casts; float16 rounds to nearest even).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "cuzarr/core/data_type.hpp"
#include "cuzarr/core/float16.hpp"

namespace cuzarr {

/// A binary16 value by its bit pattern.
struct Half {
  uint16_t bits = 0;
};

template <class T>
inline constexpr bool is_real_v = std::is_floating_point_v<T> || std::is_same_v<T, Half>;

/// The value of `v` as a double (exact for every type but 64-bit integers beyond 2^53).
template <class S>
double to_double(S v) {
  if constexpr (std::is_same_v<S, Half>) {
    return half_bits_to_float(v.bits);
  } else {
    return static_cast<double>(v);
  }
}

/// numpy's cast of one element from S to D. Floats that are NaN or outside the target integer
/// range give the target's minimum (what x86 conversions give; numpy leaves it unspecified).
template <class D, class S>
D convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (std::is_same_v<S, Half>) {
    return convert<D>(half_bits_to_float(v.bits));
  } else if constexpr (std::is_same_v<D, Half>) {
    if constexpr (std::is_same_v<S, float>)
      return Half{float_to_half_bits(v)};
    else
      return Half{double_to_half_bits(static_cast<double>(v))};
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != S{};
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) {
    const double d = static_cast<double>(v);
    if (std::isnan(d) || d < -9223372036854775808.0 || d >= 18446744073709551616.0) {
      return std::numeric_limits<D>::min();
    }
    if (d >= 9223372036854775808.0) return static_cast<D>(static_cast<uint64_t>(d));
    return static_cast<D>(static_cast<int64_t>(d));  // truncates toward zero, then wraps
  } else {
    return static_cast<D>(v);  // integer -> integer wraps (C++20), integer -> float rounds
  }
}

template <class T>
T load_element(const std::byte* p) {
  if constexpr (std::is_same_v<T, bool>) {
    return *p != std::byte{0};  // any non-zero byte is true (no invalid bool loads)
  } else {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return v;
  }
}
template <class T>
void store_element(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

/// The C++ type numpy computes T's arithmetic in: float for float16 (rounded back after every
/// operation), T itself for float and double.
template <class T>
using calc_t = std::conditional_t<std::is_same_v<T, Half>, float, T>;

/// `v` rounded to T's precision, as numpy stores the result of one operation on T.
template <class T>
calc_t<T> round_to(calc_t<T> v) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_bits_to_float(float_to_half_bits(v));
  } else {
    return v;
  }
}

/// A real element as its calc_t value.
template <class T>
calc_t<T> to_calc(T v) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_bits_to_float(v.bits);
  } else {
    return v;
  }
}

/// A Python number (int or float) converted to real type T, as numpy converts a scalar operand.
template <class T>
calc_t<T> scalar_to(double value) {
  if constexpr (std::is_same_v<T, Half>) {
    return half_bits_to_float(double_to_half_bits(value));
  } else {
    return static_cast<T>(value);
  }
}

/// Calls f(T{}) with T the C++ type of `type`'s elements (Half for float16). Throws
/// UnsupportedError naming `where` for complex and raw types.
template <class F>
decltype(auto) visit_real_type(const DataType& type, const std::string& where, F&& f);

/// Converts `count` elements of `from` at `src` into `to` at `dst` (numpy astype).
void cast_elements(const std::byte* src, const DataType& from, std::byte* dst, const DataType& to,
                   size_t count, const std::string& where);

[[noreturn]] void throw_unsupported_element_type(const DataType& type, const std::string& where);

template <class F>
decltype(auto) visit_real_type(const DataType& type, const std::string& where, F&& f) {
  switch (type.kind()) {
    case DataTypeKind::boolean:
      return f(bool{});
    case DataTypeKind::int8:
      return f(int8_t{});
    case DataTypeKind::int16:
      return f(int16_t{});
    case DataTypeKind::int32:
      return f(int32_t{});
    case DataTypeKind::int64:
      return f(int64_t{});
    case DataTypeKind::uint8:
      return f(uint8_t{});
    case DataTypeKind::uint16:
      return f(uint16_t{});
    case DataTypeKind::uint32:
      return f(uint32_t{});
    case DataTypeKind::uint64:
      return f(uint64_t{});
    case DataTypeKind::float16:
      return f(Half{});
    case DataTypeKind::float32:
      return f(float{});
    case DataTypeKind::float64:
      return f(double{});
    default:
      throw_unsupported_element_type(type, where);
  }
}

}  // namespace cuzarr
