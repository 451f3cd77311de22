// Group: a Zarr group (a node holding arrays and groups), and opening any node by path.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cuzarr/api/array.hpp"
#include "cuzarr/metadata/array_metadata.hpp"
#include "cuzarr/metadata/consolidated_metadata.hpp"
#include "cuzarr/store/store.hpp"

namespace cuzarr {

enum class NodeType { array, group };

/// A direct child of a group.
struct GroupMember {
  std::string name;
  NodeType type;
};

class Group {
 public:
  /// Opens the group at `path` ("" = root). Throws NotFoundError naming the path.
  ///
  /// With `use_consolidated` (the default), consolidated metadata stored with the group (v3: its
  /// zarr.json "consolidated_metadata"; v2: its .zmetadata; see consolidate_metadata) is used:
  /// members(), open_array() and open_group() then answer from it without listing or reading the
  /// store, and the groups they open carry it down. As in zarr-python, it is a snapshot: nodes
  /// created or changed after consolidating are not seen until consolidate_metadata runs again
  /// (or the group is opened with use_consolidated = false). Malformed consolidated metadata
  /// throws InvalidArgumentError naming the file and entry.
  static Group open(std::shared_ptr<Store> store, const std::string& path = "",
                    bool use_consolidated = true);
  /// Creates a group (writes its zarr.json, or with zarr_format 2 its .zgroup and .zattrs). With
  /// overwrite=false an existing group is kept and returned; an existing array is an
  /// InvalidArgumentError.
  static Group create(std::shared_ptr<Store> store, const std::string& path = "",
                      const nlohmann::json& attributes = nlohmann::json::object(),
                      bool overwrite = false, int zarr_format = 3);

  const std::string& path() const { return path_; }
  const std::shared_ptr<Store>& store() const { return store_; }
  const nlohmann::json& attributes() const { return metadata_.attributes; }
  /// 3, or 2 for a group stored as .zgroup / .zattrs.
  int zarr_format() const { return metadata_.zarr_format; }
  /// Replaces the attributes and writes them (zarr.json, or .zattrs for a v2 group).
  void set_attributes(const nlohmann::json& attributes);

  /// True when the group answers from consolidated metadata (see open).
  bool uses_consolidated_metadata() const { return consolidated_ != nullptr; }

  /// Direct children, sorted by name.
  std::vector<GroupMember> members() const;
  Array open_array(const std::string& name) const;
  Group open_group(const std::string& name) const;
  Array create_array(const std::string& name, const ArrayCreateOptions& options) const;
  /// Creates a child group in this group's format.
  Group create_group(const std::string& name,
                     const nlohmann::json& attributes = nlohmann::json::object()) const;

 private:
  Group(std::shared_ptr<Store> store, std::string path, GroupMetadata metadata,
        std::shared_ptr<const ConsolidatedMetadata> consolidated = nullptr,
        std::string consolidated_path = "");
  std::shared_ptr<Store> store_;
  std::string path_;
  GroupMetadata metadata_;
  /// Consolidated metadata of an ancestor (or this group), and this group's path relative to it.
  std::shared_ptr<const ConsolidatedMetadata> consolidated_;
  std::string consolidated_path_;
};

/// The type of the node at `path`, nullopt when there is none.
std::optional<NodeType> node_type(const Store& store, const std::string& path);
/// Joins a node path and a child name ("a/b" + "c" -> "a/b/c"; "" + "c" -> "c").
std::string join_node_path(const std::string& parent, const std::string& child);

/// Opens a store for a location: a directory path (FileStore; created when `create` is set) or
/// "memory://" (a new MemoryStore).
std::shared_ptr<Store> open_store(const std::string& location, bool create = false);

}  // namespace cuzarr
