#include "cuzarr/core/shape.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cuzarr/core/error.hpp"

namespace cuzarr {

int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  int64_t result = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &result)) {
    throw InvalidArgumentError(fmt::format("{} overflows: {} * {}", what, a, b));
  }
  return result;
}

int64_t checked_add(int64_t a, int64_t b, const char* what) {
  int64_t result = 0;
  if (__builtin_add_overflow(a, b, &result)) {
    throw InvalidArgumentError(fmt::format("{} overflows: {} + {}", what, a, b));
  }
  return result;
}

int64_t element_count(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t extent : shape) {
    if (extent < 0)
      throw InvalidArgumentError(
          fmt::format("negative extent in shape {}", shape_to_string(shape)));
    n = checked_mul(n, extent, "element count");
  }
  return n;
}

int64_t byte_count(std::span<const int64_t> shape, int64_t element_size) {
  return checked_mul(element_count(shape), element_size, "byte count");
}

std::vector<int64_t> c_order_strides(std::span<const int64_t> shape, int64_t element_size) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = element_size;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride = checked_mul(stride, shape[d] == 0 ? 1 : shape[d], "stride");
  }
  return strides;
}

std::string shape_to_string(std::span<const int64_t> shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

}  // namespace cuzarr
