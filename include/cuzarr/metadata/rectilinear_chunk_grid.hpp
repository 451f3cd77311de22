// The "rectilinear" chunk grid (zarr-extensions, chunk-grids/rectilinear): along each dimension
// the chunks have their own edge lengths, listed explicitly (with run-length encoding) or given as
// one regular length.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "cuzarr/core/shape.hpp"

namespace cuzarr {

class RectilinearChunkGrid {
 public:
  /// Chunk edge lengths per dimension (each positive, summing to at least the array's extent).
  explicit RectilinearChunkGrid(std::vector<std::vector<int64_t>> edges);

  /// Parses the grid's "configuration" ({"kind": "inline", "chunk_shapes": [...]}) for an array of
  /// `shape`. A dimension's entry is an integer (a regular edge length) or a list of edge lengths
  /// and [length, repeat] pairs. Throws InvalidArgumentError naming `source` and the field.
  static RectilinearChunkGrid from_json(const nlohmann::json& configuration, const Shape& shape,
                                        const std::string& source);
  /// The configuration, run-length encoded.
  nlohmann::json to_json() const;

  size_t ndim() const { return edges_.size(); }
  /// Edge lengths of the chunks along `dim`.
  const std::vector<int64_t>& edges(size_t dim) const { return edges_[dim]; }
  /// Number of chunks along each dimension that hold part of an array of `array_shape` (the
  /// edges may sum to more than the extent; chunks starting past it are not counted).
  Shape grid_shape(std::span<const int64_t> array_shape) const;
  /// Position of the first element of chunk `index` along `dim`.
  int64_t chunk_origin(size_t dim, int64_t index) const { return origins_[dim][index]; }
  /// The chunk holding position `position` along `dim` (binary search).
  int64_t chunk_index(size_t dim, int64_t position) const;
  /// Shape of the chunk at grid position `coords`.
  Shape chunk_shape(std::span<const int64_t> coords) const;
  /// The largest edge length along each dimension.
  Shape max_chunk_shape() const;

  friend bool operator==(const RectilinearChunkGrid& a, const RectilinearChunkGrid& b) {
    return a.edges_ == b.edges_;
  }

 private:
  std::vector<std::vector<int64_t>> edges_;
  std::vector<std::vector<int64_t>> origins_;  ///< prefix sums, one more entry than edges
};

}  // namespace cuzarr
