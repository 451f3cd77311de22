// What a codec knows about the chunk it encodes: its shape, data type and fill value (the "array
// representation" of the Zarr v3 spec, "Codecs").
#pragma once

#include <cstddef>
#include <vector>

#include "cuzarr/core/data_type.hpp"
#include "cuzarr/core/shape.hpp"

namespace cuzarr {

struct ChunkRepresentation {
  Shape shape;
  DataType data_type;
  std::vector<std::byte> fill_value;  ///< one element, host byte order

  /// Decoded size of one chunk in bytes.
  int64_t nbytes() const { return byte_count(shape, static_cast<int64_t>(data_type.size())); }
};

}  // namespace cuzarr
