#include "cuzarr/api/group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/json_document.hpp"
#include "cuzarr/metadata/v2_array_metadata.hpp"
#include "cuzarr/store/file_store.hpp"
#include "cuzarr/store/memory_store.hpp"
#include "node_io.hpp"

namespace cuzarr {

Group::Group(std::shared_ptr<Store> store, std::string path, GroupMetadata metadata,
             std::shared_ptr<const ConsolidatedMetadata> consolidated,
             std::string consolidated_path)
    : store_(std::move(store)),
      path_(std::move(path)),
      metadata_(std::move(metadata)),
      consolidated_(std::move(consolidated)),
      consolidated_path_(std::move(consolidated_path)) {}

namespace {

/// The consolidated metadata stored with the group at `path`, nullptr when there is none.
std::shared_ptr<const ConsolidatedMetadata> read_consolidated_metadata(
    const Store& store, const std::string& path, const GroupMetadata& metadata) {
  if (metadata.zarr_format == 2) {
    const std::string key = node_document_key(path, kV2ConsolidatedKey);
    const auto bytes = store.get(key);
    if (!bytes) return nullptr;
    return std::make_shared<const ConsolidatedMetadata>(
        ConsolidatedMetadata::from_v2_json(parse_json_document(bytes->as_string_view(), key), key));
  }
  if (!metadata.consolidated_metadata.is_object()) return nullptr;
  return std::make_shared<const ConsolidatedMetadata>(
      ConsolidatedMetadata::from_v3_json(metadata.consolidated_metadata, metadata_key(path)));
}

}  // namespace

Group Group::open(std::shared_ptr<Store> store, const std::string& path, bool use_consolidated) {
  const std::string p = normalize_node_path(path);
  const auto kind = detect_node(*store, p);
  if (!kind)
    throw NotFoundError(fmt::format("no Zarr group at \"{}\" in {}", p, store->description()));
  if (kind->type != NodeType::group) {
    throw InvalidArgumentError(
        fmt::format("\"{}\" is an array, not a group",
                    kind->zarr_format == 2 ? node_document_key(p, kV2ArrayKey) : metadata_key(p)));
  }
  GroupMetadata metadata = read_group_metadata(*store, p, kind->zarr_format);
  auto consolidated = use_consolidated ? read_consolidated_metadata(*store, p, metadata) : nullptr;
  return Group(std::move(store), p, std::move(metadata), std::move(consolidated));
}

Group Group::create(std::shared_ptr<Store> store, const std::string& path,
                    const nlohmann::json& attributes, bool overwrite, int zarr_format) {
  const std::string p = normalize_node_path(path);
  if (!attributes.is_object()) throw InvalidArgumentError("group attributes must be a JSON object");
  if (zarr_format != 2 && zarr_format != 3)
    throw InvalidArgumentError(fmt::format("zarr_format must be 2 or 3, got {}", zarr_format));
  if (auto existing = node_type(*store, p)) {
    if (!overwrite) {
      if (*existing == NodeType::array) {
        throw InvalidArgumentError(
            fmt::format("an array already exists at \"{}\" in {}", p, store->description()));
      }
      return open(std::move(store), p);
    }
    store->erase_prefix(p.empty() ? "" : p + "/");
  }
  ensure_parent_groups(*store, p, zarr_format);
  GroupMetadata metadata;
  metadata.zarr_format = zarr_format;
  metadata.attributes = attributes;
  write_group_metadata(*store, p, metadata);
  return Group(std::move(store), p, std::move(metadata));
}

void Group::set_attributes(const nlohmann::json& attributes) {
  if (!attributes.is_object()) throw InvalidArgumentError("group attributes must be a JSON object");
  metadata_.attributes = attributes;
  write_group_metadata(*store_, path_, metadata_);
}

std::vector<GroupMember> Group::members() const {
  std::vector<GroupMember> members;
  if (consolidated_) {
    for (auto& name : consolidated_->children(consolidated_path_)) {
      const auto* node = consolidated_->find(join_node_path(consolidated_path_, name));
      members.push_back({std::move(name), std::holds_alternative<ArrayMetadata>(*node)
                                              ? NodeType::array
                                              : NodeType::group});
    }
    return members;
  }
  for (const auto& name : store_->list_dir(path_).prefixes) {
    if (auto type = node_type(*store_, join_node_path(path_, name)))
      members.push_back({name, *type});
  }
  std::sort(members.begin(), members.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return members;
}

namespace {

/// The consolidated entry of `name` below the group, throwing NotFoundError when there is none.
const ConsolidatedNode& consolidated_child(const ConsolidatedMetadata& consolidated,
                                           const std::string& relative_path,
                                           const std::string& path, const Store& store) {
  const auto* node = consolidated.find(relative_path);
  if (!node) {
    throw NotFoundError(fmt::format(
        "no node \"{}\" in the consolidated metadata of {} (consolidate again, or open the "
        "group without consolidated metadata, to see nodes created since)",
        path, store.description()));
  }
  return *node;
}

}  // namespace

Array Group::open_array(const std::string& name) const {
  const std::string path = join_node_path(path_, name);
  if (!consolidated_) return Array::open(store_, path);
  const auto& node =
      consolidated_child(*consolidated_, join_node_path(consolidated_path_, name), path, *store_);
  const auto* array = std::get_if<ArrayMetadata>(&node);
  if (!array) throw InvalidArgumentError(fmt::format("\"{}\" is a group, not an array", path));
  return Array::open_with_metadata(store_, path, *array);
}

Group Group::open_group(const std::string& name) const {
  const std::string path = join_node_path(path_, name);
  if (!consolidated_) return Group::open(store_, path);
  const std::string relative = join_node_path(consolidated_path_, name);
  const auto& node = consolidated_child(*consolidated_, relative, path, *store_);
  const auto* group = std::get_if<GroupMetadata>(&node);
  if (!group) throw InvalidArgumentError(fmt::format("\"{}\" is an array, not a group", path));
  // The entry's own "consolidated_metadata" is the (empty) placeholder zarr-python writes, not
  // what the child's zarr.json holds: it must not be written there by set_attributes.
  GroupMetadata metadata = *group;
  metadata.consolidated_metadata = nullptr;
  return Group(store_, path, std::move(metadata), consolidated_, relative);
}

Array Group::create_array(const std::string& name, const ArrayCreateOptions& options) const {
  return Array::create(store_, join_node_path(path_, name), options);
}
Group Group::create_group(const std::string& name, const nlohmann::json& attributes) const {
  return Group::create(store_, join_node_path(path_, name), attributes, false,
                       metadata_.zarr_format);
}

std::optional<NodeType> node_type(const Store& store, const std::string& path) {
  const auto kind = detect_node(store, normalize_node_path(path));
  if (!kind) return std::nullopt;
  return kind->type;
}

std::string join_node_path(const std::string& parent, const std::string& child) {
  if (parent.empty()) return normalize_node_path(child);
  return normalize_node_path(parent + "/" + child);
}

std::shared_ptr<Store> open_store(const std::string& location, bool create) {
  if (location == "memory://" || location == "memory:") return std::make_shared<MemoryStore>();
  std::string path = location;
  if (path.rfind("file://", 0) == 0) path = path.substr(7);
  if (path.find("://") != std::string::npos) {
    throw UnsupportedError(fmt::format(
        "unsupported store location \"{}\" (expected a directory or memory://)", location));
  }
  return std::make_shared<FileStore>(std::filesystem::path(path), create);
}

}  // namespace cuzarr
