// Zarr v2 fill values (Zarr v2 spec, "fill_value"): JSON <-> the bytes of one element in host
// byte order, in the forms zarr-python writes: numbers, true/false, "NaN" / "Infinity" /
// "-Infinity", [re, im] for complex numbers, base64 strings for "|S" and "|V" types, plain strings
// for "<U" types, int64 counts for datetime64 / timedelta64 (NaT = INT64_MIN).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "cuzarr/core/data_type.hpp"

namespace cuzarr {

/// Bytes of one element (size dtype.size(), host byte order). null means "no fill value" and gives
/// the type's zero. Throws InvalidArgumentError when `value` does not fit the type (out of range,
/// wrong JSON kind, bad base64, a string longer than the type).
std::vector<std::byte> parse_v2_fill_value(const nlohmann::json& value, const DataType& dtype);

/// The v2 JSON of a fill value, as zarr-python writes it (byte strings without their trailing
/// zero padding, unicode strings without trailing NULs, every NaN as "NaN"). Throws
/// UnsupportedError for types Zarr v2 cannot store.
nlohmann::json v2_fill_value_to_json(std::span<const std::byte> value, const DataType& dtype);

}  // namespace cuzarr
