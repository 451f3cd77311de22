// Reading and writing node metadata documents in a store: zarr.json (Zarr v3) and .zarray /
// .zgroup / .zattrs (Zarr v2).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cuzarr/api/group.hpp"
#include "cuzarr/metadata/array_metadata.hpp"
#include "cuzarr/store/store.hpp"

namespace cuzarr {

/// What a node path holds.
struct NodeKind {
  NodeType type;
  int zarr_format;  ///< 3 (zarr.json) or 2 (.zarray / .zgroup)
};

/// Strips leading/trailing '/' and validates the path ("" = root).
std::string normalize_node_path(const std::string& path);
/// The key of the node's zarr.json.
std::string metadata_key(const std::string& node_path);
/// The key of a document of the node: `name` is ".zarray", ".zgroup", ".zattrs" or "zarr.json".
std::string node_document_key(const std::string& node_path, const char* name);
/// The parsed zarr.json of the node, nullopt when absent. Throws InvalidArgumentError naming the
/// key when it is not valid JSON or not an object.
std::optional<nlohmann::json> read_node_document(const Store& store, const std::string& node_path);
/// The node at `node_path`: a zarr.json makes it a v3 node (its node_type says which), else a
/// .zarray a v2 array and a .zgroup a v2 group; nullopt when there is none of them. Throws
/// InvalidArgumentError naming the key when a document is malformed, or when a path holds both a
/// .zarray and a .zgroup.
std::optional<NodeKind> detect_node(const Store& store, const std::string& node_path);
/// The metadata of the array at `node_path` in `zarr_format` (as detect_node found it).
ArrayMetadata read_array_metadata(const Store& store, const std::string& node_path,
                                  int zarr_format);
/// The metadata of the group at `node_path` in `zarr_format`.
GroupMetadata read_group_metadata(const Store& store, const std::string& node_path,
                                  int zarr_format);
/// Throws what opening the array would throw once `metadata` is written at `node_path` (its
/// documents parsed back as a read parses them), so that a node is not replaced by one that
/// cannot be opened.
void check_array_metadata_readable(const ArrayMetadata& metadata, const std::string& node_path);
/// Writes the array's documents in its own format: zarr.json, or .zarray and .zattrs.
void write_array_metadata(Store& store, const std::string& node_path,
                          const ArrayMetadata& metadata);
/// Writes the group's documents in its own format: zarr.json, or .zgroup and .zattrs.
void write_group_metadata(Store& store, const std::string& node_path,
                          const GroupMetadata& metadata);
/// Creates missing groups (in `zarr_format`) on the way to `node_path`, as zarr-python does;
/// throws InvalidArgumentError when an ancestor is an array.
void ensure_parent_groups(Store& store, const std::string& node_path, int zarr_format = 3);

}  // namespace cuzarr
