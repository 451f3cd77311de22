// Consolidated metadata: the metadata of every node below a group, gathered in one document so
// that a hierarchy can be opened with a single read.
//
// Zarr v3 (zarr-python's extension, not yet part of the v3 core spec): the group's zarr.json holds
//   "consolidated_metadata": {"kind": "inline", "must_understand": false,
//                             "metadata": {"a": {<a's zarr.json>}, "s/b": {...}}}
// Zarr v2 (zarr-python 2's convention): a ".zmetadata" document beside the group's .zgroup,
//   {"zarr_consolidated_format": 1, "metadata": {".zgroup": {...}, "a/.zarray": {...}, ...}}.
// Paths are relative to the consolidating group and '/'-separated ("s/b").
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr {

/// Store key name of the Zarr v2 consolidated metadata document.
inline constexpr const char* kV2ConsolidatedKey = ".zmetadata";

/// The metadata of one consolidated node.
using ConsolidatedNode = std::variant<ArrayMetadata, GroupMetadata>;

struct ConsolidatedMetadata {
  /// Every node below the consolidating group (not the group itself), by relative path.
  std::map<std::string, ConsolidatedNode> nodes;

  /// Parses the value of a v3 zarr.json "consolidated_metadata" member. A group entry that holds
  /// consolidated metadata of its own (the nested form) contributes its entries too. Throws
  /// InvalidArgumentError / UnsupportedError naming `source` and the entry at fault.
  static ConsolidatedMetadata from_v3_json(const nlohmann::json& j, const std::string& source);
  /// The v3 "consolidated_metadata" member (the flat form zarr-python writes). Throws
  /// UnsupportedError naming the entry when a node is not in Zarr v3 format.
  nlohmann::json to_v3_json() const;

  /// Parses a v2 .zmetadata document. Its entries for the group itself (".zgroup", ".zattrs") are
  /// checked but not recorded. Throws InvalidArgumentError / UnsupportedError naming `source` and
  /// the key at fault (an unknown document name, a node with both .zarray and .zgroup, .zattrs
  /// without either, malformed node metadata).
  static ConsolidatedMetadata from_v2_json(const nlohmann::json& zmetadata,
                                           const std::string& source);
  /// The .zmetadata document, with `group` (the consolidating group) as ".zgroup" / ".zattrs".
  /// Throws UnsupportedError naming the entry when a node is not in Zarr v2 format.
  nlohmann::ordered_json to_v2_json(const GroupMetadata& group) const;

  /// The node at relative path `path`, nullptr when absent.
  const ConsolidatedNode* find(const std::string& path) const;
  /// Names of the direct children of the relative group path `group_path` ("" = the top), sorted.
  std::vector<std::string> children(const std::string& group_path) const;
};

/// The v3 "consolidated_metadata" member of a group whose children are recorded elsewhere (as
/// zarr-python writes into the group entries of a consolidated hierarchy): no entries.
nlohmann::json empty_v3_consolidated_metadata();

}  // namespace cuzarr
