// Fill values: JSON <-> the bytes of one element in native (little-endian host) layout, in every
// encoding the v3 core spec allows: numbers, true/false, "NaN", "Infinity", "-Infinity",
// "0x..." hex bit patterns for floats, [re, im] pairs for complex, byte arrays for r<N>; and the
// extension types as zarr-python 3 / tensorstore write them (bfloat16 and float8 like floats,
// datetime integers or "NaT", strings, base64 for byte strings). A string or
// variable_length_bytes fill value is a VariableLengthValue pointing at interned bytes.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "cuzarr/core/data_type.hpp"

namespace cuzarr {

/// Bytes of one element (size dtype.size(), host byte order). Throws InvalidArgumentError when
/// `value` does not fit the data type (out of range, wrong JSON kind, malformed hex).
std::vector<std::byte> parse_fill_value(const nlohmann::json& value, const DataType& dtype);
/// The canonical JSON of a fill value (NaN/Infinity as strings, non-canonical NaN as hex).
nlohmann::json fill_value_to_json(std::span<const std::byte> value, const DataType& dtype);

}  // namespace cuzarr
