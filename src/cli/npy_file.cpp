#include "npy_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <system_error>
#include <vector>

#include "binary_file.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr::cli {
namespace {

static_assert(std::endian::native == std::endian::little,
              "cuzarr's .npy support assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";

struct KindCode {
  DataTypeKind kind;
  char code;  ///< numpy kind character
  int size;
};

constexpr KindCode kKindCodes[] = {
    {DataTypeKind::boolean, 'b', 1},   {DataTypeKind::int8, 'i', 1},
    {DataTypeKind::int16, 'i', 2},     {DataTypeKind::int32, 'i', 4},
    {DataTypeKind::int64, 'i', 8},     {DataTypeKind::uint8, 'u', 1},
    {DataTypeKind::uint16, 'u', 2},    {DataTypeKind::uint32, 'u', 4},
    {DataTypeKind::uint64, 'u', 8},    {DataTypeKind::float16, 'f', 2},
    {DataTypeKind::float32, 'f', 4},   {DataTypeKind::float64, 'f', 8},
    {DataTypeKind::complex64, 'c', 8}, {DataTypeKind::complex128, 'c', 16},
};

/// The header of a .npy file is a Python dict literal, e.g.
/// {'descr': '<u2', 'fortran_order': False, 'shape': (3, 4), }
/// This parses exactly the subset numpy writes: string keys; string, True/False and int-tuple
/// values.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  struct Header {
    std::string descr;
    bool fortran_order = false;
    Shape shape;
  };

  Header parse() {
    Header header;
    bool have_descr = false, have_order = false, have_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      std::string key = parse_string();
      expect(':');
      skip_space();
      if (key == "descr") {
        if (peek() == '[') {
          throw UnsupportedError(
              fmt::format("{}: structured numpy data types are not supported", source_));
        }
        header.descr = parse_string();
        have_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = parse_bool();
        have_order = true;
      } else if (key == "shape") {
        header.shape = parse_int_tuple();
        have_shape = true;
      } else {
        fail(fmt::format("unexpected header key '{}'", key));
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_space();
      if (peek() != '}') fail("expected ',' or '}' in the header");
    }
    if (!have_descr || !have_order || !have_shape) {
      fail("the header must have the keys 'descr', 'fortran_order' and 'shape'");
    }
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidArgumentError(
        fmt::format("{} is not a valid .npy file: {} (at header offset {})", source_, what, pos_));
  }
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n'))
      ++pos_;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(fmt::format("expected '{}'", c));
    ++pos_;
  }
  std::string parse_string() {
    skip_space();
    char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }
  bool parse_bool() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  Shape parse_int_tuple() {
    expect('(');
    Shape shape;
    while (true) {
      skip_space();
      if (peek() == ')') {
        ++pos_;
        return shape;
      }
      int64_t value = 0;
      auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
      if (ec != std::errc() || value < 0) fail("expected a non-negative integer in 'shape'");
      pos_ = static_cast<size_t>(ptr - text_.data());
      shape.push_back(value);
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ')') {
        fail("expected ',' or ')' in 'shape'");
      }
    }
  }

  std::string_view text_;
  const std::string& source_;
  size_t pos_ = 0;
};

uint32_t read_le(std::string_view bytes, size_t offset, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  return value;
}

void swap_units(std::byte* data, int64_t count, size_t unit) {
  if (unit <= 1) return;
  for (int64_t i = 0; i < count; ++i)
    std::reverse(data + i * static_cast<int64_t>(unit),
                 data + (i + 1) * static_cast<int64_t>(unit));
}

// "M8[10ms]" / "m8[s]" (after the byte-order character): numpy datetime64 / timedelta64.
NpyDescr parse_time_descr(std::string_view descr, std::string_view rest, bool big_endian) {
  const auto unsupported = [&] {
    return UnsupportedError(fmt::format(
        "unsupported numpy data type '{}' (expected M8[unit] or m8[unit] with a unit such as "
        "ms, or a multiple such as 10s)",
        descr));
  };
  if (rest.size() < 5 || rest.substr(1, 2) != "8[" || rest.back() != ']') throw unsupported();
  std::string_view inner = rest.substr(3, rest.size() - 4);
  int64_t scale = 1;
  size_t digits = 0;
  while (digits < inner.size() && inner[digits] >= '0' && inner[digits] <= '9') ++digits;
  if (digits > 0) {
    auto [ptr, ec] = std::from_chars(inner.data(), inner.data() + digits, scale);
    if (ec != std::errc() || scale < 1) throw unsupported();
  }
  NpyDescr result;
  result.big_endian = big_endian;
  try {
    result.dtype =
        DataType::time(rest[0] == 'M' ? DataTypeKind::datetime64 : DataTypeKind::timedelta64,
                       parse_time_unit(inner.substr(digits)), scale);
  } catch (const InvalidArgumentError&) {
    throw unsupported();
  }
  return result;
}

}  // namespace

std::string npy_descr(const DataType& dtype) {
  if (dtype.kind() == DataTypeKind::raw) return fmt::format("|V{}", dtype.size());
  switch (dtype.kind()) {
    case DataTypeKind::raw_bytes:
      return fmt::format("|V{}", dtype.size());
    case DataTypeKind::null_terminated_bytes:
      return fmt::format("|S{}", dtype.size());
    case DataTypeKind::fixed_length_utf32:
      return fmt::format("<U{}", dtype.size() / 4);
    case DataTypeKind::datetime64:
    case DataTypeKind::timedelta64: {
      const char code = dtype.kind() == DataTypeKind::datetime64 ? 'M' : 'm';
      const auto unit = time_unit_name(dtype.time_unit());
      return dtype.scale_factor() == 1
                 ? fmt::format("<{}8[{}]", code, unit)
                 : fmt::format("<{}8[{}{}]", code, dtype.scale_factor(), unit);
    }
    default:
      break;
  }
  if (dtype.is_extension_float()) {
    throw UnsupportedError(fmt::format(
        "data type {} has no numpy descriptor (numpy has no {} type; print the array instead)",
        dtype.name(), dtype.name()));
  }
  if (dtype.is_variable_length()) {
    throw UnsupportedError(fmt::format(
        "data type {} has no fixed-size numpy descriptor; convert it to fixed-length first",
        dtype.name()));
  }
  for (const auto& entry : kKindCodes) {
    if (entry.kind == dtype.kind())
      return fmt::format("{}{}{}", entry.size == 1 ? '|' : '<', entry.code, entry.size);
  }
  throw UnsupportedError(fmt::format("data type {} has no numpy descriptor", dtype.name()));
}

NpyDescr parse_npy_descr(std::string_view descr) {
  std::string_view rest = descr;
  NpyDescr result;
  if (!rest.empty() && (rest[0] == '<' || rest[0] == '>' || rest[0] == '|' || rest[0] == '=')) {
    result.big_endian = rest[0] == '>';
    rest.remove_prefix(1);
  }
  if (rest.size() < 2)
    throw UnsupportedError(fmt::format("unsupported numpy data type '{}'", descr));
  if (rest[0] == 'M' || rest[0] == 'm') return parse_time_descr(descr, rest, result.big_endian);
  char code = rest[0];
  int size = 0;
  auto [ptr, ec] = std::from_chars(rest.data() + 1, rest.data() + rest.size(), size);
  if (ec != std::errc() || ptr != rest.data() + rest.size() || size <= 0) {
    throw UnsupportedError(fmt::format("unsupported numpy data type '{}'", descr));
  }
  if (code == '?') code = 'b';
  if (code == 'V') {
    result.dtype = DataType(DataTypeKind::raw, size * 8);
    result.big_endian = false;  // raw bytes have no byte order
    return result;
  }
  if (code == 'S') {
    result.dtype = DataType::fixed_length(DataTypeKind::null_terminated_bytes, size);
    result.big_endian = false;
    return result;
  }
  if (code == 'U') {  // size counts UTF-32 code units
    result.dtype =
        DataType::fixed_length(DataTypeKind::fixed_length_utf32, static_cast<size_t>(size) * 4);
    return result;
  }
  for (const auto& entry : kKindCodes) {
    if (entry.code == code && entry.size == size) {
      result.dtype = DataType(entry.kind);
      if (size == 1) result.big_endian = false;
      return result;
    }
  }
  throw UnsupportedError(
      fmt::format("unsupported numpy data type '{}' (expected bool, integers, float16/32/64, "
                  "complex64/128 or raw void)",
                  descr));
}

NDBuffer parse_npy(std::string_view bytes, const std::string& source) {
  auto invalid = [&](const std::string& what) {
    return InvalidArgumentError(fmt::format("{} is not a valid .npy file: {}", source, what));
  };
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic)
    throw invalid("missing the \\x93NUMPY magic");
  int major = static_cast<unsigned char>(bytes[6]);
  int minor = static_cast<unsigned char>(bytes[7]);
  size_t length_width = 0;
  if (major == 1) {
    length_width = 2;
  } else if (major == 2 || major == 3) {
    length_width = 4;
  } else {
    throw UnsupportedError(
        fmt::format("{}: .npy format version {}.{} is not supported (expected 1.0, 2.0 or 3.0)",
                    source, major, minor));
  }
  size_t header_start = 8 + length_width;
  if (bytes.size() < header_start) throw invalid("truncated header length");
  size_t header_length = read_le(bytes, 8, length_width);
  if (bytes.size() - header_start < header_length) throw invalid("truncated header");
  // Version 3.0 only differs in allowing UTF-8 in the header; the keys we read are ASCII.
  auto header = HeaderParser(bytes.substr(header_start, header_length), source).parse();
  NpyDescr descr;
  try {
    descr = parse_npy_descr(header.descr);
  } catch (const UnsupportedError& e) {
    throw UnsupportedError(fmt::format("{}: {}", source, e.what()));
  }

  int64_t element_size = static_cast<int64_t>(descr.dtype.size());
  int64_t data_bytes = byte_count(header.shape, element_size);
  size_t data_start = header_start + header_length;
  if (static_cast<uint64_t>(bytes.size() - data_start) < static_cast<uint64_t>(data_bytes)) {
    throw invalid(fmt::format("expected {} bytes of data for shape {} and type '{}', found {}",
                              data_bytes, shape_to_string(header.shape), header.descr,
                              bytes.size() - data_start));
  }
  Buffer raw = Buffer::copy_of(
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data() + data_start),
                                 static_cast<size_t>(data_bytes)));
  if (descr.big_endian)
    swap_units(raw.data(),
               element_count(header.shape) *
                   (element_size / static_cast<int64_t>(descr.dtype.endian_unit())),
               descr.dtype.endian_unit());

  if (!header.fortran_order || header.shape.size() < 2)
    return NDBuffer(raw, descr.dtype, header.shape);
  // Fortran order: the first dimension varies fastest.
  std::vector<int64_t> strides(header.shape.size());
  int64_t stride = element_size;
  for (size_t d = 0; d < header.shape.size(); ++d) {
    strides[d] = stride;
    stride *= std::max<int64_t>(header.shape[d], 1);
  }
  NDBuffer fortran(raw, descr.dtype, header.shape, strides);
  NDBuffer result = NDBuffer::allocate(descr.dtype, header.shape);
  result.assign(fortran);
  return result;
}

NDBuffer read_npy(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw NotFoundError(fmt::format("no such file: {}", path.string()));
  // A directory is refused by name there; the file is read into one buffer of its size.
  const Buffer bytes = read_binary_file(path.string());
  return parse_npy(bytes.as_string_view(), path.string());
}

std::string format_npy(const NDBuffer& array) {
  if (!is_host_accessible(array.kind())) {
    throw InvalidArgumentError(
        "format_npy needs a host-accessible array; copy device data to the host first");
  }
  std::string shape_text = "(";
  for (size_t d = 0; d < array.shape().size(); ++d) {
    shape_text += std::to_string(array.shape()[d]);
    shape_text += array.shape().size() == 1 ? "," : (d + 1 < array.shape().size() ? ", " : "");
  }
  shape_text += ")";
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                 npy_descr(array.dtype()), shape_text);
  // The header (magic, version, length, dict, padding, '\n') is padded to a multiple of 64 bytes.
  size_t length_width = dict.size() + 1 + 10 <= 65535 ? 2 : 4;
  size_t prefix = 8 + length_width;
  size_t total = prefix + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');

  std::string out(kMagic);
  out.push_back(static_cast<char>(length_width == 2 ? 1 : 2));
  out.push_back(0);
  for (size_t i = 0; i < length_width; ++i)
    out.push_back(static_cast<char>((dict.size() >> (8 * i)) & 0xff));
  out += dict;

  NDBuffer contiguous = array;
  if (!array.is_c_contiguous()) {
    contiguous = NDBuffer::allocate(array.dtype(), array.shape());
    contiguous.assign(array);
  }
  out.append(reinterpret_cast<const char*>(contiguous.data()),
             static_cast<size_t>(contiguous.nbytes()));
  return out;
}

void write_npy(const std::filesystem::path& path, const NDBuffer& array) {
  std::string bytes = format_npy(array);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw IoError(fmt::format("cannot open {} for writing", path.string()));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw IoError(fmt::format("writing {} failed", path.string()));
}

}  // namespace cuzarr::cli
