// bfloat16 (the upper half of an IEEE binary32) <-> float / double on raw bit patterns.
#pragma once

#include <cstdint>

namespace cuzarr {

/// The float the bfloat16 with bit pattern `bits` represents (exact).
float bfloat16_bits_to_float(uint16_t bits) noexcept;
/// The bfloat16 nearest to `value` (ties to even; overflow gives infinity; NaN stays a quiet NaN
/// with the sign kept).
uint16_t double_to_bfloat16_bits(double value) noexcept;

/// The canonical NaN of bfloat16 (sign 0, exponent all ones, top mantissa bit).
inline constexpr uint16_t kBfloat16CanonicalNan = 0x7FC0;

}  // namespace cuzarr
