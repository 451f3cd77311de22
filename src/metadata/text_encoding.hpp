// Text encodings that Zarr v2 fill values use: base64 (RFC 4648, section 4) for byte strings and
// UTF-8 <-> UTF-32 code points for numpy unicode strings.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cuzarr {

/// Standard base64 with '=' padding.
std::string base64_encode(std::span<const std::byte> bytes);
/// Decodes standard base64 (padding optional); nullopt when `text` is not valid base64.
std::optional<std::vector<std::byte>> base64_decode(std::string_view text);

/// The code points of UTF-8 `text`; nullopt when it is not valid UTF-8.
std::optional<std::u32string> utf8_to_code_points(std::string_view text);
/// UTF-8 of `code_points`; nullopt when one is not a Unicode scalar value.
std::optional<std::string> code_points_to_utf8(std::u32string_view code_points);

}  // namespace cuzarr
