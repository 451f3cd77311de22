// numpy data type strings as numcodecs configurations hold them ("<i4", "|u1", "int32",
// "float64", "bool", ...), mapped to cuzarr data types.
#pragma once

#include <string>
#include <string_view>

#include "cuzarr/core/data_type.hpp"

namespace cuzarr {

/// Parses a numpy dtype string: a type code with size ("i4", "u1", "f8", "b1", "c16"), optionally
/// after a byte-order character ("<", "=", "|", or ">" for one-byte types), or a numpy type name
/// ("int32", "float64", "bool", ...). `where` (codec and field) prefixes errors. Throws
/// InvalidArgumentError for unknown strings and UnsupportedError for big-endian multi-byte types.
DataType parse_numpy_dtype(std::string_view text, const std::string& where);
/// numpy's dtype.str for `type` on a little-endian host: "<i4", "|u1", "|b1", "<f8", ...
std::string numpy_dtype_string(const DataType& type);

}  // namespace cuzarr
