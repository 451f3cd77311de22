// How the tool finds the node a command works on: PATH is a directory holding a Zarr array or
// group (its zarr.json), opened as a file store rooted there.
#pragma once

#include <memory>
#include <string>

#include "cuzarr/api/group.hpp"
#include "cuzarr/store/store.hpp"

namespace cuzarr::cli {

struct NodeLocation {
  std::shared_ptr<Store> store;
  NodeType type;
};

/// Opens the node at the directory `path`. Throws NotFoundError naming `path` when there is no
/// Zarr array or group there.
NodeLocation open_node(const std::string& path);

}  // namespace cuzarr::cli
