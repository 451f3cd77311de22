#include "cuzarr/core/data_type.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <utility>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

struct NamedKind {
  std::string_view name;
  DataTypeKind kind;
  size_t size;  ///< 0: depends on parameters
};

constexpr std::array<NamedKind, 28> kNamedKinds{{
    {"bool", DataTypeKind::boolean, 1},
    {"int8", DataTypeKind::int8, 1},
    {"int16", DataTypeKind::int16, 2},
    {"int32", DataTypeKind::int32, 4},
    {"int64", DataTypeKind::int64, 8},
    {"uint8", DataTypeKind::uint8, 1},
    {"uint16", DataTypeKind::uint16, 2},
    {"uint32", DataTypeKind::uint32, 4},
    {"uint64", DataTypeKind::uint64, 8},
    {"float16", DataTypeKind::float16, 2},
    {"float32", DataTypeKind::float32, 4},
    {"float64", DataTypeKind::float64, 8},
    {"complex64", DataTypeKind::complex64, 8},
    {"complex128", DataTypeKind::complex128, 16},
    {"r", DataTypeKind::raw, 0},
    {"bfloat16", DataTypeKind::bfloat16, 2},
    {"float8_e4m3fn", DataTypeKind::float8_e4m3fn, 1},
    {"float8_e4m3fnuz", DataTypeKind::float8_e4m3fnuz, 1},
    {"float8_e4m3b11fnuz", DataTypeKind::float8_e4m3b11fnuz, 1},
    {"float8_e5m2", DataTypeKind::float8_e5m2, 1},
    {"float8_e5m2fnuz", DataTypeKind::float8_e5m2fnuz, 1},
    {"numpy.datetime64", DataTypeKind::datetime64, 8},
    {"numpy.timedelta64", DataTypeKind::timedelta64, 8},
    {"fixed_length_utf32", DataTypeKind::fixed_length_utf32, 0},
    {"null_terminated_bytes", DataTypeKind::null_terminated_bytes, 0},
    {"raw_bytes", DataTypeKind::raw_bytes, 0},
    {"string", DataTypeKind::string, sizeof(VariableLengthValue)},
    {"variable_length_bytes", DataTypeKind::variable_length_bytes, sizeof(VariableLengthValue)},
}};

const NamedKind& entry_for(DataTypeKind kind) {
  for (const auto& entry : kNamedKinds) {
    if (entry.kind == kind) return entry;
  }
  throw InvalidArgumentError(fmt::format("invalid data type kind {}", static_cast<int>(kind)));
}

constexpr std::array<std::pair<std::string_view, TimeUnit>, 13> kTimeUnits{{
    {"Y", TimeUnit::Y},
    {"M", TimeUnit::M},
    {"W", TimeUnit::W},
    {"D", TimeUnit::D},
    {"h", TimeUnit::h},
    {"m", TimeUnit::m},
    {"s", TimeUnit::s},
    {"ms", TimeUnit::ms},
    {"us", TimeUnit::us},
    {"ns", TimeUnit::ns},
    {"ps", TimeUnit::ps},
    {"fs", TimeUnit::fs},
    {"as", TimeUnit::as},
}};

}  // namespace

std::string_view time_unit_name(TimeUnit unit) noexcept {
  for (const auto& [name, value] : kTimeUnits) {
    if (value == unit) return name;
  }
  return "?";
}

TimeUnit parse_time_unit(std::string_view name) {
  for (const auto& [text, value] : kTimeUnits) {
    if (text == name) return value;
  }
  throw InvalidArgumentError(fmt::format(
      "unknown time unit \"{}\" (expected one of Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as)",
      name));
}

DataType::DataType(DataTypeKind kind, int raw_bits) : kind_(kind) {
  if (kind == DataTypeKind::raw) {
    if (raw_bits <= 0 || raw_bits % 8 != 0) {
      throw InvalidArgumentError(
          fmt::format("raw data type needs a positive multiple of 8 bits, got {}", raw_bits));
    }
    length_ = static_cast<size_t>(raw_bits);
  } else if (is_fixed_length_bytes()) {
    throw InvalidArgumentError(
        fmt::format("data type {} needs a length in bytes", entry_for(kind).name));
  } else if (is_time()) {
    throw InvalidArgumentError(fmt::format("data type {} needs a time unit", entry_for(kind).name));
  } else {
    entry_for(kind);  // validates the kind
  }
}

DataType DataType::fixed_length(DataTypeKind kind, size_t length_bytes) {
  DataType type;
  type.kind_ = kind;
  if (!type.is_fixed_length_bytes()) {
    throw InvalidArgumentError(
        fmt::format("data type {} has no length parameter", entry_for(kind).name));
  }
  if (length_bytes == 0 || (kind == DataTypeKind::fixed_length_utf32 && length_bytes % 4 != 0)) {
    throw InvalidArgumentError(fmt::format(
        "data type {}: invalid length_bytes {}{}", entry_for(kind).name, length_bytes,
        kind == DataTypeKind::fixed_length_utf32 ? " (expected a positive multiple of 4)"
                                                 : " (expected a positive number)"));
  }
  type.length_ = length_bytes;
  return type;
}

DataType DataType::time(DataTypeKind kind, TimeUnit unit, int64_t scale_factor) {
  DataType type;
  type.kind_ = kind;
  if (!type.is_time()) {
    throw InvalidArgumentError(fmt::format("data type {} has no time unit", entry_for(kind).name));
  }
  if (scale_factor < 1 || scale_factor > INT32_MAX) {
    throw InvalidArgumentError(
        fmt::format("data type {}: invalid scale_factor {} (expected 1 to {})",
                    entry_for(kind).name, scale_factor, INT32_MAX));
  }
  type.time_unit_ = unit;
  type.scale_factor_ = scale_factor;
  return type;
}

DataType DataType::from_name(std::string_view name) {
  for (const auto& entry : kNamedKinds) {
    if (entry.name != name || entry.kind == DataTypeKind::raw) continue;
    if (entry.kind == DataTypeKind::datetime64 || entry.kind == DataTypeKind::timedelta64 ||
        entry.size == 0) {
      throw InvalidArgumentError(fmt::format("data type \"{}\" needs a configuration", name));
    }
    return DataType(entry.kind);
  }
  // Raw bits: "r" followed by a multiple of 8 (v3 core spec, "Data types").
  if (name.size() > 1 && name[0] == 'r') {
    int bits = 0;
    auto [ptr, ec] = std::from_chars(name.data() + 1, name.data() + name.size(), bits);
    if (ec == std::errc() && ptr == name.data() + name.size() && bits > 0 && bits % 8 == 0) {
      return DataType(DataTypeKind::raw, bits);
    }
  }
  throw InvalidArgumentError(fmt::format("unknown data type \"{}\"", name));
}

std::string DataType::name() const {
  if (kind_ == DataTypeKind::raw) return fmt::format("r{}", length_);
  return std::string(entry_for(kind_).name);
}

std::string DataType::description() const {
  if (is_time()) {
    return scale_factor_ == 1
               ? fmt::format("{}[{}]", name(), time_unit_name(time_unit_))
               : fmt::format("{}[{}{}]", name(), scale_factor_, time_unit_name(time_unit_));
  }
  if (is_fixed_length_bytes()) return fmt::format("{}[{}]", name(), length_);
  return name();
}

size_t DataType::size() const noexcept {
  if (kind_ == DataTypeKind::raw) return length_ / 8;
  if (is_fixed_length_bytes()) return length_;
  for (const auto& entry : kNamedKinds) {
    if (entry.kind == kind_) return entry.size;
  }
  return 0;
}

size_t DataType::endian_unit() const noexcept {
  switch (kind_) {
    case DataTypeKind::raw:
    case DataTypeKind::null_terminated_bytes:
    case DataTypeKind::raw_bytes:
      return 1;
    case DataTypeKind::fixed_length_utf32:
      return 4;
    case DataTypeKind::string:
    case DataTypeKind::variable_length_bytes:
      return 0;
    default:
      return is_complex() ? size() / 2 : size();
  }
}

bool DataType::is_integer() const noexcept {
  return kind_ >= DataTypeKind::int8 && kind_ <= DataTypeKind::uint64;
}
bool DataType::is_signed_integer() const noexcept {
  return kind_ >= DataTypeKind::int8 && kind_ <= DataTypeKind::int64;
}
bool DataType::is_float() const noexcept {
  return kind_ >= DataTypeKind::float16 && kind_ <= DataTypeKind::float64;
}
bool DataType::is_extension_float() const noexcept {
  return kind_ >= DataTypeKind::bfloat16 && kind_ <= DataTypeKind::float8_e5m2fnuz;
}
bool DataType::is_complex() const noexcept {
  return kind_ == DataTypeKind::complex64 || kind_ == DataTypeKind::complex128;
}
bool DataType::is_time() const noexcept {
  return kind_ == DataTypeKind::datetime64 || kind_ == DataTypeKind::timedelta64;
}
bool DataType::is_fixed_length_bytes() const noexcept {
  return kind_ == DataTypeKind::fixed_length_utf32 ||
         kind_ == DataTypeKind::null_terminated_bytes || kind_ == DataTypeKind::raw_bytes;
}
bool DataType::is_variable_length() const noexcept {
  return kind_ == DataTypeKind::string || kind_ == DataTypeKind::variable_length_bytes;
}

}  // namespace cuzarr
