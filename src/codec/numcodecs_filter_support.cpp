#include "codec/numcodecs_filter_support.hpp"

#include <fmt/format.h>

#include "codec/numpy_dtype.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {

void require_filter_input(const std::string& codec, const NDBuffer& array, const Shape& shape,
                          const DataType& dtype, const char* direction) {
  if (array.shape() != shape || array.dtype() != dtype) {
    throw InvalidArgumentError(fmt::format("codec \"{}\": {} got an array of {} {}, expected {} {}",
                                           codec, direction, array.dtype().name(),
                                           shape_to_string(array.shape()), dtype.name(),
                                           shape_to_string(shape)));
  }
  if (!is_host_accessible(array.kind())) {
    throw InvalidArgumentError(
        fmt::format("codec \"{}\": the CPU codec needs a host-accessible array", codec));
  }
}

NDBuffer c_ordered(const NDBuffer& array) {
  if (array.is_c_contiguous()) return array;
  NDBuffer copy = NDBuffer::allocate(array.dtype(), array.shape());
  copy.assign(array);
  return copy;
}

DataType dtype_field(const CodecConfiguration& config, const char* field,
                     const DataType& fallback) {
  if (!config.has(field) || config.at(field).is_null()) return fallback;
  const auto text = config.string(field);
  return parse_numpy_dtype(*text, fmt::format("{}\"{}\"", config.prefix(), field));
}

}  // namespace cuzarr
