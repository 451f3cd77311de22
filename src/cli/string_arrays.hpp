// Conversions between the variable-length string types and numpy's fixed-length ones, for .npy
// files (which cannot hold variable-length values without pickling).
#pragma once

#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr::cli {

/// A string array as fixed_length_utf32 ("<U") of its longest value, a variable_length_bytes
/// array as null_terminated_bytes ("|S") of its longest value (at least one unit). Like numpy,
/// trailing zero code points or bytes do not survive. Throws InvalidArgumentError for other types
/// and CorruptDataError for malformed UTF-8.
NDBuffer to_fixed_length(const NDBuffer& variable);
/// The reverse: fixed_length_utf32 -> string, null_terminated_bytes -> variable_length_bytes,
/// trailing zeros removed. Throws InvalidArgumentError for other types or invalid code points.
NDBuffer to_variable_length(const NDBuffer& fixed);

}  // namespace cuzarr::cli
