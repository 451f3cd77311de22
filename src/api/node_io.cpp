#include "node_io.hpp"

#include <fmt/format.h>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/json_document.hpp"
#include "cuzarr/metadata/v2_array_metadata.hpp"

namespace cuzarr {
namespace {

/// The parsed JSON document at `key`, null when absent.
nlohmann::json read_json(const Store& store, const std::string& key) {
  auto bytes = store.get(key);
  if (!bytes) return nullptr;
  return parse_json_document(bytes->as_string_view(), key);
}

}  // namespace

std::string normalize_node_path(const std::string& path) {
  size_t b = 0, e = path.size();
  while (b < e && path[b] == '/') ++b;
  while (e > b && path[e - 1] == '/') --e;
  std::string p = path.substr(b, e - b);
  if (!p.empty()) validate_store_key(p);
  return p;
}

std::string node_document_key(const std::string& node_path, const char* name) {
  return node_path.empty() ? std::string(name) : node_path + "/" + name;
}

std::string metadata_key(const std::string& node_path) {
  return node_document_key(node_path, "zarr.json");
}

std::optional<nlohmann::json> read_node_document(const Store& store, const std::string& node_path) {
  const std::string key = metadata_key(node_path);
  auto bytes = store.get(key);
  if (!bytes) return std::nullopt;
  auto document = parse_json_document(bytes->as_string_view(), key);
  if (!document.is_object())
    throw InvalidArgumentError(fmt::format("\"{}\" must hold a JSON object", key));
  if (!document.contains("zarr_format") || document["zarr_format"] != 3) {
    throw UnsupportedError(fmt::format("\"{}\": zarr_format must be 3", key));
  }
  return document;
}

std::optional<NodeKind> detect_node(const Store& store, const std::string& node_path) {
  if (auto document = read_node_document(store, node_path)) {
    const std::string type = document->value("node_type", "");
    if (type == "array") return NodeKind{NodeType::array, 3};
    if (type == "group") return NodeKind{NodeType::group, 3};
    throw InvalidArgumentError(
        fmt::format("\"{}\": node_type must be \"array\" or \"group\", got \"{}\"",
                    metadata_key(node_path), type));
  }
  // Zarr v2 spec, "Hierarchies": an array is marked by .zarray, a group by .zgroup.
  const bool array = store.exists(node_document_key(node_path, kV2ArrayKey));
  const bool group = store.exists(node_document_key(node_path, kV2GroupKey));
  if (array && group) {
    throw InvalidArgumentError(
        fmt::format("\"{}\" holds both a {} and a {}", node_path, kV2ArrayKey, kV2GroupKey));
  }
  if (array) return NodeKind{NodeType::array, 2};
  if (group) return NodeKind{NodeType::group, 2};
  return std::nullopt;
}

ArrayMetadata read_array_metadata(const Store& store, const std::string& node_path,
                                  int zarr_format) {
  if (zarr_format == 2) {
    const std::string key = node_document_key(node_path, kV2ArrayKey);
    const auto zarray = read_json(store, key);
    if (zarray.is_null()) throw NotFoundError(fmt::format("\"{}\" was removed", key));
    return parse_v2_array_metadata(
        zarray, read_json(store, node_document_key(node_path, kV2AttributesKey)), key);
  }
  const std::string key = metadata_key(node_path);
  auto document = read_node_document(store, node_path);
  if (!document) throw NotFoundError(fmt::format("\"{}\" was removed", key));
  return ArrayMetadata::from_json(*document, key);
}

GroupMetadata read_group_metadata(const Store& store, const std::string& node_path,
                                  int zarr_format) {
  if (zarr_format == 2) {
    const std::string key = node_document_key(node_path, kV2GroupKey);
    const auto zgroup = read_json(store, key);
    if (zgroup.is_null()) throw NotFoundError(fmt::format("\"{}\" was removed", key));
    return parse_v2_group_metadata(
        zgroup, read_json(store, node_document_key(node_path, kV2AttributesKey)), key);
  }
  const std::string key = metadata_key(node_path);
  auto document = read_node_document(store, node_path);
  if (!document) throw NotFoundError(fmt::format("\"{}\" was removed", key));
  return GroupMetadata::from_json(*document, key);
}

void check_array_metadata_readable(const ArrayMetadata& metadata, const std::string& node_path) {
  if (metadata.zarr_format == 2) {
    parse_v2_array_metadata(v2_array_metadata_to_json(metadata), metadata.attributes,
                            node_document_key(node_path, kV2ArrayKey));
  } else {
    ArrayMetadata::from_json(metadata.to_json(), metadata_key(node_path));
  }
}

void write_array_metadata(Store& store, const std::string& node_path,
                          const ArrayMetadata& metadata) {
  if (metadata.zarr_format != 2) {
    store.set(metadata_key(node_path), dump_json_document(metadata.to_json(), 2));
    return;
  }
  // zarr-python writes .zattrs beside every v2 node, {} included.
  store.set(node_document_key(node_path, kV2ArrayKey),
            dump_json_document(v2_array_metadata_to_json(metadata), 2));
  store.set(node_document_key(node_path, kV2AttributesKey),
            dump_json_document(metadata.attributes, 2));
}

void write_group_metadata(Store& store, const std::string& node_path,
                          const GroupMetadata& metadata) {
  if (metadata.zarr_format != 2) {
    store.set(metadata_key(node_path), dump_json_document(metadata.to_json(), 2));
    return;
  }
  store.set(node_document_key(node_path, kV2GroupKey), v2_group_metadata_to_json().dump(2));
  store.set(node_document_key(node_path, kV2AttributesKey),
            dump_json_document(metadata.attributes, 2));
}

void ensure_parent_groups(Store& store, const std::string& node_path, int zarr_format) {
  if (node_path.empty()) return;
  std::string parent;
  size_t pos = 0;
  while (true) {
    // Every ancestor, the root included.
    if (auto kind = detect_node(store, parent)) {
      if (kind->type == NodeType::array) {
        throw InvalidArgumentError(
            fmt::format("cannot create \"{}\": \"{}\" is an array", node_path,
                        kind->zarr_format == 2 ? node_document_key(parent, kV2ArrayKey)
                                               : metadata_key(parent)));
      }
    } else {
      GroupMetadata group;
      group.zarr_format = zarr_format;
      write_group_metadata(store, parent, group);
    }
    size_t slash = node_path.find('/', pos);
    if (slash == std::string::npos) break;
    parent = node_path.substr(0, slash);
    pos = slash + 1;
  }
}

}  // namespace cuzarr
