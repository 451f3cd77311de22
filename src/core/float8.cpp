#include "cuzarr/core/float8.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

// How a format spends its special bit patterns.
enum class Specials {
  ieee,  ///< exponent all ones: infinity (mantissa 0) or NaN (e5m2)
  fn,    ///< no infinity; only S.1111.111 is NaN (e4m3fn)
  fnuz,  ///< no infinity, no negative zero; 0x80 is the only NaN
};

struct Format {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Specials specials;
};

Format format_of(DataTypeKind kind) {
  switch (kind) {
    case DataTypeKind::float8_e4m3fn:
      return {4, 3, 7, Specials::fn};
    case DataTypeKind::float8_e4m3fnuz:
      return {4, 3, 8, Specials::fnuz};
    case DataTypeKind::float8_e4m3b11fnuz:
      return {4, 3, 11, Specials::fnuz};
    case DataTypeKind::float8_e5m2:
      return {5, 2, 15, Specials::ieee};
    case DataTypeKind::float8_e5m2fnuz:
      return {5, 2, 16, Specials::fnuz};
    default:
      throw InvalidArgumentError(
          fmt::format("data type kind {} is not a float8 kind", static_cast<int>(kind)));
  }
}

// The largest finite magnitude of `f`.
double max_finite(const Format& f) {
  const int max_exponent_field = (1 << f.exponent_bits) - 1;
  int exponent_field = max_exponent_field;
  int mantissa = (1 << f.mantissa_bits) - 1;
  if (f.specials == Specials::ieee) {
    exponent_field -= 1;
  } else if (f.specials == Specials::fn) {
    mantissa -= 1;  // S.1111.111 is NaN
  }
  return std::ldexp(1.0 + std::ldexp(mantissa, -f.mantissa_bits), exponent_field - f.bias);
}

}  // namespace

uint8_t float8_canonical_nan_bits(DataTypeKind kind) {
  switch (format_of(kind).specials) {
    case Specials::ieee:
      return 0x7E;
    case Specials::fn:
      return 0x7F;
    default:
      return 0x80;
  }
}

double float8_bits_to_double(uint8_t bits, DataTypeKind kind) {
  const Format f = format_of(kind);
  const bool negative = (bits & 0x80) != 0;
  const int exponent_field = (bits & 0x7F) >> f.mantissa_bits;
  const int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  const int max_exponent_field = (1 << f.exponent_bits) - 1;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (f.specials) {
    case Specials::fnuz:
      if (bits == 0x80) return nan;
      break;
    case Specials::fn:
      if ((bits & 0x7F) == 0x7F) return negative ? -nan : nan;
      break;
    case Specials::ieee:
      if (exponent_field == max_exponent_field) {
        if (mantissa != 0) return negative ? -nan : nan;
        return negative ? -std::numeric_limits<double>::infinity()
                        : std::numeric_limits<double>::infinity();
      }
      break;
  }
  const double magnitude = exponent_field == 0
                               ? std::ldexp(mantissa, 1 - f.bias - f.mantissa_bits)  // subnormal
                               : std::ldexp((1 << f.mantissa_bits) + mantissa,
                                            exponent_field - f.bias - f.mantissa_bits);
  return negative ? -magnitude : magnitude;
}

uint8_t double_to_float8_bits(double value, DataTypeKind kind) {
  const Format f = format_of(kind);
  const uint8_t sign = std::signbit(value) ? 0x80 : 0;
  const auto overflow = [&]() -> uint8_t {
    switch (f.specials) {
      case Specials::ieee:
        return static_cast<uint8_t>(sign | (((1 << f.exponent_bits) - 1) << f.mantissa_bits));
      case Specials::fn:
        return static_cast<uint8_t>(sign | 0x7F);
      default:
        return 0x80;
    }
  };
  if (std::isnan(value)) {
    return f.specials == Specials::fnuz
               ? 0x80
               : static_cast<uint8_t>(sign | float8_canonical_nan_bits(kind));
  }
  if (std::isinf(value)) return overflow();
  const double magnitude = std::fabs(value);
  const int min_normal_exponent = 1 - f.bias;
  // The spacing of representable values around `magnitude`; scaling by it is exact in double, and
  // nearbyint rounds to nearest, ties to even (the default rounding mode).
  int exponent = min_normal_exponent;
  if (magnitude >= std::ldexp(1.0, min_normal_exponent)) exponent = std::ilogb(magnitude);
  const double quantum = std::ldexp(1.0, exponent - f.mantissa_bits);
  const double rounded = std::nearbyint(magnitude / quantum) * quantum;
  if (rounded > max_finite(f)) return overflow();
  if (rounded == 0) return f.specials == Specials::fnuz ? 0 : sign;
  int exponent_field = 0;
  int mantissa = 0;
  if (rounded < std::ldexp(1.0, min_normal_exponent)) {
    mantissa = static_cast<int>(std::ldexp(rounded, f.bias - 1 + f.mantissa_bits));
  } else {
    const int e = std::ilogb(rounded);
    exponent_field = e + f.bias;
    mantissa = static_cast<int>(std::ldexp(rounded, f.mantissa_bits - e)) - (1 << f.mantissa_bits);
  }
  return static_cast<uint8_t>(sign | (exponent_field << f.mantissa_bits) | mantissa);
}

}  // namespace cuzarr
