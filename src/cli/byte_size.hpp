// Byte sizes on the command line: "65536", "64KiB", "64k", "1MiB", "2M", "1GiB".
#pragma once

#include <cstdint>
#include <string_view>

namespace cuzarr::cli {

/// Parses a non-negative size with an optional binary suffix (K/KB/KiB = 1024, M/MB/MiB, G/GB/GiB;
/// case-insensitive; "B" alone means bytes). Throws InvalidArgumentError naming `option`.
uint64_t parse_byte_size(std::string_view text, std::string_view option);

}  // namespace cuzarr::cli
