// Errors of the metadata parsers: each names the document (file or key) and the field at fault.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "cuzarr/core/error.hpp"

namespace cuzarr::metadata_errors {

[[noreturn]] inline void invalid(const std::string& source, std::string_view field,
                                 std::string_view what) {
  throw InvalidArgumentError(fmt::format("{}: \"{}\" {}", source, field, what));
}

[[noreturn]] inline void unsupported(const std::string& source, std::string_view field,
                                     std::string_view what) {
  throw UnsupportedError(fmt::format("{}: \"{}\" {}", source, field, what));
}

/// Runs `parse`, re-throwing an InvalidArgumentError with `source` and `field` in front.
template <typename Parse>
auto with_context(const std::string& source, std::string_view field, Parse&& parse) {
  try {
    return parse();
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(fmt::format("{}: \"{}\": {}", source, field, e.what()));
  }
}

/// The member `field` of `j`; InvalidArgumentError naming `source` when it is missing.
inline const nlohmann::json& require(const nlohmann::json& j, const std::string& source,
                                     std::string_view field) {
  const auto it = j.find(field);
  if (it == j.end()) invalid(source, field, "is required but missing");
  return *it;
}

}  // namespace cuzarr::metadata_errors
