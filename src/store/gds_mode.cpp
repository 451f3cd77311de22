#include "cuzarr/store/gds_mode.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "cuzarr/core/error.hpp"
#include "store/cufile_library.hpp"

namespace cuzarr {

std::string_view gds_mode_name(GdsMode mode) noexcept {
  switch (mode) {
    case GdsMode::off:
      return "off";
    case GdsMode::on:
      return "on";
    case GdsMode::automatic:
      return "auto";
  }
  return "auto";
}

GdsMode parse_gds_mode(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "on" || lower == "true" || lower == "1") return GdsMode::on;
  if (lower == "off" || lower == "false" || lower == "0") return GdsMode::off;
  if (lower == "auto") return GdsMode::automatic;
  throw InvalidArgumentError(
      fmt::format("GPUDirect Storage mode \"{}\": expected ON, OFF or AUTO", text));
}

GdsMode effective_gds_mode(GdsMode configured) {
  const char* value = std::getenv("CUZARR_GDS");
  if (!value || !*value) return configured;
  try {
    return parse_gds_mode(value);
  } catch (const InvalidArgumentError&) {
    throw InvalidArgumentError(
        fmt::format("environment variable CUZARR_GDS=\"{}\": expected ON, OFF or AUTO", value));
  }
}

bool gds_available() { return detail::CuFileLibrary::instance().available(); }

std::string gds_unavailable_reason() {
  return detail::CuFileLibrary::instance().unavailable_reason();
}

}  // namespace cuzarr
