// The one metadata model for arrays and groups. Zarr v3 zarr.json parses into it directly; Zarr v2
// metadata is normalised into it (a later layer), and written back in the node's own format.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cuzarr/core/data_type.hpp"
#include "cuzarr/core/shape.hpp"
#include "cuzarr/metadata/chunk_key_encoding.hpp"
#include "cuzarr/metadata/rectilinear_chunk_grid.hpp"

namespace cuzarr {

/// One entry of a codec list: {"name": ..., "configuration": {...}}.
struct CodecSpec {
  std::string name;
  nlohmann::json configuration = nlohmann::json::object();
  /// Parses a codec entry (an object, or a bare name string); throws InvalidArgumentError.
  static CodecSpec from_json(const nlohmann::json& j);
  nlohmann::json to_json() const;
};

struct ArrayMetadata {
  int zarr_format = 3;
  Shape shape;
  DataType data_type;
  /// The chunk shape of the regular chunk grid; with a rectilinear grid, the largest chunk edge
  /// along each dimension.
  Shape chunk_shape;
  /// Set when the chunk grid is "rectilinear" (zarr-extensions) instead of "regular".
  std::optional<RectilinearChunkGrid> rectilinear_grid;
  ChunkKeyEncoding chunk_key_encoding;
  std::vector<std::byte> fill_value;  ///< one element, host byte order
  /// Zarr v2 only: the .zarray said "fill_value": null (fill_value then holds the type's zero);
  /// it is written back as null.
  bool fill_value_is_null = false;
  std::vector<CodecSpec> codecs;
  nlohmann::json attributes = nlohmann::json::object();
  std::optional<std::vector<std::optional<std::string>>> dimension_names;

  /// Parses the JSON of a v3 array zarr.json. `source` (a file or key) is named in every error.
  /// Validates shapes, chunk grid, data type, fill value, codecs, dimension_names; refuses
  /// storage_transformers and unknown extensions with must_understand != false.
  static ArrayMetadata from_json(const nlohmann::json& j, const std::string& source);
  /// The v3 zarr.json document.
  nlohmann::json to_json() const;

  size_t ndim() const { return shape.size(); }
  /// Number of chunks along each dimension.
  Shape chunk_grid_shape() const;
  /// Shape of the chunk at grid position `coords` (chunk_shape for a regular grid).
  Shape chunk_shape_at(std::span<const int64_t> coords) const;
  /// Position in the array of the first element of the chunk at `coords`.
  Index chunk_origin(std::span<const int64_t> coords) const;
  /// Total number of chunks (overflow-checked).
  int64_t chunk_count() const;
};

struct GroupMetadata {
  int zarr_format = 3;
  nlohmann::json attributes = nlohmann::json::object();
  /// Zarr v3 only: the zarr.json "consolidated_metadata" member as stored (null when absent). It
  /// is kept, unparsed, so that rewriting the group (set_attributes) preserves it; see
  /// cuzarr/metadata/consolidated_metadata.hpp for its model.
  nlohmann::json consolidated_metadata;
  static GroupMetadata from_json(const nlohmann::json& j, const std::string& source);
  nlohmann::json to_json() const;
};

}  // namespace cuzarr
