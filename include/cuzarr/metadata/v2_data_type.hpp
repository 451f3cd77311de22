// Zarr v2 data types: the numpy "typestr" of a .zarray "dtype" (Zarr v2 spec, "Data type
// encoding") <-> the one DataType model plus the byte order that the v2 form carries in its first
// character.
#pragma once

#include <string>
#include <string_view>

#include "cuzarr/core/data_type.hpp"

namespace cuzarr {

/// A parsed v2 typestr.
struct V2DataType {
  DataType data_type;
  /// ">": elements are stored big-endian (meaningful when data_type.endian_unit() > 1).
  bool big_endian = false;
  /// "|O": a numpy object array; data_type is a placeholder (uint8) until the vlen filter
  /// ("vlen-utf8" -> string, "vlen-bytes" -> variable_length_bytes) says what the objects are.
  bool is_object = false;
};

/// Parses a simple v2 typestr: "|b1", "<i1".."<i8", ">u4", "<f2"/"<f4"/"<f8", "<c8"/"<c16",
/// "<U5" (fixed_length_utf32 of 20 bytes), "|S4" (null_terminated_bytes), "|V3" (raw_bytes),
/// "<M8[ns]" / "<m8[10s]" (datetime64 / timedelta64 with unit and scale factor), "|O" (object).
/// Throws InvalidArgumentError naming the typestr when it is malformed or inconsistent (a
/// multi-byte type with "|", an unknown kind or size, a zero length, a generic time unit).
V2DataType parse_v2_data_type(std::string_view typestr);

/// The typestr numpy writes for `dtype` stored with the given byte order ("<i4", ">f8", "|b1",
/// "|S4", "<U5", "<M8[10s]", "|O" for string / variable_length_bytes). Throws UnsupportedError
/// naming the type for types that Zarr v2 / numpy cannot express (bfloat16, the float8 kinds).
std::string v2_data_type_string(const DataType& dtype, bool big_endian = false);

}  // namespace cuzarr
