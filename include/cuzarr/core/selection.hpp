// numpy-style basic selections: integers, slices with steps (negative too) and an ellipsis.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "cuzarr/core/shape.hpp"

namespace cuzarr {

/// start:stop:step with numpy's defaults and negative-index rules.
struct Slice {
  std::optional<int64_t> start = std::nullopt;
  std::optional<int64_t> stop = std::nullopt;
  std::optional<int64_t> step = std::nullopt;
};
/// "..." : as many full slices as needed.
struct Ellipsis {};

/// One item of a selection: an integer (drops the dimension), a slice, or an ellipsis.
using SelectionItem = std::variant<int64_t, Slice, Ellipsis>;
/// A selection; missing trailing items select everything.
using Selection = std::vector<SelectionItem>;

/// A selection resolved against a shape: per array dimension, `count` positions start + k*step.
struct DimensionSelection {
  int64_t start = 0;
  int64_t step = 1;  ///< never 0; negative for reversed slices
  int64_t count = 0;
  bool dropped = false;  ///< selected by an integer: absent from the result shape
};

struct NormalizedSelection {
  std::vector<DimensionSelection> dims;  ///< one per array dimension
  /// Shape of the result (dropped dimensions removed).
  Shape result_shape() const;
  /// Shape of the result with dropped dimensions kept as extent 1.
  Shape full_result_shape() const;
};

/// Resolves `selection` against `shape` with numpy semantics. Throws InvalidArgumentError for an
/// index out of bounds, a zero step, too many indices or more than one ellipsis.
NormalizedSelection normalize_selection(const Selection& selection, std::span<const int64_t> shape);

/// Selects the whole of `shape`.
NormalizedSelection full_selection(std::span<const int64_t> shape);

/// Parses text like "0:10, :, 5, ..., ::-2" into a Selection. Throws InvalidArgumentError.
Selection parse_selection(std::string_view text);

}  // namespace cuzarr
