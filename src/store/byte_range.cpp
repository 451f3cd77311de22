#include "cuzarr/store/byte_range.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cuzarr {

void ByteRange::resolve(uint64_t value_size, uint64_t& begin, uint64_t& end) const {
  switch (kind) {
    case Kind::full:
      begin = 0;
      end = value_size;
      return;
    case Kind::range:
      begin = std::min(offset, value_size);
      end = std::min(value_size, begin + std::min(length, value_size - begin));
      return;
    case Kind::offset:
      begin = std::min(offset, value_size);
      end = value_size;
      return;
    case Kind::suffix:
      begin = value_size - std::min(length, value_size);
      end = value_size;
      return;
  }
}

std::string ByteRange::to_string() const {
  switch (kind) {
    case Kind::full:
      return "all bytes";
    case Kind::range:
      return fmt::format("bytes [{}, {})", offset, offset + length);
    case Kind::offset:
      return fmt::format("bytes from {}", offset);
    case Kind::suffix:
      return fmt::format("last {} bytes", length);
  }
  return "?";
}

}  // namespace cuzarr
