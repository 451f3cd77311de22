#include "node_io.hpp"

#include <fmt/format.h>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr {

std::string normalize_node_path(const std::string& path) {
  size_t b = 0, e = path.size();
  while (b < e && path[b] == '/') ++b;
  while (e > b && path[e - 1] == '/') --e;
  std::string p = path.substr(b, e - b);
  if (!p.empty()) validate_store_key(p);
  return p;
}

std::string metadata_key(const std::string& node_path) {
  return node_path.empty() ? "zarr.json" : node_path + "/zarr.json";
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

void ensure_parent_groups(Store& store, const std::string& node_path) {
  if (node_path.empty()) return;
  std::string parent;
  size_t pos = 0;
  while (true) {
    // Every ancestor, the root included.
    auto document = read_node_document(store, parent);
    if (document) {
      if (document->value("node_type", "") == "array") {
        throw InvalidArgumentError(fmt::format("cannot create \"{}\": \"{}\" is an array",
                                               node_path, metadata_key(parent)));
      }
    } else {
      store.set(metadata_key(parent), GroupMetadata{}.to_json().dump(2));
    }
    size_t slash = node_path.find('/', pos);
    if (slash == std::string::npos) break;
    parent = node_path.substr(0, slash);
    pos = slash + 1;
  }
}

}  // namespace cuzarr
