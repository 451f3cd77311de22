#include "codec/element_cast.hpp"

#include <fmt/format.h>

#include "cuzarr/core/error.hpp"

namespace cuzarr {

void throw_unsupported_element_type(const DataType& type, const std::string& where) {
  throw UnsupportedError(
      fmt::format("{}: data type {} is not supported (expected bool, an integer or a float type)",
                  where, type.name()));
}

void cast_elements(const std::byte* src, const DataType& from, std::byte* dst, const DataType& to,
                   size_t count, const std::string& where) {
  visit_real_type(from, where, [&](auto s) {
    using S = decltype(s);
    visit_real_type(to, where, [&](auto d) {
      using D = decltype(d);
      for (size_t i = 0; i < count; ++i) {
        store_element<D>(dst + i * sizeof(D), convert<D>(load_element<S>(src + i * sizeof(S))));
      }
    });
  });
}

}  // namespace cuzarr
