#include "cuzarr/metadata/fill_value.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "cuzarr/core/base64.hpp"
#include "cuzarr/core/bfloat16.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/float16.hpp"
#include "cuzarr/core/float8.hpp"
#include "cuzarr/core/interned_bytes.hpp"
#include "cuzarr/core/utf.hpp"

namespace cuzarr {
namespace {

static_assert(std::endian::native == std::endian::little,
              "fill values are stored in host order, which cuzarr assumes is little-endian");

[[noreturn]] void fail(const nlohmann::json& value, const DataType& dtype,
                       std::string_view expected) {
  throw InvalidArgumentError(fmt::format("fill_value {} is not valid for data type {}: expected {}",
                                         value.dump(), dtype.name(), expected));
}

template <typename T>
void append_native(std::vector<std::byte>& out, T value) {
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

template <typename T>
T read_native(std::span<const std::byte> bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

// ---- integers ----------------------------------------------------------------------------------

// v3 core spec, "fill_value": an integer fill value is a JSON number with no fraction or exponent
// part, within the representable range of the type. nlohmann keeps such numbers as
// number_integer / number_unsigned; anything with a fraction or exponent is number_float.
template <typename T>
void append_integer(std::vector<std::byte>& out, const nlohmann::json& value,
                    const DataType& dtype) {
  const auto range = fmt::format("an integer in [{}, {}]", std::numeric_limits<T>::min(),
                                 std::numeric_limits<T>::max());
  if (value.is_number_unsigned()) {
    const auto v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) fail(value, dtype, range);
    append_native(out, static_cast<T>(v));
  } else if (value.is_number_integer()) {
    const auto v = value.get<int64_t>();
    if constexpr (std::is_signed_v<T>) {
      if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
        fail(value, dtype, range);
    } else {
      if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<T>::max())
        fail(value, dtype, range);
    }
    append_native(out, static_cast<T>(v));
  } else {
    fail(value, dtype, range);
  }
}

// ---- floats ------------------------------------------------------------------------------------

// Bit patterns of the canonical NaN: sign 0, exponent all ones, only the most significant
// mantissa bit set (v3 core spec, "fill_value": "NaN" denotes this value).
constexpr uint64_t canonical_nan_bits(size_t size) {
  switch (size) {
    case 2:
      return 0x7E00u;
    case 4:
      return 0x7FC00000u;
    default:
      return 0x7FF8000000000000ull;
  }
}

constexpr uint64_t infinity_bits(size_t size) {
  switch (size) {
    case 2:
      return 0x7C00u;
    case 4:
      return 0x7F800000u;
    default:
      return 0x7FF0000000000000ull;
  }
}

constexpr uint64_t sign_bit(size_t size) { return uint64_t{1} << (size * 8 - 1); }

// A "0x..." string: the float's bit pattern as an unsigned integer, most significant (sign) bit
// first, with exactly two hex digits per byte (v3 core spec, "fill_value", permitted floating
// point encodings; see also zarr-specs issue 279 on its byte order).
bool parse_hex_bits(std::string_view text, size_t size, uint64_t& bits) {
  if (text.size() != 2 + 2 * size || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    return false;
  bits = 0;
  for (char c : text.substr(2)) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return false;
    }
    bits = (bits << 4) | static_cast<uint64_t>(digit);
  }
  return true;
}

// The bit pattern (in the low size*8 bits) of the float of `size` bytes that `value` encodes.
// `whole` and `dtype` are only used in messages (for complex parts they differ from `value`).
uint64_t parse_float_bits(const nlohmann::json& value, size_t size, const nlohmann::json& whole,
                          const DataType& dtype) {
  const auto expected = fmt::format(
      "a number, \"NaN\", \"Infinity\", \"-Infinity\" or a \"0x\" string of {} hex digits",
      2 * size);
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text == "NaN") return canonical_nan_bits(size);
    if (text == "Infinity") return infinity_bits(size);
    if (text == "-Infinity") return infinity_bits(size) | sign_bit(size);
    uint64_t bits = 0;
    if (parse_hex_bits(text, size, bits)) return bits;
    fail(whole, dtype, expected);
  }
  if (!value.is_number()) fail(whole, dtype, expected);
  const double d = value.get<double>();
  const auto out_of_range = [&] {
    fail(whole, dtype, fmt::format("a number within the range of a {}-byte float", size));
  };
  switch (size) {
    case 2: {
      const uint16_t h = double_to_half_bits(d);
      if ((h & 0x7FFFu) == 0x7C00u) out_of_range();
      return h;
    }
    case 4: {
      const auto f = static_cast<float>(d);
      if (std::isinf(f)) out_of_range();
      return std::bit_cast<uint32_t>(f);
    }
    default:
      return std::bit_cast<uint64_t>(d);
  }
}

void append_float_bits(std::vector<std::byte>& out, uint64_t bits, size_t size) {
  switch (size) {
    case 2:
      append_native(out, static_cast<uint16_t>(bits));
      break;
    case 4:
      append_native(out, static_cast<uint32_t>(bits));
      break;
    default:
      append_native(out, bits);
      break;
  }
}

uint64_t read_float_bits(std::span<const std::byte> bytes, size_t offset, size_t size) {
  switch (size) {
    case 2:
      return read_native<uint16_t>(bytes, offset);
    case 4:
      return read_native<uint32_t>(bytes, offset);
    default:
      return read_native<uint64_t>(bytes, offset);
  }
}

double float_bits_to_double(uint64_t bits, size_t size) {
  switch (size) {
    case 2:
      return static_cast<double>(half_bits_to_float(static_cast<uint16_t>(bits)));
    case 4:
      return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    default:
      return std::bit_cast<double>(bits);
  }
}

nlohmann::json float_to_json(uint64_t bits, size_t size) {
  const uint64_t magnitude = bits & ~sign_bit(size);
  const uint64_t inf = infinity_bits(size);
  if (magnitude > inf) {  // NaN: "NaN" only for the canonical pattern, otherwise the exact bits
    if (bits == canonical_nan_bits(size)) return "NaN";
    return fmt::format("0x{:0{}x}", bits, 2 * size);
  }
  if (magnitude == inf) return (bits & sign_bit(size)) ? "-Infinity" : "Infinity";
  return float_bits_to_double(bits, size);
}

// ---- extension types ---------------------------------------------------------------------------

// bfloat16 and the float8 kinds take the IEEE encodings (numbers, "NaN", "Infinity",
// "-Infinity", "0x" bit patterns), as tensorstore writes them. "NaN" is the pattern ml_dtypes
// gives NaN; the float8 kinds without infinity store +-Infinity as NaN, as ml_dtypes converts.
uint64_t parse_extension_float_bits(const nlohmann::json& value, const DataType& dtype) {
  const size_t size = dtype.size();
  const bool is_bf16 = dtype.kind() == DataTypeKind::bfloat16;
  const auto convert = [&](double d) -> uint64_t {
    return is_bf16 ? double_to_bfloat16_bits(d) : double_to_float8_bits(d, dtype.kind());
  };
  const auto expected = fmt::format(
      "a number, \"NaN\", \"Infinity\", \"-Infinity\" or a \"0x\" string of {} hex digits",
      2 * size);
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text == "NaN")
      return is_bf16 ? kBfloat16CanonicalNan : float8_canonical_nan_bits(dtype.kind());
    if (text == "Infinity") return convert(std::numeric_limits<double>::infinity());
    if (text == "-Infinity") return convert(-std::numeric_limits<double>::infinity());
    uint64_t bits = 0;
    if (parse_hex_bits(text, size, bits)) return bits;
    fail(value, dtype, expected);
  }
  if (!value.is_number()) fail(value, dtype, expected);
  const double d = value.get<double>();
  const uint64_t bits = convert(d);
  const double back = is_bf16
                          ? static_cast<double>(bfloat16_bits_to_float(static_cast<uint16_t>(bits)))
                          : float8_bits_to_double(static_cast<uint8_t>(bits), dtype.kind());
  if (!std::isfinite(back)) fail(value, dtype, "a number within the range of the type");
  return bits;
}

nlohmann::json extension_float_to_json(uint64_t bits, const DataType& dtype) {
  const bool is_bf16 = dtype.kind() == DataTypeKind::bfloat16;
  const double d = is_bf16
                       ? static_cast<double>(bfloat16_bits_to_float(static_cast<uint16_t>(bits)))
                       : float8_bits_to_double(static_cast<uint8_t>(bits), dtype.kind());
  if (std::isnan(d)) {
    const uint64_t canonical =
        is_bf16 ? kBfloat16CanonicalNan : float8_canonical_nan_bits(dtype.kind());
    if (bits == canonical) return "NaN";
    return fmt::format("0x{:0{}x}", bits, 2 * dtype.size());
  }
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  return d;
}

std::string_view json_string(const nlohmann::json& value, const DataType& dtype,
                             std::string_view expected) {
  if (!value.is_string()) fail(value, dtype, expected);
  return value.get_ref<const std::string&>();
}

std::string decode_base64_fill(const nlohmann::json& value, const DataType& dtype) {
  const auto text = json_string(value, dtype, "a base64 string");
  try {
    return base64_decode(text);
  } catch (const InvalidArgumentError& e) {
    fail(value, dtype, fmt::format("a base64 string ({})", e.what()));
  }
}

// zarr-python 3: a fixed_length_utf32 fill value is the string itself, at most length_bytes / 4
// code points, zero padded (numpy "<U").
void append_utf32(std::vector<std::byte>& out, const nlohmann::json& value, const DataType& dtype) {
  const size_t capacity = dtype.length_bytes() / 4;
  const auto expected = fmt::format("a string of at most {} characters", capacity);
  const auto code_points = utf8_to_utf32(json_string(value, dtype, expected));
  if (code_points.size() > capacity) fail(value, dtype, expected);
  for (char32_t cp : code_points) append_native(out, static_cast<uint32_t>(cp));
  out.resize(dtype.size(), std::byte{0});
}

// A byte string's bytes: numpy "|S" values end at the first trailing zero byte.
std::string trimmed_bytes(std::span<const std::byte> value) {
  size_t n = value.size();
  while (n > 0 && value[n - 1] == std::byte{0}) --n;
  return std::string(reinterpret_cast<const char*>(value.data()), n);
}

void append_interned(std::vector<std::byte>& out, std::string_view bytes) {
  append_native(out, intern_bytes(bytes));
}

}  // namespace

std::vector<std::byte> parse_fill_value(const nlohmann::json& value, const DataType& dtype) {
  std::vector<std::byte> out;
  out.reserve(dtype.size());
  switch (dtype.kind()) {
    case DataTypeKind::boolean:
      if (!value.is_boolean()) fail(value, dtype, "true or false");
      out.push_back(std::byte{value.get<bool>() ? uint8_t{1} : uint8_t{0}});
      break;
    case DataTypeKind::int8:
      append_integer<int8_t>(out, value, dtype);
      break;
    case DataTypeKind::int16:
      append_integer<int16_t>(out, value, dtype);
      break;
    case DataTypeKind::int32:
      append_integer<int32_t>(out, value, dtype);
      break;
    case DataTypeKind::int64:
      append_integer<int64_t>(out, value, dtype);
      break;
    case DataTypeKind::uint8:
      append_integer<uint8_t>(out, value, dtype);
      break;
    case DataTypeKind::uint16:
      append_integer<uint16_t>(out, value, dtype);
      break;
    case DataTypeKind::uint32:
      append_integer<uint32_t>(out, value, dtype);
      break;
    case DataTypeKind::uint64:
      append_integer<uint64_t>(out, value, dtype);
      break;
    case DataTypeKind::float16:
    case DataTypeKind::float32:
    case DataTypeKind::float64:
      append_float_bits(out, parse_float_bits(value, dtype.size(), value, dtype), dtype.size());
      break;
    case DataTypeKind::complex64:
    case DataTypeKind::complex128: {
      // v3 core spec: a complex fill value is [real, imaginary], each in a float encoding.
      if (!value.is_array() || value.size() != 2) {
        fail(value, dtype,
             "a [real, imaginary] pair, each a number, \"NaN\", \"Infinity\", \"-Infinity\" or "
             "\"0x\" hex");
      }
      const size_t part = dtype.size() / 2;
      for (const auto& component : value) {
        append_float_bits(out, parse_float_bits(component, part, value, dtype), part);
      }
      break;
    }
    case DataTypeKind::raw: {
      // v3 core spec: an r<N> fill value is an array of N/8 integers in [0, 255], one per byte.
      const auto expected = fmt::format("an array of {} integers in [0, 255]", dtype.size());
      if (!value.is_array() || value.size() != dtype.size()) fail(value, dtype, expected);
      for (const auto& byte : value) {
        if (!byte.is_number_integer()) fail(value, dtype, expected);
        const auto v = byte.get<int64_t>();
        if (v < 0 || v > 255 || (byte.is_number_unsigned() && byte.get<uint64_t>() > 255)) {
          fail(value, dtype, expected);
        }
        out.push_back(static_cast<std::byte>(v));
      }
      break;
    }
    case DataTypeKind::bfloat16:
      append_native(out, static_cast<uint16_t>(parse_extension_float_bits(value, dtype)));
      break;
    case DataTypeKind::float8_e4m3fn:
    case DataTypeKind::float8_e4m3fnuz:
    case DataTypeKind::float8_e4m3b11fnuz:
    case DataTypeKind::float8_e5m2:
    case DataTypeKind::float8_e5m2fnuz:
      out.push_back(static_cast<std::byte>(parse_extension_float_bits(value, dtype)));
      break;
    case DataTypeKind::datetime64:
    case DataTypeKind::timedelta64:
      // zarr-extensions numpy.datetime64 / timedelta64: an int64 count, or "NaT" (the smallest
      // int64, which zarr-python writes as a number).
      if (value.is_string() && value.get_ref<const std::string&>() == "NaT") {
        append_native(out, kNotATime);
      } else {
        if (!value.is_number_integer()) fail(value, dtype, "an integer or \"NaT\"");
        append_integer<int64_t>(out, value, dtype);
      }
      break;
    case DataTypeKind::fixed_length_utf32:
      try {
        append_utf32(out, value, dtype);
      } catch (const InvalidArgumentError& e) {
        if (value.is_string()) fail(value, dtype, fmt::format("a valid string ({})", e.what()));
        throw;
      }
      break;
    case DataTypeKind::null_terminated_bytes: {
      // zarr-python 3: base64 of the bytes, at most length_bytes of them, zero padded.
      const auto bytes = decode_base64_fill(value, dtype);
      if (bytes.size() > dtype.size()) {
        fail(value, dtype, fmt::format("base64 of at most {} bytes", dtype.size()));
      }
      const auto* p = reinterpret_cast<const std::byte*>(bytes.data());
      out.insert(out.end(), p, p + bytes.size());
      out.resize(dtype.size(), std::byte{0});
      break;
    }
    case DataTypeKind::raw_bytes: {
      // zarr-python 3: base64 of exactly length_bytes bytes.
      const auto bytes = decode_base64_fill(value, dtype);
      if (bytes.size() != dtype.size())
        fail(value, dtype, fmt::format("base64 of exactly {} bytes", dtype.size()));
      const auto* p = reinterpret_cast<const std::byte*>(bytes.data());
      out.insert(out.end(), p, p + bytes.size());
      break;
    }
    case DataTypeKind::string: {
      // zarr-python 3: the string itself. The element points at interned bytes (the fill value
      // outlives every buffer filled with it).
      const auto text = json_string(value, dtype, "a string");
      append_interned(out, text);
      break;
    }
    case DataTypeKind::variable_length_bytes:
      // zarr-python 3: base64 of the bytes.
      append_interned(out, decode_base64_fill(value, dtype));
      break;
    default:
      throw UnsupportedError(
          fmt::format("fill values of data type {} are not supported", dtype.description()));
  }
  return out;
}

nlohmann::json fill_value_to_json(std::span<const std::byte> value, const DataType& dtype) {
  if (value.size() != dtype.size()) {
    throw InvalidArgumentError(fmt::format("fill value of data type {} must be {} bytes, got {}",
                                           dtype.name(), dtype.size(), value.size()));
  }
  switch (dtype.kind()) {
    case DataTypeKind::boolean:
      return value[0] != std::byte{0};
    case DataTypeKind::int8:
      return read_native<int8_t>(value, 0);
    case DataTypeKind::int16:
      return read_native<int16_t>(value, 0);
    case DataTypeKind::int32:
      return read_native<int32_t>(value, 0);
    case DataTypeKind::int64:
      return read_native<int64_t>(value, 0);
    case DataTypeKind::uint8:
      return read_native<uint8_t>(value, 0);
    case DataTypeKind::uint16:
      return read_native<uint16_t>(value, 0);
    case DataTypeKind::uint32:
      return read_native<uint32_t>(value, 0);
    case DataTypeKind::uint64:
      return read_native<uint64_t>(value, 0);
    case DataTypeKind::float16:
    case DataTypeKind::float32:
    case DataTypeKind::float64:
      return float_to_json(read_float_bits(value, 0, dtype.size()), dtype.size());
    case DataTypeKind::complex64:
    case DataTypeKind::complex128: {
      const size_t part = dtype.size() / 2;
      return nlohmann::json::array({float_to_json(read_float_bits(value, 0, part), part),
                                    float_to_json(read_float_bits(value, part, part), part)});
    }
    case DataTypeKind::raw: {
      auto bytes = nlohmann::json::array();
      for (std::byte b : value) bytes.push_back(std::to_integer<unsigned>(b));
      return bytes;
    }
    case DataTypeKind::bfloat16:
      return extension_float_to_json(read_native<uint16_t>(value, 0), dtype);
    case DataTypeKind::float8_e4m3fn:
    case DataTypeKind::float8_e4m3fnuz:
    case DataTypeKind::float8_e4m3b11fnuz:
    case DataTypeKind::float8_e5m2:
    case DataTypeKind::float8_e5m2fnuz:
      return extension_float_to_json(read_native<uint8_t>(value, 0), dtype);
    case DataTypeKind::datetime64:
    case DataTypeKind::timedelta64:
      return read_native<int64_t>(value, 0);
    case DataTypeKind::fixed_length_utf32: {
      std::u32string code_points;
      for (size_t i = 0; i + 4 <= value.size(); i += 4)
        code_points.push_back(static_cast<char32_t>(read_native<uint32_t>(value, i)));
      while (!code_points.empty() && code_points.back() == 0) code_points.pop_back();
      return utf32_to_utf8(code_points);
    }
    case DataTypeKind::null_terminated_bytes:
      return base64_encode(trimmed_bytes(value));
    case DataTypeKind::raw_bytes:
      return base64_encode(
          std::string_view(reinterpret_cast<const char*>(value.data()), value.size()));
    case DataTypeKind::string:
      return std::string(read_native<VariableLengthValue>(value, 0).view());
    case DataTypeKind::variable_length_bytes:
      return base64_encode(read_native<VariableLengthValue>(value, 0).view());
    default:
      break;
  }
  throw UnsupportedError(
      fmt::format("fill values of data type {} are not supported", dtype.description()));
}

}  // namespace cuzarr
