// The "data_type" member of v3 array metadata: a bare name for the core types and the
// parameterless extension types ("int16", "bfloat16", "string"), or {"name", "configuration"}
// for the extension types with parameters (zarr-extensions "data-types": numpy.datetime64,
// numpy.timedelta64, fixed_length_utf32, null_terminated_bytes, raw_bytes).
#pragma once

#include <nlohmann/json.hpp>

#include "cuzarr/core/data_type.hpp"

namespace cuzarr {

/// Parses a data_type value. Throws UnsupportedError naming an unknown data type (or a
/// configuration on a type that takes none) and
/// InvalidArgumentError naming the member at fault for a malformed one.
DataType data_type_from_json(const nlohmann::json& value);
/// The JSON zarr-python 3 writes for `dtype` (a string, or an object with its configuration).
nlohmann::json data_type_to_json(const DataType& dtype);

}  // namespace cuzarr
