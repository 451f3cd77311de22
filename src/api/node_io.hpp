// Reading and writing node metadata documents (zarr.json) in a store.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cuzarr/store/store.hpp"

namespace cuzarr {

/// Strips leading/trailing '/' and validates the path ("" = root).
std::string normalize_node_path(const std::string& path);
/// The key of the node's zarr.json.
std::string metadata_key(const std::string& node_path);
/// The parsed zarr.json of the node, nullopt when absent. Throws InvalidArgumentError naming the
/// key when it is not valid JSON or not an object.
std::optional<nlohmann::json> read_node_document(const Store& store, const std::string& node_path);
/// Creates missing groups on the way to `node_path` (as zarr-python does); throws
/// InvalidArgumentError when an ancestor is an array.
void ensure_parent_groups(Store& store, const std::string& node_path);

}  // namespace cuzarr
