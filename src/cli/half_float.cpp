#include "half_float.hpp"

#include <bit>
#include <cmath>

namespace cuzarr::cli {

float half_to_float(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24.
    float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  uint32_t out;
  if (exponent == 31) {
    out = sign | 0x7f800000u | (mantissa << 13);  // infinity or NaN (payload kept)
  } else {
    out = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(out);
}

uint16_t float_to_half(float value) {
  uint32_t x = std::bit_cast<uint32_t>(value);
  auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  int32_t exponent = static_cast<int32_t>((x >> 23) & 0xffu);
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  int32_t half_exponent = exponent - 127 + 15;
  if (half_exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (half_exponent <= 0) {
    // Subnormal half: the 24-bit significand shifted right, rounded to nearest even.
    if (half_exponent < -10) return sign;
    mantissa |= 0x800000u;
    int shift = 14 - half_exponent;
    uint32_t half_mantissa = mantissa >> shift;
    uint32_t remainder = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (half_mantissa & 1u))) ++half_mantissa;
    return static_cast<uint16_t>(sign | half_mantissa);
  }
  uint32_t half = sign | (static_cast<uint32_t>(half_exponent) << 10) | (mantissa >> 13);
  uint32_t remainder = mantissa & 0x1fffu;
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  if (remainder > 0x1000u || (remainder == 0x1000u && (half & 1u))) ++half;
  return static_cast<uint16_t>(half);
}

}  // namespace cuzarr::cli
