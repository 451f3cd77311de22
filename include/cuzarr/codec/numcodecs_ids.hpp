// Names of the numcodecs codecs: Zarr v2 metadata names a numcodecs codec by its bare id
// ("zlib"), Zarr v3 metadata written by zarr-python 3 by "numcodecs.<id>" ("numcodecs.zlib").
// The codec registry knows the v3 names; these helpers map a v2 id onto them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuzarr {

/// The registry name of the codec that implements numcodecs id `id` ("zlib" ->
/// "numcodecs.zlib"), or nullopt when cuzarr has no numcodecs codec with that id. The
/// configuration of a v2 codec object (without its "id" member) is accepted unchanged by the
/// codec registered under that name.
std::optional<std::string> v3_name_for_numcodecs_id(std::string_view id);

/// Every numcodecs id that v3_name_for_numcodecs_id() maps, in alphabetical order.
std::vector<std::string> supported_numcodecs_ids();

}  // namespace cuzarr
