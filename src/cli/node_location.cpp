#include "node_location.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "cuzarr/core/error.hpp"

namespace cuzarr::cli {

NodeLocation open_node(const std::string& path) {
  if (!std::filesystem::is_directory(path)) {
    throw NotFoundError(fmt::format("{} is not a directory holding a Zarr array or group", path));
  }
  auto store = open_store(path, /*create=*/false);
  auto type = node_type(*store, "");
  if (!type)
    throw NotFoundError(
        fmt::format("no Zarr array or group at {} (no zarr.json, .zarray or .zgroup there)", path));
  return {store, *type};
}

}  // namespace cuzarr::cli
