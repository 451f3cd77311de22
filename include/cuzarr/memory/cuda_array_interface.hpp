// The fields of Numba's `__cuda_array_interface__` (version 3) for an NDBuffer, for the Python
// layer to turn into the dict: shape, typestr, data, strides, version, stream.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuzarr/memory/ndbuffer.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {

struct CudaArrayInterface {
  std::vector<int64_t> shape;
  /// The numpy array-interface type string: "|b1", "|i1", "<u2", "<f4", "<c16", "|V3" (r24).
  std::string typestr;
  /// Address of element [0, ..., 0] (0 for an empty array) and the read-only flag: the "data"
  /// tuple.
  uintptr_t data = 0;
  bool read_only = false;
  /// Byte strides; empty (None in Python) when the array is C-contiguous.
  std::optional<std::vector<int64_t>> strides;
  int version = 3;
  /// The stream the consumer must synchronize with: 1 for the legacy default stream, 2 for the
  /// per-thread default stream, otherwise the cudaStream_t's address; empty (None) for none.
  std::optional<uintptr_t> stream;
};

/// The numpy array-interface type string of `dtype` (little-endian byte order).
std::string array_interface_typestr(DataType dtype);

/// The interface of `array`, which must be device memory or pinned memory (device-accessible
/// through unified addressing); throws InvalidArgumentError for host memory. `stream`: where the
/// work producing the array was queued (empty: the data is ready).
CudaArrayInterface cuda_array_interface(const NDBuffer& array,
                                        std::optional<Stream> stream = std::nullopt,
                                        bool read_only = false);

}  // namespace cuzarr
