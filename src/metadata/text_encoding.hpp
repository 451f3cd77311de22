// Text encodings that Zarr v2 fill values use for numpy unicode strings: UTF-8 <-> UTF-32 code
// points (byte strings use base64: cuzarr/core/base64.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace cuzarr {

/// The code points of UTF-8 `text`; nullopt when it is not valid UTF-8.
std::optional<std::u32string> utf8_to_code_points(std::string_view text);
/// UTF-8 of `code_points`; nullopt when one is not a Unicode scalar value.
std::optional<std::string> code_points_to_utf8(std::u32string_view code_points);

}  // namespace cuzarr
