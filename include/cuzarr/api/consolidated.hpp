// Writing consolidated metadata: the metadata of a whole hierarchy in one document, so that
// Group::open can answer members(), open_array() and open_group() without listing or reading the
// store (see cuzarr/metadata/consolidated_metadata.hpp for the formats).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "cuzarr/store/store.hpp"

namespace cuzarr {

/// Walks the hierarchy below the group at `path` (listing the store, ignoring any consolidated
/// metadata already there) and records every node's metadata in the group's own format: Zarr v3
/// writes it inline into the group's zarr.json ("consolidated_metadata"), Zarr v2 into a
/// .zmetadata document beside its .zgroup. Returns the number of nodes recorded (the group itself
/// not counted). Nodes created later are not seen by readers of the consolidated metadata until
/// this runs again (as in zarr-python). Throws NotFoundError when there is no group at `path`,
/// UnsupportedError when a node below it is in the other Zarr format.
size_t consolidate_metadata(const std::shared_ptr<Store>& store, const std::string& path = "");

}  // namespace cuzarr
