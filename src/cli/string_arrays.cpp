#include "string_arrays.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cuzarr/core/error.hpp"
#include "cuzarr/core/utf.hpp"
#include "cuzarr/memory/variable_length_ndbuffer.hpp"

namespace cuzarr::cli {

NDBuffer to_fixed_length(const NDBuffer& variable) {
  const auto values = variable_length_to_strings(variable);  // checks the type
  const bool text = variable.dtype().kind() == DataTypeKind::string;
  std::vector<std::u32string> code_points;
  size_t longest = 1;
  for (size_t i = 0; i < values.size(); ++i) {
    if (text) {
      try {
        code_points.push_back(utf8_to_utf32(values[i]));
      } catch (const InvalidArgumentError& e) {
        throw CorruptDataError(fmt::format("string element {}: {}", i, e.what()));
      }
      longest = std::max(longest, code_points.back().size());
    } else {
      longest = std::max(longest, values[i].size());
    }
  }
  const DataType dtype = text
                             ? DataType::fixed_length(DataTypeKind::fixed_length_utf32, longest * 4)
                             : DataType::fixed_length(DataTypeKind::null_terminated_bytes, longest);
  NDBuffer out = NDBuffer::allocate(dtype, variable.shape());
  std::memset(out.data(), 0, static_cast<size_t>(out.nbytes()));
  for (size_t i = 0; i < values.size(); ++i) {
    std::byte* p = out.data() + i * dtype.size();
    if (text) {
      for (size_t k = 0; k < code_points[i].size(); ++k) {
        const auto unit = static_cast<uint32_t>(code_points[i][k]);
        std::memcpy(p + 4 * k, &unit, 4);
      }
    } else if (!values[i].empty()) {
      std::memcpy(p, values[i].data(), values[i].size());
    }
  }
  return out;
}

NDBuffer to_variable_length(const NDBuffer& fixed) {
  const DataType dtype = fixed.dtype();
  const bool text = dtype.kind() == DataTypeKind::fixed_length_utf32;
  if (!text && dtype.kind() != DataTypeKind::null_terminated_bytes) {
    throw InvalidArgumentError(fmt::format(
        "only fixed_length_utf32 and null_terminated_bytes convert to variable length, not {}",
        dtype.description()));
  }
  NDBuffer contiguous = NDBuffer::allocate(dtype, fixed.shape());
  contiguous.assign(fixed);
  std::vector<std::string> values;
  values.reserve(static_cast<size_t>(contiguous.size()));
  for (int64_t i = 0; i < contiguous.size(); ++i) {
    const std::byte* p = contiguous.data() + i * static_cast<int64_t>(dtype.size());
    if (text) {
      std::u32string code_points(dtype.size() / 4, U'\0');
      std::memcpy(code_points.data(), p, dtype.size());
      while (!code_points.empty() && code_points.back() == 0) code_points.pop_back();
      values.push_back(utf32_to_utf8(code_points));
    } else {
      std::string bytes(reinterpret_cast<const char*>(p), dtype.size());
      while (!bytes.empty() && bytes.back() == '\0') bytes.pop_back();
      values.push_back(std::move(bytes));
    }
  }
  return make_variable_length_ndbuffer(
      fixed.shape(), values,
      DataType(text ? DataTypeKind::string : DataTypeKind::variable_length_bytes));
}

}  // namespace cuzarr::cli
