// Base64 (RFC 4648, section 4: the standard alphabet with "=" padding), the JSON form of byte
// fill values in zarr-python 3 (null_terminated_bytes, raw_bytes, variable_length_bytes).
#pragma once

#include <string>
#include <string_view>

namespace cuzarr {

/// The padded base64 text of `bytes`.
std::string base64_encode(std::string_view bytes);
/// The bytes `text` encodes. Throws InvalidArgumentError for characters outside the alphabet, a
/// length that is not a multiple of 4, or misplaced padding.
std::string base64_decode(std::string_view text);

}  // namespace cuzarr
