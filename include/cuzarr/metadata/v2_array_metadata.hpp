// Zarr v2 array and group metadata (Zarr v2 spec, "Metadata", "Attributes", "Hierarchies"):
// ".zarray" / ".zgroup" documents plus ".zattrs" <-> the one metadata model (zarr_format 2).
//
// An array's "order", "filters", "dtype" byte order and "compressor" become its v3 codec chain:
// [transpose (reversed dimensions) when order is "F"] + [array -> array filters] + [bytes with the
// dtype's byte order, or the vlen codec of an object dtype] + [bytes -> bytes filters] +
// [compressor]. "dimension_separator" becomes the "v2" chunk key encoding.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr {

/// Store key names of the v2 metadata documents of a node.
inline constexpr const char* kV2ArrayKey = ".zarray";
inline constexpr const char* kV2GroupKey = ".zgroup";
inline constexpr const char* kV2AttributesKey = ".zattrs";

/// Parses a .zarray document and the node's .zattrs document (null when absent) into the model
/// (zarr_format 2). `source` (the .zarray key or file) is named in every error:
/// InvalidArgumentError for malformed or inconsistent metadata (naming the field),
/// UnsupportedError for valid metadata cuzarr cannot read (an unknown codec id, a structured
/// dtype, an object dtype without a vlen-utf8 / vlen-bytes filter).
ArrayMetadata parse_v2_array_metadata(const nlohmann::json& zarray, const nlohmann::json& zattrs,
                                      const std::string& source);

/// The .zarray document of `metadata` in the form zarr-python 3 writes (keys in its order).
/// Throws UnsupportedError naming what v2 cannot hold (a data type without a numpy typestr, a
/// codec without a numcodecs id, sharding, a "default" chunk key encoding, dimension names, more
/// than one array -> bytes codec).
nlohmann::ordered_json v2_array_metadata_to_json(const ArrayMetadata& metadata);

/// Parses a .zgroup document ({"zarr_format": 2}) and the node's .zattrs (null when absent).
/// Throws InvalidArgumentError naming `source`.
GroupMetadata parse_v2_group_metadata(const nlohmann::json& zgroup, const nlohmann::json& zattrs,
                                      const std::string& source);
/// The .zgroup document: {"zarr_format": 2}.
nlohmann::ordered_json v2_group_metadata_to_json();

}  // namespace cuzarr
