// Zarr data types: the v3 core types (spec: "Data types": bool, integers, IEEE floats, complex
// numbers, r<N> raw bit strings) and the extension types that zarr-python 3 and tensorstore write
// (zarr-extensions "data-types"): bfloat16, the float8 family, numpy.datetime64 / timedelta64,
// fixed_length_utf32, null_terminated_bytes, raw_bytes, and the variable-length string and
// variable_length_bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cuzarr {

/// The kind of a data type.
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
  raw,  ///< r<N>, N a multiple of 8 bits
  // Extension types.
  bfloat16,
  float8_e4m3fn,
  float8_e4m3fnuz,
  float8_e4m3b11fnuz,
  float8_e5m2,
  float8_e5m2fnuz,
  datetime64,             ///< int64 count of time_unit() * scale_factor() since the epoch
  timedelta64,            ///< int64 count of time_unit() * scale_factor()
  fixed_length_utf32,     ///< numpy "<U": length_bytes()/4 UTF-32 code units, zero padded
  null_terminated_bytes,  ///< numpy "|S": length_bytes() bytes, zero padded
  raw_bytes,              ///< numpy "|V": length_bytes() opaque bytes
  string,                 ///< variable-length UTF-8 (in memory: VariableLengthValue)
  variable_length_bytes,  ///< variable-length bytes (in memory: VariableLengthValue)
};

/// numpy datetime64 / timedelta64 units (numpy's "generic" unit is not a storable Zarr unit).
enum class TimeUnit : uint8_t { Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as };

/// The name numpy gives `unit` ("Y", "ms", "us", ...).
std::string_view time_unit_name(TimeUnit unit) noexcept;
/// Parses a numpy unit name; throws InvalidArgumentError naming the text.
TimeUnit parse_time_unit(std::string_view name);

/// The in-memory element of the variable-length kinds (string, variable_length_bytes): a view of
/// bytes owned by the Buffer that holds the elements (see Buffer's keep-alive owners).
struct VariableLengthValue {
  const char* data = nullptr;
  uint64_t size = 0;
  std::string_view view() const noexcept { return {data, static_cast<size_t>(size)}; }
};

/// The NaT (not-a-time) value of datetime64 / timedelta64: the smallest int64.
inline constexpr int64_t kNotATime = INT64_MIN;

/// A Zarr data type: what one element is and how many bytes it takes in memory.
class DataType {
 public:
  /// uint8 by default.
  constexpr DataType() = default;
  /// A parameterless kind; for DataTypeKind::raw pass the number of bits (a positive multiple of
  /// 8). Kinds that need parameters (fixed-length, time) throw InvalidArgumentError here: use the
  /// factories below.
  explicit DataType(DataTypeKind kind, int raw_bits = 0);
  /// fixed_length_utf32 (length a multiple of 4), null_terminated_bytes or raw_bytes with
  /// `length_bytes` bytes per element (>= 1; throws InvalidArgumentError).
  static DataType fixed_length(DataTypeKind kind, size_t length_bytes);
  /// datetime64 or timedelta64 counting in `scale_factor` (>= 1) multiples of `unit`.
  static DataType time(DataTypeKind kind, TimeUnit unit, int64_t scale_factor = 1);

  /// Parses a parameterless v3 data type name ("int16", "float64", "r24", "bfloat16",
  /// "string", ...). Throws InvalidArgumentError naming an unknown name, or naming a type whose
  /// configuration is missing.
  static DataType from_name(std::string_view name);
  /// The v3 name of this type ("numpy.datetime64", "fixed_length_utf32", "r24", ...).
  std::string name() const;
  /// A readable description with parameters ("numpy.datetime64[10ms]", "fixed_length_utf32[20]").
  std::string description() const;

  DataTypeKind kind() const noexcept { return kind_; }
  /// Bytes per element in memory (sizeof(VariableLengthValue) for variable-length kinds).
  size_t size() const noexcept;
  /// Bytes of the unit that endianness applies to (a complex number's parts, a UTF-32 code unit;
  /// 1 for byte strings, raw and bool; 0 for variable-length kinds, which have no fixed layout).
  size_t endian_unit() const noexcept;
  bool is_integer() const noexcept;
  bool is_signed_integer() const noexcept;
  /// IEEE float16/32/64 (not bfloat16 or float8: see is_extension_float).
  bool is_float() const noexcept;
  /// bfloat16 and the float8 kinds.
  bool is_extension_float() const noexcept;
  bool is_complex() const noexcept;
  bool is_time() const noexcept;
  bool is_fixed_length_bytes() const noexcept;
  bool is_variable_length() const noexcept;
  int raw_bits() const noexcept {
    return kind_ == DataTypeKind::raw ? static_cast<int>(length_) : 0;
  }
  /// Bytes per element of fixed_length_utf32, null_terminated_bytes and raw_bytes; 0 otherwise.
  size_t length_bytes() const noexcept { return is_fixed_length_bytes() ? length_ : 0; }
  TimeUnit time_unit() const noexcept { return time_unit_; }
  int64_t scale_factor() const noexcept { return scale_factor_; }

  friend bool operator==(const DataType&, const DataType&) = default;

 private:
  DataTypeKind kind_ = DataTypeKind::uint8;
  size_t length_ = 0;  ///< bits for raw, bytes for the fixed-length kinds
  TimeUnit time_unit_ = TimeUnit::s;
  int64_t scale_factor_ = 1;
};

}  // namespace cuzarr
