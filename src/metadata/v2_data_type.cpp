#include "cuzarr/metadata/v2_data_type.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

[[noreturn]] void malformed(std::string_view typestr, std::string_view why) {
  throw InvalidArgumentError(fmt::format("\"{}\" is not a valid Zarr v2 dtype: {}", typestr, why));
}

/// A decimal integer >= 1 spanning all of `text`, or 0 when it is not one.
int64_t positive_integer(std::string_view text) {
  int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 1) return 0;
  return value;
}

DataType numeric_type(char kind, int64_t size, std::string_view typestr) {
  switch (kind) {
    case 'b':
      if (size == 1) return DataType(DataTypeKind::boolean);
      break;
    case 'i':
      if (size == 1) return DataType(DataTypeKind::int8);
      if (size == 2) return DataType(DataTypeKind::int16);
      if (size == 4) return DataType(DataTypeKind::int32);
      if (size == 8) return DataType(DataTypeKind::int64);
      break;
    case 'u':
      if (size == 1) return DataType(DataTypeKind::uint8);
      if (size == 2) return DataType(DataTypeKind::uint16);
      if (size == 4) return DataType(DataTypeKind::uint32);
      if (size == 8) return DataType(DataTypeKind::uint64);
      break;
    case 'f':
      if (size == 2) return DataType(DataTypeKind::float16);
      if (size == 4) return DataType(DataTypeKind::float32);
      if (size == 8) return DataType(DataTypeKind::float64);
      break;
    case 'c':
      if (size == 8) return DataType(DataTypeKind::complex64);
      if (size == 16) return DataType(DataTypeKind::complex128);
      break;
    default:
      malformed(typestr, fmt::format("unknown type character '{}'", kind));
  }
  malformed(typestr, fmt::format("no '{}' type has {} bytes", kind, size));
}

// numpy datetime64 / timedelta64: "M8[<count><unit>]", e.g. "M8[ns]", "m8[10s]".
DataType time_type(char kind, std::string_view rest, std::string_view typestr) {
  if (rest.size() < 4 || rest.substr(0, 2) != "8[" || rest.back() != ']')
    malformed(typestr, "a datetime/timedelta type needs a unit, e.g. \"<M8[ns]\"");
  std::string_view unit = rest.substr(2, rest.size() - 3);
  size_t digits = 0;
  while (digits < unit.size() && unit[digits] >= '0' && unit[digits] <= '9') ++digits;
  int64_t scale = 1;
  if (digits > 0) {
    scale = positive_integer(unit.substr(0, digits));
    if (scale == 0) malformed(typestr, "the unit's multiplier must be a positive integer");
  }
  TimeUnit time_unit;
  try {
    time_unit = parse_time_unit(unit.substr(digits));
  } catch (const InvalidArgumentError&) {
    malformed(typestr, fmt::format("unknown time unit \"{}\"", unit.substr(digits)));
  }
  return DataType::time(kind == 'M' ? DataTypeKind::datetime64 : DataTypeKind::timedelta64,
                        time_unit, scale);
}

}  // namespace

V2DataType parse_v2_data_type(std::string_view typestr) {
  // Zarr v2 spec, "Data type encoding": a byte order character ("<", ">" or "|" for "not
  // applicable"), a type character, and the number of bytes (or, for M8/m8, a unit).
  if (typestr.size() < 2) malformed(typestr, "too short");
  const char order = typestr[0];
  if (order != '<' && order != '>' && order != '|')
    malformed(typestr, "the first character must be '<', '>' or '|'");
  const char kind = typestr[1];
  const std::string_view rest = typestr.substr(2);
  V2DataType result;
  result.big_endian = order == '>';
  if (kind == 'O') {
    if (!rest.empty() && rest != "8") malformed(typestr, "an object type is \"|O\"");
    result.is_object = true;
    return result;
  }
  if (kind == 'M' || kind == 'm') {
    result.data_type = time_type(kind, rest, typestr);
  } else {
    const int64_t size = positive_integer(rest);
    if (size == 0) malformed(typestr, "the size must be a positive integer");
    if (kind == 'U') {
      result.data_type =
          DataType::fixed_length(DataTypeKind::fixed_length_utf32, static_cast<size_t>(size) * 4);
    } else if (kind == 'S') {
      result.data_type =
          DataType::fixed_length(DataTypeKind::null_terminated_bytes, static_cast<size_t>(size));
    } else if (kind == 'V') {
      result.data_type = DataType::fixed_length(DataTypeKind::raw_bytes, static_cast<size_t>(size));
    } else {
      result.data_type = numeric_type(kind, size, typestr);
    }
  }
  if (order == '|' && result.data_type.endian_unit() > 1)
    malformed(typestr, "a multi-byte type needs a byte order, '<' or '>'");
  return result;
}

std::string v2_data_type_string(const DataType& dtype, bool big_endian) {
  const size_t unit = dtype.endian_unit();
  const char order = unit > 1 ? (big_endian ? '>' : '<') : '|';
  const size_t size = dtype.size();
  switch (dtype.kind()) {
    case DataTypeKind::boolean:
      return "|b1";
    case DataTypeKind::int8:
    case DataTypeKind::int16:
    case DataTypeKind::int32:
    case DataTypeKind::int64:
      return fmt::format("{}i{}", order, size);
    case DataTypeKind::uint8:
    case DataTypeKind::uint16:
    case DataTypeKind::uint32:
    case DataTypeKind::uint64:
      return fmt::format("{}u{}", order, size);
    case DataTypeKind::float16:
    case DataTypeKind::float32:
    case DataTypeKind::float64:
      return fmt::format("{}f{}", order, size);
    case DataTypeKind::complex64:
    case DataTypeKind::complex128:
      return fmt::format("{}c{}", order, size);
    case DataTypeKind::raw:
    case DataTypeKind::raw_bytes:
      return fmt::format("|V{}", size);
    case DataTypeKind::null_terminated_bytes:
      return fmt::format("|S{}", size);
    case DataTypeKind::fixed_length_utf32:
      return fmt::format("{}U{}", order, size / 4);
    case DataTypeKind::datetime64:
    case DataTypeKind::timedelta64: {
      const char kind = dtype.kind() == DataTypeKind::datetime64 ? 'M' : 'm';
      const std::string scale =
          dtype.scale_factor() == 1 ? std::string() : std::to_string(dtype.scale_factor());
      return fmt::format("{}{}8[{}{}]", big_endian ? '>' : '<', kind, scale,
                         time_unit_name(dtype.time_unit()));
    }
    case DataTypeKind::string:
    case DataTypeKind::variable_length_bytes:
      return "|O";
    default:
      throw UnsupportedError(
          fmt::format("data type {} cannot be stored in Zarr v2 metadata (numpy has no typestr "
                      "for it)",
                      dtype.description()));
  }
}

}  // namespace cuzarr
