// Variable-length elements (the string and variable_length_bytes data types) without raw
// pointers: NDBuffers built from and read back into std::string, and comparison by content.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr {

/// A C-order host NDBuffer of `dtype` (string or variable_length_bytes) with `shape` holding a
/// copy of `values` (C order). The bytes live in one block the buffer keeps alive. Throws
/// InvalidArgumentError when the count does not match the shape or `dtype` is not variable-length.
NDBuffer make_variable_length_ndbuffer(const Shape& shape, const std::vector<std::string>& values,
                                       DataType dtype = DataType(DataTypeKind::string));
/// The elements of a variable-length host NDBuffer (any strides) as strings, in C order. Throws
/// InvalidArgumentError for other data types.
std::vector<std::string> variable_length_to_strings(const NDBuffer& array);
/// True when every element of `array` (variable-length, host) has the bytes `value`.
bool variable_length_holds_only(const NDBuffer& array, std::string_view value);
/// Calls `visit` with each element's bytes (any strides), in C order; host-accessible only.
void for_each_variable_length(const NDBuffer& array,
                              const std::function<void(std::string_view)>& visit);

}  // namespace cuzarr
