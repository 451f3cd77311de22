#include "array_printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "cuzarr/core/bfloat16.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/float16.hpp"
#include "cuzarr/core/float8.hpp"
#include "cuzarr/core/utf.hpp"
#include "element_text.hpp"

namespace cuzarr::cli {
namespace {

template <class T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

double parse_double(const char* first, const char* last) {
  double value = 0;
  std::from_chars(first, last, value);
  return value;
}

/// A double whose shortest decimal form is that of the float `value`, so that a float32 prints
/// "0.1" and not "0.10000000149011612".
double as_shortest_double(float value) {
  if (!std::isfinite(value)) return value;
  char text[64];
  auto result = std::to_chars(text, text + sizeof text, value);
  return parse_double(text, result.ptr);
}

/// The same for a binary16: the fewest significant digits that round back to `bits`.
double as_shortest_double_half(uint16_t bits) {
  float value = half_bits_to_float(bits);
  if (!std::isfinite(value)) return value;
  for (int precision = 0; precision <= 5; ++precision) {
    char text[64];
    auto result = std::to_chars(text, text + sizeof text, static_cast<double>(value),
                                std::chars_format::scientific, precision);
    double candidate = parse_double(text, result.ptr);
    if (double_to_half_bits(candidate) == bits) return candidate;
  }
  return value;
}

/// The value of a bfloat16 or float8 element with the fewest significant digits that convert
/// back to the same bits.
double as_shortest_double_extension(const DataType& dtype, const std::byte* p) {
  const bool is_bf16 = dtype.kind() == DataTypeKind::bfloat16;
  const uint64_t bits = is_bf16 ? load<uint16_t>(p) : load<uint8_t>(p);
  const auto to_bits = [&](double v) -> uint64_t {
    return is_bf16 ? double_to_bfloat16_bits(v) : double_to_float8_bits(v, dtype.kind());
  };
  const double value =
      is_bf16 ? static_cast<double>(bfloat16_bits_to_float(static_cast<uint16_t>(bits)))
              : float8_bits_to_double(static_cast<uint8_t>(bits), dtype.kind());
  if (!std::isfinite(value)) return value;
  for (int precision = 0; precision <= 4; ++precision) {
    char text[64];
    auto result =
        std::to_chars(text, text + sizeof text, value, std::chars_format::scientific, precision);
    const double candidate = parse_double(text, result.ptr);
    if (to_bits(candidate) == bits) return candidate;
  }
  return value;
}

/// The text of one element of the string, byte-string and time types.
std::string format_text_element(const DataType& dtype, const std::byte* p) {
  switch (dtype.kind()) {
    case DataTypeKind::datetime64:
      return fmt::format("'{}'", format_datetime(load<int64_t>(p), dtype));
    case DataTypeKind::timedelta64: {
      const auto count = load<int64_t>(p);
      return count == kNotATime ? "'NaT'" : std::to_string(count);
    }
    case DataTypeKind::fixed_length_utf32: {
      std::u32string code_points;
      for (size_t i = 0; i < dtype.size(); i += 4)
        code_points.push_back(static_cast<char32_t>(load<uint32_t>(p + i)));
      while (!code_points.empty() && code_points.back() == 0) code_points.pop_back();
      return python_str_literal(utf32_to_utf8(code_points));
    }
    case DataTypeKind::null_terminated_bytes: {
      std::string_view bytes(reinterpret_cast<const char*>(p), dtype.size());
      while (!bytes.empty() && bytes.back() == '\0') bytes.remove_suffix(1);
      return python_bytes_literal(bytes);
    }
    case DataTypeKind::string:
      return python_str_literal(load<VariableLengthValue>(p).view());
    case DataTypeKind::variable_length_bytes:
      return python_bytes_literal(load<VariableLengthValue>(p).view());
    default:
      throw InvalidArgumentError(fmt::format("{} is not a text type", dtype.name()));
  }
}

std::string trim_zeros_keep_point(std::string digits) {
  // "1.500" -> "1.5", "2.000" -> "2.", "3" -> "3."
  if (digits.find('.') == std::string::npos) return digits + ".";
  while (digits.back() == '0') digits.pop_back();
  return digits;
}

/// numpy's FloatingFormat (floatmode "maxprec", precision 8): positional unless the magnitudes
/// call for scientific notation; integer parts padded left, fractions padded right.
class FloatFormatter {
 public:
  FloatFormatter(std::span<const double> values, bool force_sign) : force_sign_(force_sign) {
    double max_abs = 0, min_abs = std::numeric_limits<double>::infinity();
    bool any_nonzero = false, negative_inf = false, any_non_finite = false;
    for (double v : values) {
      if (!std::isfinite(v)) {
        any_non_finite = true;
        if (std::isinf(v) && v < 0) negative_inf = true;
        continue;
      }
      if (v != 0) {
        any_nonzero = true;
        max_abs = std::max(max_abs, std::abs(v));
        min_abs = std::min(min_abs, std::abs(v));
      }
    }
    scientific_ = any_nonzero && (max_abs >= 1e8 || min_abs < 1e-4 || max_abs / min_abs > 1e3);
    for (double v : values) {
      if (!std::isfinite(v)) continue;
      std::string text = digits(v);
      if (scientific_) {
        size_t e = text.find('e');
        std::string mantissa = text.substr(0, e);
        size_t point = mantissa.find('.');
        pad_left_ = std::max(pad_left_, point);
        pad_right_ = std::max(pad_right_, mantissa.size() - point - 1);
        exponent_digits_ = std::max(exponent_digits_, text.size() - e - 2);
      } else {
        size_t point = text.find('.');
        pad_left_ = std::max(pad_left_, point);
        pad_right_ = std::max(pad_right_, text.size() - point - 1);
      }
    }
    if (any_non_finite) {
      size_t offset = pad_right_ + 1 + (scientific_ ? exponent_digits_ + 2 : 0);
      size_t inf_length = 3 + ((negative_inf || force_sign_) ? 1 : 0);
      if (3 > offset) pad_left_ = std::max(pad_left_, 3 - offset);
      if (inf_length > offset) pad_left_ = std::max(pad_left_, inf_length - offset);
    }
  }

  /// The padded text of `v` (all results have the same width).
  std::string format(double v) const {
    size_t width = pad_left_ + 1 + pad_right_ + (scientific_ ? exponent_digits_ + 2 : 0);
    if (!std::isfinite(v)) {
      std::string text = std::isnan(v) ? (force_sign_ ? "+nan" : "nan")
                                       : (v < 0 ? "-inf" : (force_sign_ ? "+inf" : "inf"));
      return fmt::format("{:>{}}", text, width);
    }
    std::string text = digits(v);
    if (scientific_) {
      size_t e = text.find('e');
      std::string mantissa = text.substr(0, e);
      char exponent_sign = text[e + 1];
      std::string exponent = text.substr(e + 2);
      size_t point = mantissa.find('.');
      // numpy pads every mantissa with zeros to the longest one ("2.5000e-01").
      return fmt::format("{:>{}}{:0<{}}e{}{:0>{}}", mantissa.substr(0, point), pad_left_,
                         mantissa.substr(point), pad_right_ + 1, exponent_sign, exponent,
                         exponent_digits_);
    }
    size_t point = text.find('.');
    return fmt::format("{:>{}}{:<{}}", text.substr(0, point), pad_left_, text.substr(point),
                       pad_right_ + 1);
  }

 private:
  /// Shortest digits (at most 8 after the point), trailing zeros trimmed, '.' kept, sign included.
  std::string digits(double v) const {
    char text[512];
    std::string result;
    if (scientific_) {
      auto r = std::to_chars(text, text + sizeof text, v, std::chars_format::scientific);
      std::string s(text, r.ptr);
      size_t e = s.find('e');
      size_t point = s.find('.');
      if (point != std::string::npos && e - point - 1 > 8) {
        r = std::to_chars(text, text + sizeof text, v, std::chars_format::scientific, 8);
        s.assign(text, r.ptr);
        e = s.find('e');
      }
      std::string mantissa = trim_zeros_keep_point(s.substr(0, e));
      std::string exponent = s.substr(e + 1);  // "+05", "-10"
      result = mantissa + "e" + exponent;
    } else {
      auto r = std::to_chars(text, text + sizeof text, v, std::chars_format::fixed);
      std::string s(text, r.ptr);
      size_t point = s.find('.');
      if (point != std::string::npos && s.size() - point - 1 > 8) {
        r = std::to_chars(text, text + sizeof text, v, std::chars_format::fixed, 8);
        s.assign(text, r.ptr);
      }
      result = trim_zeros_keep_point(s);
    }
    if (force_sign_ && result[0] != '-') result.insert(result.begin(), '+');
    return result;
  }

  bool force_sign_;
  bool scientific_ = false;
  size_t pad_left_ = 0;
  size_t pad_right_ = 0;
  size_t exponent_digits_ = 0;
};

double load_float_as_double(const DataType& dtype, const std::byte* p) {
  switch (dtype.kind()) {
    case DataTypeKind::float16:
      return as_shortest_double_half(load<uint16_t>(p));
    case DataTypeKind::float32:
      return as_shortest_double(load<float>(p));
    default:
      return load<double>(p);
  }
}

std::string format_integer(const DataType& dtype, const std::byte* p) {
  switch (dtype.kind()) {
    case DataTypeKind::int8:
      return std::to_string(load<int8_t>(p));
    case DataTypeKind::int16:
      return std::to_string(load<int16_t>(p));
    case DataTypeKind::int32:
      return std::to_string(load<int32_t>(p));
    case DataTypeKind::int64:
      return std::to_string(load<int64_t>(p));
    case DataTypeKind::uint8:
      return std::to_string(load<uint8_t>(p));
    case DataTypeKind::uint16:
      return std::to_string(load<uint16_t>(p));
    case DataTypeKind::uint32:
      return std::to_string(load<uint32_t>(p));
    case DataTypeKind::uint64:
      return std::to_string(load<uint64_t>(p));
    default:
      throw InvalidArgumentError(fmt::format("{} is not an integer type", dtype.name()));
  }
}

std::string format_raw(const std::byte* p, size_t size) {
  std::string text = "b'";
  for (size_t i = 0; i < size; ++i) text += fmt::format("\\x{:02x}", static_cast<unsigned>(p[i]));
  return text + "'";
}

/// Formats the elements at `pointers` so that all have one width (numpy aligns columns).
std::vector<std::string> format_elements(const DataType& dtype,
                                         const std::vector<const std::byte*>& pointers) {
  std::vector<std::string> texts;
  texts.reserve(pointers.size());
  if (dtype.is_float() || dtype.is_extension_float()) {
    std::vector<double> values;
    for (const auto* p : pointers) {
      values.push_back(dtype.is_float() ? load_float_as_double(dtype, p)
                                        : as_shortest_double_extension(dtype, p));
    }
    FloatFormatter formatter(values, false);
    for (double v : values) texts.push_back(formatter.format(v));
    return texts;
  }
  if (dtype.is_complex()) {
    std::vector<double> reals, imags;
    for (const auto* p : pointers) {
      if (dtype.kind() == DataTypeKind::complex64) {
        reals.push_back(as_shortest_double(load<float>(p)));
        imags.push_back(as_shortest_double(load<float>(p + 4)));
      } else {
        reals.push_back(load<double>(p));
        imags.push_back(load<double>(p + 8));
      }
    }
    FloatFormatter real_formatter(reals, false), imag_formatter(imags, true);
    for (size_t i = 0; i < reals.size(); ++i) {
      // The imaginary part's right padding goes after the 'j', as numpy does.
      std::string imag = imag_formatter.format(imags[i]);
      size_t kept = imag.find_last_not_of(' ') + 1;
      texts.push_back(real_formatter.format(reals[i]) + imag.substr(0, kept) + "j" +
                      imag.substr(kept));
    }
    return texts;
  }
  if (dtype.kind() == DataTypeKind::fixed_length_utf32 ||
      dtype.kind() == DataTypeKind::null_terminated_bytes || dtype.is_variable_length()) {
    for (const auto* p : pointers) texts.push_back(format_text_element(dtype, p));
    return texts;  // numpy does not pad strings
  }
  size_t width = 0;
  for (const auto* p : pointers) {
    if (dtype.is_time()) {
      texts.push_back(format_text_element(dtype, p));
    } else if (dtype.kind() == DataTypeKind::boolean) {
      texts.push_back(load<uint8_t>(p) ? "True" : "False");
    } else if (dtype.kind() == DataTypeKind::raw || dtype.kind() == DataTypeKind::raw_bytes) {
      texts.push_back(format_raw(p, dtype.size()));
    } else {
      texts.push_back(format_integer(dtype, p));
    }
    width = std::max(width, texts.back().size());
  }
  for (auto& text : texts) text = fmt::format("{:>{}}", text, width);
  return texts;
}

constexpr int64_t kEllipsis = -1;

class Renderer {
 public:
  Renderer(const NDBuffer& array, const PrintOptions& options) : array_(array), options_(options) {
    bool summarise = array.size() > options.threshold;
    for (int64_t extent : array.shape()) {
      std::vector<int64_t> shown;
      if (summarise && extent > 2 * options.edge_items) {
        for (int64_t i = 0; i < options.edge_items; ++i) shown.push_back(i);
        shown.push_back(kEllipsis);
        for (int64_t i = extent - options.edge_items; i < extent; ++i) shown.push_back(i);
      } else {
        for (int64_t i = 0; i < extent; ++i) shown.push_back(i);
      }
      shown_.push_back(std::move(shown));
    }
    std::vector<const std::byte*> pointers;
    collect(0, array.data(), pointers);
    texts_ = format_elements(array.dtype(), pointers);
  }

  std::string render() {
    next_ = 0;
    auto lines = block(0, array_.data());
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i) out += '\n';
      out += lines[i];
    }
    return out;
  }

 private:
  const std::byte* child(size_t dim, const std::byte* base, int64_t index) const {
    return base + index * array_.byte_strides()[dim];
  }

  void collect(size_t dim, const std::byte* base, std::vector<const std::byte*>& pointers) const {
    if (dim == array_.ndim()) {
      pointers.push_back(base);
      return;
    }
    for (int64_t index : shown_[dim]) {
      if (index != kEllipsis) collect(dim + 1, child(dim, base, index), pointers);
    }
  }

  /// The lines of the bracketed block of dimension `dim` starting at `base`.
  std::vector<std::string> block(size_t dim, const std::byte* base) {
    size_t ndim = array_.ndim();
    if (dim + 1 == ndim) {
      std::vector<std::string> lines{"["};
      bool first = true;
      for (int64_t index : shown_[dim]) {
        std::string word = index == kEllipsis ? "..." : texts_[next_++];
        std::string& line = lines.back();
        // Wrap like numpy: the row must fit `line_width` with its indentation and closing brackets.
        if (!first && dim + line.size() + 1 + word.size() + 1 > options_.line_width) {
          lines.push_back(" " + word);
        } else {
          line += first ? word : " " + word;
        }
        first = false;
      }
      lines.back() += "]";
      return lines;
    }
    std::vector<std::string> lines;
    size_t blank_lines = ndim - dim - 2;
    bool first = true;
    for (int64_t index : shown_[dim]) {
      if (!first) lines.insert(lines.end(), blank_lines, "");
      std::vector<std::string> sub = index == kEllipsis ? std::vector<std::string>{"..."}
                                                        : block(dim + 1, child(dim, base, index));
      for (size_t i = 0; i < sub.size(); ++i) {
        if (first && i == 0) {
          lines.push_back("[" + sub[i]);
        } else {
          lines.push_back(sub[i].empty() ? sub[i] : " " + sub[i]);
        }
      }
      first = false;
    }
    if (lines.empty()) lines.push_back("[");
    lines.back() += "]";
    return lines;
  }

  const NDBuffer& array_;
  const PrintOptions& options_;
  std::vector<std::vector<int64_t>> shown_;
  std::vector<std::string> texts_;
  size_t next_ = 0;
};

}  // namespace

std::string format_array(const NDBuffer& array, const PrintOptions& options) {
  if (!is_host_accessible(array.kind())) {
    throw InvalidArgumentError(
        "format_array needs a host-accessible array; copy device data to the host first");
  }
  if (array.ndim() == 0) return format_elements(array.dtype(), {array.data()}).front();
  if (array.size() == 0) return "[]";
  return Renderer(array, options).render();
}

}  // namespace cuzarr::cli
