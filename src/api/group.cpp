#include "cuzarr/api/group.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "cuzarr/core/error.hpp"
#include "cuzarr/store/file_store.hpp"
#include "cuzarr/store/memory_store.hpp"
#include "node_io.hpp"

namespace cuzarr {

Group::Group(std::shared_ptr<Store> store, std::string path, GroupMetadata metadata)
    : store_(std::move(store)), path_(std::move(path)), metadata_(std::move(metadata)) {}

Group Group::open(std::shared_ptr<Store> store, const std::string& path) {
  const std::string p = normalize_node_path(path);
  auto document = read_node_document(*store, p);
  if (!document)
    throw NotFoundError(fmt::format("no Zarr group at \"{}\" in {}", p, store->description()));
  const std::string source = metadata_key(p);
  if (document->value("node_type", "") != "group") {
    throw InvalidArgumentError(
        fmt::format("\"{}\" is a {}, not a group", source, document->value("node_type", "node")));
  }
  return Group(std::move(store), p, GroupMetadata::from_json(*document, source));
}

Group Group::create(std::shared_ptr<Store> store, const std::string& path,
                    const nlohmann::json& attributes, bool overwrite) {
  const std::string p = normalize_node_path(path);
  if (!attributes.is_object()) throw InvalidArgumentError("group attributes must be a JSON object");
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
  ensure_parent_groups(*store, p);
  GroupMetadata metadata;
  metadata.attributes = attributes;
  store->set(metadata_key(p), metadata.to_json().dump(2));
  return Group(std::move(store), p, std::move(metadata));
}

void Group::set_attributes(const nlohmann::json& attributes) {
  if (!attributes.is_object()) throw InvalidArgumentError("group attributes must be a JSON object");
  metadata_.attributes = attributes;
  store_->set(metadata_key(path_), metadata_.to_json().dump(2));
}

std::vector<GroupMember> Group::members() const {
  std::vector<GroupMember> members;
  for (const auto& name : store_->list_dir(path_).prefixes) {
    if (auto type = node_type(*store_, join_node_path(path_, name)))
      members.push_back({name, *type});
  }
  std::sort(members.begin(), members.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return members;
}

Array Group::open_array(const std::string& name) const {
  return Array::open(store_, join_node_path(path_, name));
}
Group Group::open_group(const std::string& name) const {
  return Group::open(store_, join_node_path(path_, name));
}
Array Group::create_array(const std::string& name, const ArrayCreateOptions& options) const {
  return Array::create(store_, join_node_path(path_, name), options);
}
Group Group::create_group(const std::string& name, const nlohmann::json& attributes) const {
  return Group::create(store_, join_node_path(path_, name), attributes);
}

std::optional<NodeType> node_type(const Store& store, const std::string& path) {
  auto document = read_node_document(store, normalize_node_path(path));
  if (!document) return std::nullopt;
  const std::string type = document->value("node_type", "");
  if (type == "array") return NodeType::array;
  if (type == "group") return NodeType::group;
  throw InvalidArgumentError(
      fmt::format("\"{}\": node_type must be \"array\" or \"group\", got \"{}\"",
                  metadata_key(normalize_node_path(path)), type));
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
