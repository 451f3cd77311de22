#include "codec/numpy_dtype.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

// numpy type code + size -> the cuzarr kind.
constexpr std::array<std::pair<std::string_view, DataTypeKind>, 14> kCodes = {{
    {"b1", DataTypeKind::boolean},
    {"i1", DataTypeKind::int8},
    {"i2", DataTypeKind::int16},
    {"i4", DataTypeKind::int32},
    {"i8", DataTypeKind::int64},
    {"u1", DataTypeKind::uint8},
    {"u2", DataTypeKind::uint16},
    {"u4", DataTypeKind::uint32},
    {"u8", DataTypeKind::uint64},
    {"f2", DataTypeKind::float16},
    {"f4", DataTypeKind::float32},
    {"f8", DataTypeKind::float64},
    {"c8", DataTypeKind::complex64},
    {"c16", DataTypeKind::complex128},
}};

}  // namespace

DataType parse_numpy_dtype(std::string_view text, const std::string& where) {
  if (text == "bool") return DataType(DataTypeKind::boolean);
  if (text == "complex64" || text == "complex128" || text.starts_with("int") ||
      text.starts_with("uint") || text.starts_with("float")) {
    try {
      return DataType::from_name(text);
    } catch (const Error&) {
      throw InvalidArgumentError(fmt::format("{}: unknown numpy data type \"{}\"", where, text));
    }
  }
  char order = '=';
  std::string_view code = text;
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '=' || code[0] == '|')) {
    order = code[0];
    code.remove_prefix(1);
  }
  for (const auto& [name, kind] : kCodes) {
    if (code != name) continue;
    DataType type(kind);
    if (order == '>' && type.endian_unit() > 1) {
      throw UnsupportedError(
          fmt::format("{}: big-endian numpy data type \"{}\" is not supported", where, text));
    }
    return type;
  }
  throw InvalidArgumentError(fmt::format("{}: unknown numpy data type \"{}\"", where, text));
}

std::string numpy_dtype_string(const DataType& type) {
  for (const auto& [name, kind] : kCodes) {
    if (kind == type.kind()) return fmt::format("{}{}", type.size() == 1 ? '|' : '<', name);
  }
  throw UnsupportedError(fmt::format("data type {} has no numpy equivalent", type.name()));
}

}  // namespace cuzarr
