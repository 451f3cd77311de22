// What the numcodecs array filters (delta, fixedscaleoffset, quantize, astype, bitround,
// packbits) share: checking the arrays they are given and reading their data type fields.
// numcodecs flattens each chunk in C order ("reshape(-1, order='A')" of a C-ordered chunk), so
// the filters run over the elements in C order.
#pragma once

#include <string>

#include "codec/codec_configuration.hpp"
#include "cuzarr/codec/chunk_representation.hpp"
#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr {

/// Throws InvalidArgumentError naming `codec` unless `array` is host-accessible with `shape` and
/// `dtype`; `direction` is "encode" or "decode".
void require_filter_input(const std::string& codec, const NDBuffer& array, const Shape& shape,
                          const DataType& dtype, const char* direction);
/// `array` itself when it is C-contiguous, else a C-ordered copy.
NDBuffer c_ordered(const NDBuffer& array);
/// The numpy data type in `field` ("<i4", "int32", ...), or `fallback` when it is absent or null.
DataType dtype_field(const CodecConfiguration& config, const char* field, const DataType& fallback);

}  // namespace cuzarr
