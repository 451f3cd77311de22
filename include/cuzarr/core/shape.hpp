// Shapes, indices and overflow-checked arithmetic on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cuzarr {

/// Extent of each dimension (C order: last dimension varies fastest).
using Shape = std::vector<int64_t>;
/// A position in an N-dimensional grid.
using Index = std::vector<int64_t>;

/// a * b, throwing InvalidArgumentError naming `what` on overflow or negative operands.
int64_t checked_mul(int64_t a, int64_t b, const char* what = "size");
/// a + b, throwing InvalidArgumentError naming `what` on overflow.
int64_t checked_add(int64_t a, int64_t b, const char* what = "size");
/// Product of the extents; throws InvalidArgumentError on a negative extent or overflow.
int64_t element_count(std::span<const int64_t> shape);
/// element_count(shape) * element_size as a byte count, overflow-checked.
int64_t byte_count(std::span<const int64_t> shape, int64_t element_size);
/// ceil(a / b) for a >= 0, b > 0.
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
/// C-order strides in bytes for a contiguous array of `shape` with `element_size`.
std::vector<int64_t> c_order_strides(std::span<const int64_t> shape, int64_t element_size);
/// "[a, b, c]" for messages.
std::string shape_to_string(std::span<const int64_t> shape);

}  // namespace cuzarr
