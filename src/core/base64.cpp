#include "cuzarr/core/base64.hpp"

#include <fmt/format.h>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int digit_value(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t group = 0;
    for (size_t k = 0; k < 3; ++k)
      group = (group << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (size_t k = 0; k < 4; ++k)
      out.push_back(k <= n ? kAlphabet[(group >> (18 - 6 * k)) & 0x3F] : '=');
  }
  return out;
}

std::string base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) {
    throw InvalidArgumentError(
        fmt::format("base64 text of {} characters (expected a multiple of 4)", text.size()));
  }
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t group = 0;
    size_t padding = 0;
    for (size_t k = 0; k < 4; ++k) {
      const char c = text[i + k];
      int v = 0;
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        ++padding;
      } else if (padding > 0 || (v = digit_value(c)) < 0) {
        throw InvalidArgumentError(
            fmt::format("invalid base64 character '{}' at offset {}", c, i + k));
      }
      group = (group << 6) | static_cast<uint32_t>(v);
    }
    for (size_t k = 0; k < 3 - padding; ++k)
      out.push_back(static_cast<char>((group >> (16 - 8 * k)) & 0xFF));
  }
  return out;
}

}  // namespace cuzarr
