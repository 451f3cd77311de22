// UTF-8 <-> UTF-32 conversion (RFC 3629) for the string data types: fixed_length_utf32 holds
// UTF-32 code units, the JSON of fill values and the string data type hold UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace cuzarr {

/// The code points of `text`. Throws InvalidArgumentError on malformed UTF-8 (overlong forms,
/// surrogates, code points past U+10FFFF, truncated sequences), naming the byte offset.
std::u32string utf8_to_utf32(std::string_view text);
/// The UTF-8 encoding of `code_points`. Throws InvalidArgumentError for a surrogate or a value
/// past U+10FFFF.
std::string utf32_to_utf8(std::u32string_view code_points);
/// True when `text` is well-formed UTF-8.
bool is_valid_utf8(std::string_view text) noexcept;

}  // namespace cuzarr
