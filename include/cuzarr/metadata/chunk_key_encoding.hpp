// Chunk key encodings (Zarr v3 spec, "Chunk key encoding"): "default" -> "c/1/2" (or "c.1.2"),
// "v2" -> "1.2" (or "1/2"), and "0" for a zero-dimensional array under v2.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace cuzarr {

struct ChunkKeyEncoding {
  enum class Kind { default_, v2 };
  Kind kind = Kind::default_;
  char separator = '/';  ///< '/' or '.'

  /// The key of the chunk at grid position `coords`, relative to the array's prefix.
  std::string encode(std::span<const int64_t> coords) const;
  /// Parses {"name": "default"|"v2", "configuration": {"separator": ...}}; throws
  /// InvalidArgumentError.
  static ChunkKeyEncoding from_json(const nlohmann::json& j);
  nlohmann::json to_json() const;
  friend bool operator==(const ChunkKeyEncoding&, const ChunkKeyEncoding&) = default;
};

}  // namespace cuzarr
