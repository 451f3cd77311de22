#include "byte_size.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>
#include <string>

#include "cuzarr/core/error.hpp"

namespace cuzarr::cli {

uint64_t parse_byte_size(std::string_view text, std::string_view option) {
  auto bad = [&] {
    return InvalidArgumentError(fmt::format(
        "{}: \"{}\" is not a byte size (expected e.g. 65536, 64KiB, 1MiB)", option, text));
  };
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) throw bad();
  std::string suffix(end, text.data() + text.size());
  for (char& c : suffix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  uint64_t scale = 1;
  if (suffix.empty() || suffix == "b") {
    scale = 1;
  } else if (suffix == "k" || suffix == "kb" || suffix == "kib") {
    scale = uint64_t{1} << 10;
  } else if (suffix == "m" || suffix == "mb" || suffix == "mib") {
    scale = uint64_t{1} << 20;
  } else if (suffix == "g" || suffix == "gb" || suffix == "gib") {
    scale = uint64_t{1} << 30;
  } else {
    throw bad();
  }
  if (value > std::numeric_limits<uint64_t>::max() / scale) throw bad();
  return value * scale;
}

}  // namespace cuzarr::cli
