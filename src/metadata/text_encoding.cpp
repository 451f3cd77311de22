#include "text_encoding.hpp"

#include <array>
#include <cstdint>

namespace cuzarr {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_value(char c) {
  const auto pos = kAlphabet.find(c);
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

bool is_scalar_value(char32_t c) { return c <= 0x10FFFF && (c < 0xD800 || c > 0xDFFF); }

}  // namespace

std::string base64_encode(std::span<const std::byte> bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t group = 0;
    for (size_t k = 0; k < 3; ++k)
      group = (group << 8) | (k < n ? std::to_integer<uint32_t>(bytes[i + k]) : 0u);
    for (size_t k = 0; k < 4; ++k) out += k <= n ? kAlphabet[(group >> (18 - 6 * k)) & 0x3F] : '=';
  }
  return out;
}

std::optional<std::vector<std::byte>> base64_decode(std::string_view text) {
  // RFC 4648, section 4: 4 characters encode 3 bytes; a final group of 2 or 3 characters
  // encodes 1 or 2 bytes and is padded with '=' to 4 characters.
  size_t end = text.size();
  if (end % 4 == 0) {
    if (end >= 1 && text[end - 1] == '=') --end;
    if (end >= 1 && text[end - 1] == '=') --end;
  }
  if (end % 4 == 1) return std::nullopt;
  std::vector<std::byte> out;
  out.reserve(end / 4 * 3 + 2);
  uint32_t group = 0;
  int bits = 0;
  for (size_t i = 0; i < end; ++i) {
    const int v = base64_value(text[i]);
    if (v < 0) return std::nullopt;
    group = (group << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::byte>((group >> bits) & 0xFF));
    }
  }
  // The unused low bits of a final partial group must be zero (canonical encoding).
  if (bits > 0 && (group & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

std::optional<std::u32string> utf8_to_code_points(std::string_view text) {
  std::u32string out;
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    size_t length;
    char32_t c;
    if (lead < 0x80) {
      length = 1;
      c = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2;
      c = lead & 0x1F;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3;
      c = lead & 0x0F;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4;
      c = lead & 0x07;
    } else {
      return std::nullopt;
    }
    if (i + length > text.size()) return std::nullopt;
    for (size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return std::nullopt;
      c = (c << 6) | (next & 0x3F);
    }
    // Overlong forms and surrogates are not valid UTF-8 (RFC 3629, section 3).
    static constexpr std::array<char32_t, 5> kMinimum = {0, 0, 0x80, 0x800, 0x10000};
    if (c < kMinimum[length] || !is_scalar_value(c)) return std::nullopt;
    out.push_back(c);
    i += length;
  }
  return out;
}

std::optional<std::string> code_points_to_utf8(std::u32string_view code_points) {
  std::string out;
  for (char32_t c : code_points) {
    if (!is_scalar_value(c)) return std::nullopt;
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

}  // namespace cuzarr
