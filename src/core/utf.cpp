#include "cuzarr/core/utf.hpp"

#include <fmt/format.h>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

// Decodes the code point at text[i], advancing i; returns false on malformed input (RFC 3629,
// section 4: no overlong forms, no surrogates, nothing past U+10FFFF).
bool next_code_point(std::string_view text, size_t& i, char32_t& out) noexcept {
  const auto lead = static_cast<unsigned char>(text[i]);
  size_t length;
  char32_t cp;
  char32_t minimum;
  if (lead < 0x80) {
    out = lead;
    ++i;
    return true;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, cp = lead & 0x1F, minimum = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, cp = lead & 0x0F, minimum = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, cp = lead & 0x07, minimum = 0x10000;
  } else {
    return false;
  }
  if (text.size() - i < length) return false;
  for (size_t k = 1; k < length; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if ((c & 0xC0) != 0x80) return false;
    cp = (cp << 6) | (c & 0x3F);
  }
  if (cp < minimum || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
  out = cp;
  i += length;
  return true;
}

}  // namespace

std::u32string utf8_to_utf32(std::string_view text) {
  std::u32string result;
  result.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char32_t cp;
    const size_t at = i;
    if (!next_code_point(text, i, cp))
      throw InvalidArgumentError(fmt::format("malformed UTF-8 at byte {}", at));
    result.push_back(cp);
  }
  return result;
}

std::string utf32_to_utf8(std::u32string_view code_points) {
  std::string result;
  result.reserve(code_points.size());
  for (char32_t cp : code_points) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      throw InvalidArgumentError(
          fmt::format("U+{:X} is not a Unicode scalar value", static_cast<uint32_t>(cp)));
    }
    if (cp < 0x80) {
      result.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      result.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      result.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      result.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      result.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      result.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      result.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      result.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      result.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      result.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  return result;
}

bool is_valid_utf8(std::string_view text) noexcept {
  size_t i = 0;
  char32_t cp;
  while (i < text.size()) {
    if (!next_code_point(text, i, cp)) return false;
  }
  return true;
}

}  // namespace cuzarr
