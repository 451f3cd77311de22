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
  size_t size;
};

constexpr std::array<NamedKind, 14> kNamedKinds{{
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
}};

}  // namespace

DataType::DataType(DataTypeKind kind, int raw_bits) : kind_(kind), raw_bits_(0) {
  if (kind == DataTypeKind::raw) {
    if (raw_bits <= 0 || raw_bits % 8 != 0) {
      throw InvalidArgumentError(
          fmt::format("raw data type needs a positive multiple of 8 bits, got {}", raw_bits));
    }
    raw_bits_ = raw_bits;
  }
}

DataType DataType::from_name(std::string_view name) {
  for (const auto& entry : kNamedKinds) {
    if (entry.name == name) return DataType(entry.kind);
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
  if (kind_ == DataTypeKind::raw) return fmt::format("r{}", raw_bits_);
  for (const auto& entry : kNamedKinds) {
    if (entry.kind == kind_) return std::string(entry.name);
  }
  return "unknown";
}

size_t DataType::size() const noexcept {
  if (kind_ == DataTypeKind::raw) return static_cast<size_t>(raw_bits_ / 8);
  for (const auto& entry : kNamedKinds) {
    if (entry.kind == kind_) return entry.size;
  }
  return 0;
}

size_t DataType::endian_unit() const noexcept {
  if (kind_ == DataTypeKind::raw) return 1;
  if (is_complex()) return size() / 2;
  return size();
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
bool DataType::is_complex() const noexcept {
  return kind_ == DataTypeKind::complex64 || kind_ == DataTypeKind::complex128;
}

}  // namespace cuzarr
