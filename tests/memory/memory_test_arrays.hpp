// Test arrays for the memory tests: int32 arrays holding 0, 1, 2, ... and their elements read in
// C order of any (host-accessible) view.
#pragma once

#include <cstring>
#include <numeric>
#include <vector>

#include "cuzarr/memory/ndbuffer.hpp"

namespace cuzarr::test {

inline const DataType kInt32 = DataType(DataTypeKind::int32);

/// A C-contiguous int32 host array holding first, first + 1, ...
inline NDBuffer iota_int32(Shape shape, int32_t first = 0, MemoryKind kind = MemoryKind::host) {
  NDBuffer a = NDBuffer::allocate(kInt32, std::move(shape), kind);
  std::iota(a.data_as<int32_t>(), a.data_as<int32_t>() + a.size(), first);
  return a;
}

/// Every element of a host-accessible int32 view in C order.
inline std::vector<int32_t> int32_elements(const NDBuffer& a) {
  std::vector<int32_t> out;
  if (a.size() == 0) return out;
  Index index(a.ndim(), 0);
  while (true) {
    const std::byte* p = a.data();
    for (size_t d = 0; d < index.size(); ++d) p += index[d] * a.byte_strides()[d];
    int32_t v;
    std::memcpy(&v, p, sizeof v);
    out.push_back(v);
    size_t d = a.ndim();
    while (d > 0 && ++index[d - 1] == a.shape()[d - 1]) index[--d] = 0;
    if (d == 0) return out;
  }
}

/// A strided view of a fresh array: every other column, rows reversed (4 x 3 from an 8 x 6 base).
inline NDBuffer strided_view(MemoryKind kind = MemoryKind::host, int32_t first = 0) {
  NDBuffer base = iota_int32({4, 6}, first, kind);
  return base.sliced(1, 0, 2, 3).sliced(0, 3, -1, 4);
}

}  // namespace cuzarr::test
