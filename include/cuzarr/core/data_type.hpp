// Zarr v3 core data types (spec: "Data types"): bool, signed and unsigned integers, IEEE floats,
// complex numbers and r<N> raw bit strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cuzarr {

/// The kind of a data type; `raw` is r<N> with N a multiple of 8.
enum class DataTypeKind : uint8_t {
  boolean,
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float16,
  float32,
  float64,
  complex64,
  complex128,
  raw,
};

/// A Zarr data type: what one element is and how many bytes it takes.
class DataType {
 public:
  /// uint8 by default.
  constexpr DataType() = default;
  /// A fixed-size kind; for DataTypeKind::raw pass the number of bits (a positive multiple of 8).
  explicit DataType(DataTypeKind kind, int raw_bits = 0);

  /// Parses a v3 data type name ("int16", "float64", "r24", ...). Throws InvalidArgumentError
  /// naming the unknown name.
  static DataType from_name(std::string_view name);
  /// The v3 name of this type.
  std::string name() const;

  DataTypeKind kind() const noexcept { return kind_; }
  /// Bytes per element.
  size_t size() const noexcept;
  /// Bytes of the unit that endianness applies to (a complex number's parts; 1 for raw and bool).
  size_t endian_unit() const noexcept;
  bool is_integer() const noexcept;
  bool is_signed_integer() const noexcept;
  bool is_float() const noexcept;
  bool is_complex() const noexcept;
  int raw_bits() const noexcept { return raw_bits_; }

  friend bool operator==(const DataType&, const DataType&) = default;

 private:
  DataTypeKind kind_ = DataTypeKind::uint8;
  int raw_bits_ = 0;
};

}  // namespace cuzarr
