// Prints an array the way numpy's str() does: nested brackets, aligned columns, and summaries
// ("...") for arrays past a size threshold.
#pragma once

#include <cstdint>
#include <string>

#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr::cli {

struct PrintOptions {
  int64_t threshold = 1000;  ///< summarise arrays with more elements than this (numpy's default)
  int64_t edge_items = 3;    ///< items kept at each end of a summarised dimension
  size_t line_width = 75;    ///< wrap rows longer than this
};

/// The text of `array` (host-accessible) as numpy's str() would print it: `[[1 2]\n [3 4]]`,
/// `[0. 1.5 nan]`, `[ True False]`, `[1.+2.j 3.-4.j]`; a zero-dimensional array prints its one
/// value. Floats use at most 8 fractional digits and switch to scientific notation like numpy.
std::string format_array(const NDBuffer& array, const PrintOptions& options = {});

}  // namespace cuzarr::cli
