#include "cuzarr/metadata/v2_fill_value.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "cuzarr/core/base64.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/fill_value.hpp"
#include "text_encoding.hpp"

namespace cuzarr {
namespace {

[[noreturn]] void fail(const nlohmann::json& value, const DataType& dtype,
                       std::string_view expected) {
  // Invalid UTF-8 in a string is shown replaced, not thrown on.
  const auto text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  throw InvalidArgumentError(fmt::format("fill_value {} is not valid for data type {}: expected {}",
                                         text, dtype.description(), expected));
}

/// Zarr v2 writers (zarr-python 2 among them) sometimes store an integral fill value as a float
/// ("0.0"); such values are read as the integer they denote.
nlohmann::json integral_float_as_integer(const nlohmann::json& value) {
  if (!value.is_number_float()) return value;
  const double v = value.get<double>();
  if (std::isfinite(v) && std::trunc(v) == v && std::fabs(v) < 9.2e18)
    return static_cast<int64_t>(v);
  return value;
}

std::vector<std::byte> byte_string(const nlohmann::json& value, const DataType& dtype,
                                   bool exact_length) {
  const auto expected = fmt::format("a base64 string of at most {} bytes", dtype.size());
  if (!value.is_string()) fail(value, dtype, expected);
  std::string text_bytes;
  try {
    text_bytes = base64_decode(value.get_ref<const std::string&>());
  } catch (const InvalidArgumentError&) {
    fail(value, dtype, expected);
  }
  if (text_bytes.size() > dtype.size()) fail(value, dtype, expected);
  if (exact_length && !text_bytes.empty() && text_bytes.size() != dtype.size()) {
    fail(value, dtype, fmt::format("a base64 string of {} bytes", dtype.size()));
  }
  const auto* first = reinterpret_cast<const std::byte*>(text_bytes.data());
  std::vector<std::byte> bytes(first, first + text_bytes.size());
  bytes.resize(dtype.size(), std::byte{0});  // numpy pads byte strings with zeros
  return bytes;
}

std::vector<std::byte> unicode_string(const nlohmann::json& value, const DataType& dtype) {
  const size_t capacity = dtype.size() / 4;
  const auto expected = fmt::format("a string of at most {} characters", capacity);
  if (!value.is_string()) fail(value, dtype, expected);
  auto code_points = utf8_to_code_points(value.get_ref<const std::string&>());
  if (!code_points || code_points->size() > capacity) fail(value, dtype, expected);
  std::vector<std::byte> out(dtype.size(), std::byte{0});
  for (size_t i = 0; i < code_points->size(); ++i) {
    const auto c = static_cast<uint32_t>((*code_points)[i]);
    std::memcpy(out.data() + 4 * i, &c, 4);  // host (little-endian) order
  }
  return out;
}

std::vector<std::byte> time_count(const nlohmann::json& value, const DataType& dtype) {
  int64_t count = 0;
  const auto v = integral_float_as_integer(value);
  if (v.is_string() && v == "NaT") {
    count = kNotATime;
  } else if (v.is_number_integer() &&
             !(v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX})) {
    count = v.get<int64_t>();
  } else {
    fail(value, dtype, "a 64-bit integer (NaT is -9223372036854775808)");
  }
  std::vector<std::byte> out(8);
  std::memcpy(out.data(), &count, 8);
  return out;
}

/// The v3 JSON of a float part, with every NaN written as "NaN" (v2 has no hex bit patterns).
nlohmann::json v2_float(nlohmann::json v3) {
  if (v3.is_string() && v3.get_ref<const std::string&>().rfind("0x", 0) == 0) return "NaN";
  return v3;
}

std::string_view as_text(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::vector<std::byte> trimmed(std::span<const std::byte> bytes, size_t unit) {
  size_t end = bytes.size();
  while (end >= unit) {
    bool zero = true;
    for (size_t k = end - unit; k < end; ++k) zero = zero && bytes[k] == std::byte{0};
    if (!zero) break;
    end -= unit;
  }
  return {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(end)};
}

}  // namespace

std::vector<std::byte> parse_v2_fill_value(const nlohmann::json& value, const DataType& dtype) {
  if (value.is_null()) return std::vector<std::byte>(dtype.size(), std::byte{0});
  switch (dtype.kind()) {
    case DataTypeKind::boolean:
      // zarr-python 2 accepted 0 / 1 as well as false / true.
      if (value.is_number_integer() && (value == 0 || value == 1))
        return {std::byte{static_cast<uint8_t>(value.get<int>())}};
      return parse_fill_value(value, dtype);
    case DataTypeKind::null_terminated_bytes:
      return byte_string(value, dtype, false);
    case DataTypeKind::raw_bytes:
    case DataTypeKind::raw:
      return byte_string(value, dtype, true);
    case DataTypeKind::fixed_length_utf32:
      return unicode_string(value, dtype);
    case DataTypeKind::datetime64:
    case DataTypeKind::timedelta64:
      return time_count(value, dtype);
    case DataTypeKind::string:
    case DataTypeKind::variable_length_bytes:
      // An empty value is the all-zero element (no bytes); other values are left to the model's
      // own fill value parser.
      if (value == "" || value == 0) return std::vector<std::byte>(dtype.size(), std::byte{0});
      return parse_fill_value(value, dtype);
    default:
      if (dtype.is_integer()) return parse_fill_value(integral_float_as_integer(value), dtype);
      return parse_fill_value(value, dtype);
  }
}

nlohmann::json v2_fill_value_to_json(std::span<const std::byte> value, const DataType& dtype) {
  if (value.size() != dtype.size()) {
    throw InvalidArgumentError(fmt::format("fill value of data type {} must be {} bytes, got {}",
                                           dtype.description(), dtype.size(), value.size()));
  }
  switch (dtype.kind()) {
    case DataTypeKind::null_terminated_bytes:
      return base64_encode(as_text(trimmed(value, 1)));
    case DataTypeKind::raw_bytes:
    case DataTypeKind::raw:
      return base64_encode(as_text(value));
    case DataTypeKind::fixed_length_utf32: {
      const auto bytes = trimmed(value, 4);
      std::u32string code_points(bytes.size() / 4, U'\0');
      if (!bytes.empty()) std::memcpy(code_points.data(), bytes.data(), bytes.size());
      auto text = code_points_to_utf8(code_points);
      if (!text) {
        throw InvalidArgumentError(
            fmt::format("fill value of data type {} holds a code point that is not valid Unicode",
                        dtype.description()));
      }
      return *text;
    }
    case DataTypeKind::datetime64:
    case DataTypeKind::timedelta64: {
      int64_t count;
      std::memcpy(&count, value.data(), 8);
      return count;
    }
    case DataTypeKind::string:
    case DataTypeKind::variable_length_bytes: {
      bool zero = true;
      for (auto b : value) zero = zero && b == std::byte{0};
      if (zero) return "";
      return fill_value_to_json(value, dtype);
    }
    case DataTypeKind::float16:
    case DataTypeKind::float32:
    case DataTypeKind::float64:
      return v2_float(fill_value_to_json(value, dtype));
    case DataTypeKind::complex64:
    case DataTypeKind::complex128: {
      auto pair = fill_value_to_json(value, dtype);
      return nlohmann::json::array({v2_float(pair[0]), v2_float(pair[1])});
    }
    default:
      if (dtype.is_extension_float()) {
        throw UnsupportedError(
            fmt::format("fill value of data type {} cannot be stored in Zarr v2 metadata",
                        dtype.description()));
      }
      return fill_value_to_json(value, dtype);
  }
}

}  // namespace cuzarr
