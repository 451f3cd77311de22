#include "binary_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cuzarr/core/error.hpp"

namespace cuzarr::cli {

Buffer read_binary_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InvalidArgumentError(fmt::format("\"{}\" is a directory, not a file", path));
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw IoError(fmt::format("cannot open \"{}\": {}", path, std::strerror(errno)));
  const std::streamoff size = in.tellg();
  if (size < 0) throw IoError(fmt::format("cannot read the size of \"{}\"", path));
  Buffer buffer = Buffer::allocate(static_cast<size_t>(size));
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(buffer.data()), size))
    throw IoError(fmt::format("cannot read \"{}\"", path));
  return buffer;
}

void write_binary_file(const std::string& path, const Buffer& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw IoError(fmt::format("cannot create \"{}\": {}", path, std::strerror(errno)));
  const auto data = bytes.bytes();
  if (!data.empty() && !out.write(reinterpret_cast<const char*>(data.data()),
                                  static_cast<std::streamsize>(data.size())))
    throw IoError(fmt::format("cannot write \"{}\"", path));
  out.close();
  if (!out) throw IoError(fmt::format("cannot write \"{}\"", path));
}

}  // namespace cuzarr::cli
