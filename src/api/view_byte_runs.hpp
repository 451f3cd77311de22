// The bytes a strided view covers, as contiguous runs relative to the start of its Buffer.
#pragma once

#include <cstdint>
#include <functional>

#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr::detail {

/// Calls emit(begin, end) for runs of bytes that together cover exactly the elements of `view`
/// (offsets from view.buffer().data()). Dimensions are reordered and flipped so that every run is
/// as long as the layout allows (a C-contiguous view is one run; a column of a C-order matrix is
/// one run per element). Runs come in increasing order when the view's strides are positive and
/// C-ordered, in no particular order otherwise. Broadcast (zero) strides cover their bytes once.
void for_each_byte_run(const NDBuffer& view, const std::function<void(uint64_t, uint64_t)>& emit);

}  // namespace cuzarr::detail
