#include "cuzarr/core/bfloat16.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

namespace cuzarr {

float bfloat16_bits_to_float(uint16_t bits) noexcept {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t double_to_bfloat16_bits(double value) noexcept {
  if (std::isnan(value)) return std::signbit(value) ? 0xFFC0 : kBfloat16CanonicalNan;
  // Round once from double: find the two neighbouring bfloat16 values by truncating the float
  // nearest below in magnitude, then compare exactly in double.
  const double magnitude = std::fabs(value);
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  float truncated = static_cast<float>(magnitude);
  if (static_cast<double>(truncated) > magnitude)
    truncated = std::nextafter(truncated, 0.0f);  // float rounding went up: step back
  uint16_t low = static_cast<uint16_t>(std::bit_cast<uint32_t>(truncated) >> 16);
  if (low >= 0x7F80) return sign | 0x7F80;  // infinity (or beyond the largest finite)
  const double below = static_cast<double>(bfloat16_bits_to_float(low));
  // Above the largest finite (0x7F7F) the next step is 2^128, which rounds to infinity.
  const double above =
      low == 0x7F7F ? std::ldexp(1.0, 128)
                    : static_cast<double>(bfloat16_bits_to_float(static_cast<uint16_t>(low + 1)));
  uint16_t result = low;
  if (magnitude - below > above - magnitude ||
      (magnitude - below == above - magnitude && (low & 1) != 0)) {
    result = static_cast<uint16_t>(low + 1);  // may become 0x7F80: overflow to infinity
  }
  return sign | result;
}

}  // namespace cuzarr
