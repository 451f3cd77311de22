// Views and selections from resolved (normalised) selections.
#pragma once

#include "cuzarr/core/selection.hpp"
#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr::detail {

/// The view of `array` that `selection` (resolved against array.shape()) selects: dropped
/// dimensions are removed, as numpy does.
NDBuffer select_view(const NDBuffer& array, const NormalizedSelection& selection);

/// A Selection that selects exactly `dim` (an integer when dropped, else a slice; reversed
/// slices that reach index 0 get an open stop, since a stop of -1 would mean the last index).
SelectionItem to_selection_item(const DimensionSelection& dim);

}  // namespace cuzarr::detail
