#include "cuzarr/core/selection.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string>

#include "cuzarr/core/error.hpp"

namespace cuzarr {

Shape NormalizedSelection::result_shape() const {
  Shape s;
  for (const auto& d : dims)
    if (!d.dropped) s.push_back(d.count);
  return s;
}

Shape NormalizedSelection::full_result_shape() const {
  Shape s;
  for (const auto& d : dims) s.push_back(d.count);
  return s;
}

namespace {

DimensionSelection resolve_integer(int64_t index, int64_t extent, size_t dim) {
  int64_t i = index < 0 ? index + extent : index;
  if (i < 0 || i >= extent) {
    throw InvalidArgumentError(
        fmt::format("index {} is out of bounds for dimension {} of extent {}", index, dim, extent));
  }
  return {i, 1, 1, true};
}

// numpy's PySlice_AdjustIndices.
DimensionSelection resolve_slice(const Slice& s, int64_t extent, size_t dim) {
  int64_t step = s.step.value_or(1);
  if (step == 0)
    throw InvalidArgumentError(fmt::format("slice step cannot be zero (dimension {})", dim));
  int64_t start, stop;
  if (step > 0) {
    start = s.start ? *s.start : 0;
    stop = s.stop ? *s.stop : extent;
    if (start < 0) start = std::max<int64_t>(start + extent, 0);
    if (stop < 0) stop = std::max<int64_t>(stop + extent, 0);
    start = std::min(start, extent);
    stop = std::min(stop, extent);
    // (stop - start - 1) / step + 1, not (stop - start + step - 1) / step: no overflow for any
    // step. A selection of at most one element takes step 1 (the step is never used then).
    const int64_t count = stop > start ? (stop - start - 1) / step + 1 : 0;
    return {start, count > 1 ? step : 1, count, false};
  }
  start = s.start ? *s.start : extent - 1;
  stop = s.stop ? *s.stop : -1 - extent;  // "before the beginning"
  if (start < 0)
    start = std::max<int64_t>(start + extent, -1);
  else
    start = std::min(start, extent - 1);
  if (stop < 0)
    stop = std::max<int64_t>(stop + extent, -1);
  else
    stop = std::min(stop, extent - 1);
  // The step's magnitude as unsigned: -step overflows for INT64_MIN.
  const uint64_t magnitude = uint64_t{0} - static_cast<uint64_t>(step);
  const auto count =
      start > stop ? static_cast<int64_t>(static_cast<uint64_t>(start - stop - 1) / magnitude + 1)
                   : 0;
  return {count > 0 ? start : 0, count > 1 ? step : 1, count, false};
}

}  // namespace

NormalizedSelection normalize_selection(const Selection& selection,
                                        std::span<const int64_t> shape) {
  size_t ellipses = 0, explicit_dims = 0;
  for (const auto& item : selection) {
    if (std::holds_alternative<Ellipsis>(item))
      ++ellipses;
    else
      ++explicit_dims;
  }
  if (ellipses > 1) throw InvalidArgumentError("a selection can have only one ellipsis");
  if (explicit_dims > shape.size()) {
    throw InvalidArgumentError(fmt::format("too many indices: {} for an array of {} dimensions",
                                           explicit_dims, shape.size()));
  }
  NormalizedSelection out;
  size_t dim = 0;
  for (const auto& item : selection) {
    if (std::holds_alternative<Ellipsis>(item)) {
      for (size_t k = 0; k < shape.size() - explicit_dims; ++k, ++dim)
        out.dims.push_back({0, 1, shape[dim], false});
    } else if (const auto* i = std::get_if<int64_t>(&item)) {
      out.dims.push_back(resolve_integer(*i, shape[dim], dim));
      ++dim;
    } else {
      out.dims.push_back(resolve_slice(std::get<Slice>(item), shape[dim], dim));
      ++dim;
    }
  }
  for (; dim < shape.size(); ++dim) out.dims.push_back({0, 1, shape[dim], false});
  return out;
}

NormalizedSelection full_selection(std::span<const int64_t> shape) {
  return normalize_selection({}, shape);
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<int64_t> parse_optional_int(std::string_view s, std::string_view whole) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    throw InvalidArgumentError(fmt::format("selection \"{}\": \"{}\" is not an integer", whole, s));
  }
  return v;
}

}  // namespace

Selection parse_selection(std::string_view text) {
  Selection sel;
  if (trim(text).empty()) return sel;
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    std::string_view item = trim(
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (item == "...") {
      sel.emplace_back(Ellipsis{});
    } else if (item.find(':') == std::string_view::npos) {
      auto v = parse_optional_int(item, text);
      if (!v) throw InvalidArgumentError(fmt::format("selection \"{}\" has an empty item", text));
      sel.emplace_back(*v);
    } else {
      Slice s;
      size_t c1 = item.find(':');
      size_t c2 = item.find(':', c1 + 1);
      s.start = parse_optional_int(item.substr(0, c1), text);
      if (c2 == std::string_view::npos) {
        s.stop = parse_optional_int(item.substr(c1 + 1), text);
      } else {
        s.stop = parse_optional_int(item.substr(c1 + 1, c2 - c1 - 1), text);
        s.step = parse_optional_int(item.substr(c2 + 1), text);
      }
      sel.emplace_back(s);
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return sel;
}

}  // namespace cuzarr
