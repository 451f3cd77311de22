// IEEE 754 binary16 (half precision) <-> binary32/binary64 conversion on raw bit patterns, for
// hosts and compilers without a native half type. Conversions round to nearest, ties to even, and
// keep infinities, signed zeros, subnormals and NaN payloads (as far as the narrower type allows).
#pragma once

#include <cstdint>

namespace cuzarr {

/// The float that the half with bit pattern `bits` represents (exact: every half is a float).
float half_bits_to_float(uint16_t bits) noexcept;
/// The half nearest to `value` (ties to even); overflow gives +-infinity, NaN stays NaN with the
/// top bits of its payload (a payload that would vanish becomes the quiet bit).
uint16_t float_to_half_bits(float value) noexcept;
/// The half nearest to `value`, rounded once from double (no double rounding through float).
uint16_t double_to_half_bits(double value) noexcept;

}  // namespace cuzarr
