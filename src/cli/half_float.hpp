// IEEE 754 binary16 ("half", Zarr float16) <-> float conversions for printing values.
#pragma once

#include <cstdint>

namespace cuzarr::cli {

/// The value of the binary16 bit pattern `bits` (exact: every half is a float).
float half_to_float(uint16_t bits);
/// The binary16 nearest to `value` (round to nearest, ties to even; overflow gives infinity).
uint16_t float_to_half(float value);

}  // namespace cuzarr::cli
