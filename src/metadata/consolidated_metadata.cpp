#include "cuzarr/metadata/consolidated_metadata.hpp"

#include <fmt/format.h>

#include <string_view>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/v2_array_metadata.hpp"
#include "cuzarr/store/store.hpp"

namespace cuzarr {
namespace {

/// How an entry is named in messages: `source` (the file) and the entry's key.
std::string entry_source(const std::string& source, std::string_view key) {
  return fmt::format("{} (consolidated entry \"{}\")", source, key);
}

/// A node path of an entry: a valid relative store key.
void check_node_path(const std::string& source, const std::string& path) {
  try {
    validate_store_key(path);
  } catch (const InvalidArgumentError& e) {
    throw InvalidArgumentError(
        fmt::format("{}: \"{}\" is not a valid node path ({})", source, path, e.what()));
  }
}

void insert_node(ConsolidatedMetadata& result, const std::string& source, const std::string& path,
                 ConsolidatedNode node) {
  if (!result.nodes.emplace(path, std::move(node)).second)
    throw InvalidArgumentError(fmt::format("{}: node \"{}\" is recorded twice", source, path));
}

/// Adds the entries of a v3 "consolidated_metadata" member, their paths prefixed by `prefix`.
void add_v3_entries(ConsolidatedMetadata& result, const nlohmann::json& j,
                    const std::string& source, const std::string& prefix) {
  if (!j.is_object()) {
    throw InvalidArgumentError(
        fmt::format("{}: \"consolidated_metadata\" must be an object, got {}", source, j.dump()));
  }
  const auto kind = j.find("kind");
  if (kind == j.end() || *kind != "inline") {
    throw UnsupportedError(
        fmt::format("{}: \"consolidated_metadata\" \"kind\" must be \"inline\", got {}", source,
                    kind == j.end() ? std::string("nothing") : kind->dump()));
  }
  if (const auto must = j.find("must_understand"); must != j.end() && !must->is_boolean()) {
    throw InvalidArgumentError(
        fmt::format("{}: \"consolidated_metadata\" \"must_understand\" must be a boolean, got {}",
                    source, must->dump()));
  }
  const auto metadata = j.find("metadata");
  if (metadata == j.end() || !metadata->is_object()) {
    throw InvalidArgumentError(
        fmt::format("{}: \"consolidated_metadata\" \"metadata\" must be an object, got {}", source,
                    metadata == j.end() ? std::string("nothing") : metadata->dump()));
  }
  for (const auto& [key, value] : metadata->items()) {
    const std::string path = prefix.empty() ? key : prefix + "/" + key;
    const std::string where = entry_source(source, path);
    check_node_path(source, path);
    if (!value.is_object()) {
      throw InvalidArgumentError(
          fmt::format("{}: must be a JSON object, got {}", where, value.type_name()));
    }
    const auto node_type = value.find("node_type");
    if (node_type != value.end() && *node_type == "array") {
      insert_node(result, source, path, ArrayMetadata::from_json(value, where));
      continue;
    }
    GroupMetadata group = GroupMetadata::from_json(value, where);
    // The nested form: a group entry carrying its own children.
    if (group.consolidated_metadata.is_object())
      add_v3_entries(result, group.consolidated_metadata, where, path);
    insert_node(result, source, path, std::move(group));
  }
}

/// The v2 documents of one node, as found in .zmetadata.
struct V2NodeDocuments {
  const nlohmann::json* zarray = nullptr;
  const nlohmann::json* zgroup = nullptr;
  const nlohmann::json* zattrs = nullptr;
};

}  // namespace

ConsolidatedMetadata ConsolidatedMetadata::from_v3_json(const nlohmann::json& j,
                                                        const std::string& source) {
  ConsolidatedMetadata result;
  add_v3_entries(result, j, source, "");
  return result;
}

nlohmann::json ConsolidatedMetadata::to_v3_json() const {
  nlohmann::json metadata = nlohmann::json::object();
  for (const auto& [path, node] : nodes) {
    std::visit(
        [&](const auto& m) {
          if (m.zarr_format != 3) {
            throw UnsupportedError(fmt::format(
                "consolidated node \"{}\" is in Zarr v{} format; Zarr v3 consolidated metadata "
                "holds only v3 nodes",
                path, m.zarr_format));
          }
          metadata[path] = m.to_json();
        },
        node);
  }
  return {{"kind", "inline"}, {"must_understand", false}, {"metadata", std::move(metadata)}};
}

ConsolidatedMetadata ConsolidatedMetadata::from_v2_json(const nlohmann::json& zmetadata,
                                                        const std::string& source) {
  if (!zmetadata.is_object()) {
    throw InvalidArgumentError(
        fmt::format("{}: must hold a JSON object, got {}", source, zmetadata.type_name()));
  }
  const auto format = zmetadata.find("zarr_consolidated_format");
  if (format == zmetadata.end() || !format->is_number_integer() || *format != 1) {
    throw UnsupportedError(
        fmt::format("{}: \"zarr_consolidated_format\" must be 1, got {}", source,
                    format == zmetadata.end() ? std::string("nothing") : format->dump()));
  }
  const auto metadata = zmetadata.find("metadata");
  if (metadata == zmetadata.end() || !metadata->is_object()) {
    throw InvalidArgumentError(fmt::format("{}: \"metadata\" must be an object", source));
  }
  // Group the documents by node: "a/b/.zarray" -> node "a/b", document ".zarray".
  std::map<std::string, V2NodeDocuments> documents;
  for (const auto& [key, value] : metadata->items()) {
    const auto slash = key.rfind('/');
    const std::string node = slash == std::string::npos ? "" : key.substr(0, slash);
    const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
    if (!node.empty()) check_node_path(source, node);
    if (!value.is_object()) {
      throw InvalidArgumentError(
          fmt::format("{}: \"metadata\" key \"{}\" must hold an object", source, key));
    }
    auto& entry = documents[node];
    if (name == kV2ArrayKey)
      entry.zarray = &value;
    else if (name == kV2GroupKey)
      entry.zgroup = &value;
    else if (name == kV2AttributesKey)
      entry.zattrs = &value;
    else {
      throw InvalidArgumentError(
          fmt::format("{}: \"metadata\" key \"{}\" is not a .zarray, .zgroup or .zattrs document",
                      source, key));
    }
  }
  ConsolidatedMetadata result;
  for (const auto& [node, docs] : documents) {
    const std::string label = node.empty() ? "the group itself" : "\"" + node + "\"";
    if (docs.zarray && docs.zgroup) {
      throw InvalidArgumentError(
          fmt::format("{}: {} has both a .zarray and a .zgroup entry", source, label));
    }
    const nlohmann::json zattrs = docs.zattrs ? *docs.zattrs : nlohmann::json();
    if (docs.zarray) {
      if (node.empty()) {
        throw InvalidArgumentError(
            fmt::format("{}: key \".zarray\": consolidated metadata belongs to a group", source));
      }
      const std::string key = node + "/" + kV2ArrayKey;
      result.nodes.emplace(
          node, parse_v2_array_metadata(*docs.zarray, zattrs, entry_source(source, key)));
    } else if (docs.zgroup) {
      const std::string key = node.empty() ? kV2GroupKey : node + "/" + kV2GroupKey;
      GroupMetadata group =
          parse_v2_group_metadata(*docs.zgroup, zattrs, entry_source(source, key));
      if (!node.empty()) result.nodes.emplace(node, std::move(group));
    } else if (!node.empty()) {
      throw InvalidArgumentError(fmt::format(
          "{}: key \"{}/{}\" belongs to no node (no .zarray or .zgroup entry for \"{}\")", source,
          node, kV2AttributesKey, node));
    }
  }
  return result;
}

nlohmann::ordered_json ConsolidatedMetadata::to_v2_json(const GroupMetadata& group) const {
  nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
  metadata[kV2GroupKey] = v2_group_metadata_to_json();
  metadata[kV2AttributesKey] = group.attributes;
  for (const auto& [path, node] : nodes) {
    const int format = std::visit([](const auto& m) { return m.zarr_format; }, node);
    if (format != 2) {
      throw UnsupportedError(fmt::format(
          "consolidated node \"{}\" is in Zarr v{} format; .zmetadata holds only v2 nodes", path,
          format));
    }
    if (const auto* array = std::get_if<ArrayMetadata>(&node)) {
      metadata[path + "/" + kV2ArrayKey] = v2_array_metadata_to_json(*array);
      metadata[path + "/" + kV2AttributesKey] = array->attributes;
    } else {
      metadata[path + "/" + kV2GroupKey] = v2_group_metadata_to_json();
      metadata[path + "/" + kV2AttributesKey] = std::get<GroupMetadata>(node).attributes;
    }
  }
  nlohmann::ordered_json document;
  document["metadata"] = std::move(metadata);
  document["zarr_consolidated_format"] = 1;
  return document;
}

const ConsolidatedNode* ConsolidatedMetadata::find(const std::string& path) const {
  const auto it = nodes.find(path);
  return it == nodes.end() ? nullptr : &it->second;
}

std::vector<std::string> ConsolidatedMetadata::children(const std::string& group_path) const {
  const std::string prefix = group_path.empty() ? "" : group_path + "/";
  std::vector<std::string> names;
  for (auto it = nodes.lower_bound(prefix); it != nodes.end(); ++it) {
    const std::string& path = it->first;
    if (path.compare(0, prefix.size(), prefix) != 0) break;
    const std::string rest = path.substr(prefix.size());
    if (!rest.empty() && rest.find('/') == std::string::npos) names.push_back(rest);
  }
  return names;
}

nlohmann::json empty_v3_consolidated_metadata() {
  return {{"kind", "inline"}, {"must_understand", false}, {"metadata", nlohmann::json::object()}};
}

}  // namespace cuzarr
