#include "view_byte_runs.hpp"

#include <algorithm>
#include <vector>

namespace cuzarr::detail {

void for_each_byte_run(const NDBuffer& view, const std::function<void(uint64_t, uint64_t)>& emit) {
  if (view.size() == 0) return;
  const auto element = static_cast<int64_t>(view.dtype().size());
  // The set of bytes does not change when a dimension is flipped (negative stride), dropped
  // (extent 1 or stride 0: repeats the same bytes) or moved, so normalise to positive strides
  // sorted from outermost to innermost.
  struct Dim {
    int64_t extent;
    int64_t stride;
  };
  std::vector<Dim> dims;
  int64_t offset = view.byte_offset();
  for (size_t d = 0; d < view.ndim(); ++d) {
    int64_t extent = view.shape()[d];
    int64_t stride = view.byte_strides()[d];
    if (extent == 1 || stride == 0) continue;
    if (stride < 0) {
      offset += (extent - 1) * stride;
      stride = -stride;
    }
    dims.push_back({extent, stride});
  }
  std::stable_sort(dims.begin(), dims.end(),
                   [](const Dim& a, const Dim& b) { return a.stride > b.stride; });
  // Fold inner dimensions into one run while they tile memory without gaps.
  int64_t run = element;
  while (!dims.empty() && dims.back().stride == run) {
    run *= dims.back().extent;
    dims.pop_back();
  }
  if (dims.empty()) {
    emit(static_cast<uint64_t>(offset), static_cast<uint64_t>(offset + run));
    return;
  }
  // Odometer over the remaining (outer) dimensions.
  std::vector<int64_t> index(dims.size(), 0);
  int64_t position = offset;
  for (;;) {
    emit(static_cast<uint64_t>(position), static_cast<uint64_t>(position + run));
    size_t d = dims.size();
    while (d > 0) {
      --d;
      if (++index[d] < dims[d].extent) {
        position += dims[d].stride;
        break;
      }
      position -= (dims[d].extent - 1) * dims[d].stride;
      index[d] = 0;
      if (d == 0) return;
    }
  }
}

}  // namespace cuzarr::detail
