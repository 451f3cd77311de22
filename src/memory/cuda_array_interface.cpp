#include "cuzarr/memory/cuda_array_interface.hpp"

#include <fmt/format.h>

#include "cuzarr/core/error.hpp"

namespace cuzarr {

std::string array_interface_typestr(DataType dtype) {
  const size_t size = dtype.size();
  // One-byte types have no byte order ('|'); the Zarr in-memory layout is little-endian.
  const char order = size == 1 || dtype.kind() == DataTypeKind::raw ? '|' : '<';
  char code = 'V';
  if (dtype.kind() == DataTypeKind::boolean)
    code = 'b';
  else if (dtype.is_signed_integer())
    code = 'i';
  else if (dtype.is_integer())
    code = 'u';
  else if (dtype.is_float())
    code = 'f';
  else if (dtype.is_complex())
    code = 'c';
  return fmt::format("{}{}{}", order, code, size);
}

CudaArrayInterface cuda_array_interface(const NDBuffer& array, std::optional<Stream> stream,
                                        bool read_only) {
  if (array.kind() == MemoryKind::host) {
    throw InvalidArgumentError(
        "__cuda_array_interface__ needs device or pinned memory, got pageable host memory");
  }
  CudaArrayInterface cai;
  cai.shape.assign(array.shape().begin(), array.shape().end());
  cai.typestr = array_interface_typestr(array.dtype());
  cai.data = array.size() == 0 ? 0 : reinterpret_cast<uintptr_t>(array.data());
  cai.read_only = read_only;
  if (!array.is_c_contiguous()) cai.strides = array.byte_strides();
  if (stream) {
    // Interface v3: 0 is not allowed (ambiguous); 1 and 2 name the two default streams.
    const auto handle = reinterpret_cast<uintptr_t>(stream->native());
    cai.stream = handle == 0 ? uintptr_t{1} : handle;
  }
  return cai;
}

}  // namespace cuzarr
