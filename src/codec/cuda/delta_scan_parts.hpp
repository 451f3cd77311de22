// How the GPU delta decode splits a chunk among the thread blocks of a launch (written once for the
// CPU tests and the kernels). Block `part` of `parts` scans elements [begin, end): ranges are
// consecutive, cover the chunk exactly once, and start at multiples of `granule` elements (a
// thread's vector of elements), so a 16-byte aligned chunk keeps every range 16-byte aligned.
// Each block adds up its range, finds the sum of the ranges before it by looking back over their
// published sums, then scans its range from there (delta_kernels.cu).
#pragma once

#include <cstdint>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

struct DeltaScanRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};

CUZARR_HOST_DEVICE inline DeltaScanRange delta_scan_range(uint64_t n, uint32_t parts, uint32_t part,
                                                          uint32_t granule) {
  const uint64_t share = (n + parts - 1) / parts;
  const uint64_t per = (share + granule - 1) / granule * granule;
  DeltaScanRange r;
  r.begin = uint64_t{part} * per < n ? uint64_t{part} * per : n;
  r.end = n - r.begin < per ? n : r.begin + per;
  return r;
}

}  // namespace cuzarr::gpu
