// The 8-bit float formats of the zarr-extensions data types (as ml_dtypes and OCP define them):
// float8_e4m3fn, float8_e4m3fnuz, float8_e4m3b11fnuz, float8_e5m2, float8_e5m2fnuz. Conversions
// on raw bit patterns, rounding to nearest, ties to even.
#pragma once

#include <cstdint>

#include "cuzarr/core/data_type.hpp"

namespace cuzarr {

/// The value of the float8 of kind `kind` with bit pattern `bits` (exact). Throws
/// InvalidArgumentError when `kind` is not a float8 kind.
double float8_bits_to_double(uint8_t bits, DataTypeKind kind);
/// The float8 of kind `kind` nearest to `value` (ties to even). As ml_dtypes: values beyond the
/// largest finite and infinities become infinity (e5m2) or NaN (the kinds without infinity,
/// keeping the sign for e4m3fn); "fnuz" kinds have no negative zero. Throws InvalidArgumentError
/// when `kind` is not a float8 kind.
uint8_t double_to_float8_bits(double value, DataTypeKind kind);
/// The bit pattern numpy/ml_dtypes gives NaN in kind `kind` (0x7F, 0x80 or 0x7E).
uint8_t float8_canonical_nan_bits(DataTypeKind kind);

}  // namespace cuzarr
