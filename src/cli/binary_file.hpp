// Whole files as bytes, for the compress and decompress commands.
#pragma once

#include <string>

#include "cuzarr/memory/buffer.hpp"

namespace cuzarr::cli {

/// The contents of the file at `path`; IoError naming the file when it cannot be read.
Buffer read_binary_file(const std::string& path);
/// Writes `bytes` (host memory) to `path`, replacing it; IoError naming the file on failure.
void write_binary_file(const std::string& path, const Buffer& bytes);

}  // namespace cuzarr::cli
