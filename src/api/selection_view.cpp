#include "selection_view.hpp"

namespace cuzarr::detail {

NDBuffer select_view(const NDBuffer& array, const NormalizedSelection& selection) {
  NDBuffer view = array;
  // From the last dimension back, so that dropping one keeps the numbers of those before it.
  for (size_t d = selection.dims.size(); d-- > 0;) {
    const auto& dim = selection.dims[d];
    view =
        dim.dropped ? view.indexed(d, dim.start) : view.sliced(d, dim.start, dim.step, dim.count);
  }
  return view;
}

SelectionItem to_selection_item(const DimensionSelection& dim) {
  if (dim.dropped) return dim.start;
  if (dim.count == 0) return Slice{dim.start, dim.start, 1};
  const int64_t stop = dim.start + dim.count * dim.step;
  if (stop < 0) return Slice{dim.start, std::nullopt, dim.step};
  return Slice{dim.start, stop, dim.step};
}

}  // namespace cuzarr::detail
