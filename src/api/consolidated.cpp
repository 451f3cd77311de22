#include "cuzarr/api/consolidated.hpp"

#include <fmt/format.h>

#include "cuzarr/api/group.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/consolidated_metadata.hpp"
#include "cuzarr/metadata/json_document.hpp"
#include "node_io.hpp"

namespace cuzarr {
namespace {

/// Records the nodes below `group` (paths relative to the consolidating group at `root_path`).
void record_members(const Group& group, const std::string& root_path, int zarr_format,
                    ConsolidatedMetadata& out) {
  for (const auto& member : group.members()) {
    const std::string path = join_node_path(group.path(), member.name);
    const std::string relative = root_path.empty() ? path : path.substr(root_path.size() + 1);
    const auto kind = detect_node(*group.store(), path);
    if (!kind) continue;  // removed while walking
    if (kind->zarr_format != zarr_format) {
      throw UnsupportedError(
          fmt::format("cannot consolidate \"{}\": it is a Zarr v{} node below a Zarr v{} group",
                      path, kind->zarr_format, zarr_format));
    }
    if (kind->type == NodeType::array) {
      out.nodes.emplace(relative, read_array_metadata(*group.store(), path, zarr_format));
      continue;
    }
    GroupMetadata metadata = read_group_metadata(*group.store(), path, zarr_format);
    // As zarr-python writes it: every group entry says its children are consolidated (in the
    // flat map of the top group).
    metadata.consolidated_metadata =
        zarr_format == 3 ? empty_v3_consolidated_metadata() : nlohmann::json();
    out.nodes.emplace(relative, std::move(metadata));
    record_members(Group::open(group.store(), path, false), root_path, zarr_format, out);
  }
}

}  // namespace

size_t consolidate_metadata(const std::shared_ptr<Store>& store, const std::string& path) {
  const Group root = Group::open(store, path, false);
  const int zarr_format = root.zarr_format();
  ConsolidatedMetadata consolidated;
  record_members(root, root.path(), zarr_format, consolidated);
  GroupMetadata metadata = read_group_metadata(*store, root.path(), zarr_format);
  if (zarr_format == 2) {
    store->set(node_document_key(root.path(), kV2ConsolidatedKey),
               dump_json_document(consolidated.to_v2_json(metadata)));
  } else {
    metadata.consolidated_metadata = consolidated.to_v3_json();
    write_group_metadata(*store, root.path(), metadata);
  }
  return consolidated.nodes.size();
}

}  // namespace cuzarr
