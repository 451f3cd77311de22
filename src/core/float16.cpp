#include "cuzarr/core/float16.hpp"

#include <bit>

namespace cuzarr {
namespace {

// Rounds a binary floating point value, given as sign, unbiased exponent and a mantissa with
// `mantissa_bits` fraction bits plus the implicit leading one, to binary16 (ties to even).
uint16_t round_to_half(uint16_t sign, int exponent, uint64_t mantissa, int mantissa_bits) noexcept {
  // Half: 5 exponent bits (bias 15), 10 fraction bits; normals have exponent -14..15.
  if (exponent > 15) return static_cast<uint16_t>(sign | 0x7C00u);
  // Number of low bits of `mantissa` to drop so that 10 fraction bits remain (more for subnormals,
  // whose exponent is pinned at -14).
  int shift = mantissa_bits - 10;
  if (exponent < -14) shift += -14 - exponent;
  if (shift > mantissa_bits + 1) return sign;  // below half the smallest subnormal: rounds to zero
  uint64_t kept = mantissa >> shift;
  const uint64_t dropped = mantissa & ((uint64_t{1} << shift) - 1);
  const uint64_t halfway = uint64_t{1} << (shift - 1);
  if (dropped > halfway || (dropped == halfway && (kept & 1u))) ++kept;
  // `kept` holds the implicit bit at position 10 for normals (0 for subnormals). Adding the biased
  // exponent (minus one for the implicit bit) lets a carry out of the mantissa bump the exponent,
  // including subnormal -> smallest normal and largest normal -> infinity.
  const int biased = exponent < -14 ? 0 : exponent + 15 - 1;
  const uint64_t bits = (static_cast<uint64_t>(biased) << 10) + kept;
  if (bits >= 0x7C00u) return static_cast<uint16_t>(sign | 0x7C00u);
  return static_cast<uint16_t>(sign | bits);
}

}  // namespace

float half_bits_to_float(uint16_t bits) noexcept {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  uint32_t fraction = bits & 0x3FFu;
  if (exponent == 0x1F) {  // infinity or NaN: keep the payload in the top fraction bits
    return std::bit_cast<float>(sign | 0x7F800000u | (fraction << 13));
  }
  if (exponent == 0) {
    if (fraction == 0) return std::bit_cast<float>(sign);
    // Subnormal half: normalise into a float.
    int e = -14;
    while ((fraction & 0x400u) == 0) {
      fraction <<= 1;
      --e;
    }
    fraction &= 0x3FFu;
    return std::bit_cast<float>(sign | (static_cast<uint32_t>(e + 127) << 23) | (fraction << 13));
  }
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (fraction << 13));
}

uint16_t float_to_half_bits(float value) noexcept {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t exponent = (bits >> 23) & 0xFFu;
  const uint32_t fraction = bits & 0x7FFFFFu;
  if (exponent == 0xFF) {
    if (fraction == 0) return static_cast<uint16_t>(sign | 0x7C00u);
    uint16_t payload = static_cast<uint16_t>(fraction >> 13);
    if (payload == 0) payload = 0x200u;  // keep it a NaN
    return static_cast<uint16_t>(sign | 0x7C00u | payload);
  }
  if (exponent == 0) return sign;  // float subnormals are far below the half range
  return round_to_half(sign, static_cast<int>(exponent) - 127, fraction | 0x800000u, 23);
}

uint16_t double_to_half_bits(double value) noexcept {
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 48) & 0x8000u);
  const uint64_t exponent = (bits >> 52) & 0x7FFu;
  const uint64_t fraction = bits & 0xFFFFFFFFFFFFFull;
  if (exponent == 0x7FF) {
    if (fraction == 0) return static_cast<uint16_t>(sign | 0x7C00u);
    uint16_t payload = static_cast<uint16_t>(fraction >> 42);
    if (payload == 0) payload = 0x200u;
    return static_cast<uint16_t>(sign | 0x7C00u | payload);
  }
  if (exponent == 0) return sign;
  return round_to_half(sign, static_cast<int>(exponent) - 1023, fraction | (uint64_t{1} << 52), 52);
}

}  // namespace cuzarr
