// Array::read_strings / write_strings: variable-length arrays as std::string values.
#include <fmt/format.h>

#include "cuzarr/api/array.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/utf.hpp"
#include "cuzarr/memory/variable_length_ndbuffer.hpp"

namespace cuzarr {
namespace {

void require_variable_length(const Array& array, const char* what) {
  if (!array.data_type().is_variable_length()) {
    throw InvalidArgumentError(
        fmt::format("{} of \"{}\": the array's data type is {}, not string or "
                    "variable_length_bytes",
                    what, array.path(), array.data_type().description()));
  }
}

}  // namespace

std::vector<std::string> Array::read_strings(const Selection& selection) const {
  require_variable_length(*this, "read_strings");
  return variable_length_to_strings(read(selection));
}

void Array::write_strings(const Selection& selection,
                          const std::vector<std::string>& values) const {
  require_variable_length(*this, "write_strings");
  const auto normalized = normalize_selection(selection, metadata_->shape);
  const Shape shape = normalized.result_shape();
  if (element_count(shape) != static_cast<int64_t>(values.size())) {
    throw InvalidArgumentError(
        fmt::format("write_strings to \"{}\": {} values for a selection of shape {}", path_,
                    values.size(), shape_to_string(shape)));
  }
  if (data_type().kind() == DataTypeKind::string) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (!is_valid_utf8(values[i])) {
        throw InvalidArgumentError(
            fmt::format("write_strings to \"{}\": value {} is not valid UTF-8", path_, i));
      }
    }
  }
  write(selection, make_variable_length_ndbuffer(shape, values, data_type()));
}

}  // namespace cuzarr
