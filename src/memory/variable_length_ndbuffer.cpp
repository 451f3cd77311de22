#include "cuzarr/memory/variable_length_ndbuffer.hpp"

#include <fmt/format.h>

#include <cstring>
#include <memory>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

void require_variable_length(const NDBuffer& array, const char* what) {
  if (!array.dtype().is_variable_length()) {
    throw InvalidArgumentError(
        fmt::format("{} needs a string or variable_length_bytes array, got {}", what,
                    array.dtype().description()));
  }
  if (!is_host_accessible(array.kind()))
    throw InvalidArgumentError(fmt::format("{} needs host-accessible memory", what));
}

// Visits the element addresses of a strided view in C order.
void visit_elements(const std::byte* base, const NDBuffer& array, size_t dim,
                    const std::function<void(const std::byte*)>& visit) {
  if (dim == array.ndim()) {
    visit(base);
    return;
  }
  for (int64_t i = 0; i < array.shape()[dim]; ++i)
    visit_elements(base + i * array.byte_strides()[dim], array, dim + 1, visit);
}

}  // namespace

NDBuffer make_variable_length_ndbuffer(const Shape& shape, const std::vector<std::string>& values,
                                       DataType dtype) {
  if (!dtype.is_variable_length()) {
    throw InvalidArgumentError(fmt::format(
        "make_variable_length_ndbuffer: {} is not a variable-length data type", dtype.name()));
  }
  if (element_count(shape) != static_cast<int64_t>(values.size())) {
    throw InvalidArgumentError(fmt::format("make_variable_length_ndbuffer: {} values for shape {}",
                                           values.size(), shape_to_string(shape)));
  }
  size_t total = 0;
  for (const auto& v : values) total += v.size();
  auto bytes = std::make_shared<std::string>();
  bytes->reserve(total);
  for (const auto& v : values) bytes->append(v);
  NDBuffer array = NDBuffer::allocate(dtype, shape);
  auto* elements = array.data_as<VariableLengthValue>();
  size_t offset = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    elements[i] = {values[i].empty() ? nullptr : bytes->data() + offset, values[i].size()};
    offset += values[i].size();
  }
  array.buffer().keep_alive(std::move(bytes));
  return array;
}

void for_each_variable_length(const NDBuffer& array,
                              const std::function<void(std::string_view)>& visit) {
  require_variable_length(array, "for_each_variable_length");
  if (array.size() == 0) return;
  visit_elements(array.data(), array, 0, [&](const std::byte* p) {
    VariableLengthValue value;
    std::memcpy(&value, p, sizeof value);
    visit(value.view());
  });
}

std::vector<std::string> variable_length_to_strings(const NDBuffer& array) {
  std::vector<std::string> result;
  result.reserve(static_cast<size_t>(array.size()));
  for_each_variable_length(array, [&](std::string_view v) { result.emplace_back(v); });
  return result;
}

bool variable_length_holds_only(const NDBuffer& array, std::string_view value) {
  bool all = true;
  for_each_variable_length(array, [&](std::string_view v) { all = all && v == value; });
  return all;
}

}  // namespace cuzarr
