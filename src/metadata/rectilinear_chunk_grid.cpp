#include "cuzarr/metadata/rectilinear_chunk_grid.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

[[noreturn]] void invalid(const std::string& source, const std::string& what) {
  throw InvalidArgumentError(fmt::format("{}: \"chunk_grid\": {}", source, what));
}

int64_t positive_integer(const nlohmann::json& value, const std::string& source) {
  const bool positive =
      value.is_number_unsigned()
          ? value.get<uint64_t>() > 0 && value.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)
          : value.is_number_integer() && value.get<int64_t>() > 0;
  if (!positive) {
    invalid(source, fmt::format("edge lengths must be positive integers, got {}", value.dump()));
  }
  return value.get<int64_t>();
}

}  // namespace

RectilinearChunkGrid::RectilinearChunkGrid(std::vector<std::vector<int64_t>> edges)
    : edges_(std::move(edges)), origins_(edges_.size()) {
  for (size_t d = 0; d < edges_.size(); ++d) {
    origins_[d].reserve(edges_[d].size() + 1);
    origins_[d].push_back(0);
    for (int64_t edge : edges_[d]) {
      if (edge <= 0) throw InvalidArgumentError("rectilinear chunk edge lengths must be positive");
      origins_[d].push_back(checked_add(origins_[d].back(), edge, "rectilinear chunk grid"));
    }
  }
}

RectilinearChunkGrid RectilinearChunkGrid::from_json(const nlohmann::json& configuration,
                                                     const Shape& shape,
                                                     const std::string& source) {
  if (!configuration.is_object()) invalid(source, "configuration must be an object");
  for (const auto& [key, member] : configuration.items()) {
    if (key != "kind" && key != "chunk_shapes") {
      invalid(source, fmt::format("unexpected configuration member \"{}\"", key));
    }
  }
  if (configuration.value("kind", nlohmann::json()) != "inline") {
    invalid(source, "configuration.kind must be \"inline\"");
  }
  const auto it = configuration.find("chunk_shapes");
  if (it == configuration.end() || !it->is_array() || it->size() != shape.size()) {
    invalid(source,
            fmt::format("configuration.chunk_shapes must list {} dimensions", shape.size()));
  }
  std::vector<std::vector<int64_t>> edges(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    const auto& entry = (*it)[d];
    auto& out = edges[d];
    if (entry.is_number()) {
      // A single integer: regular chunks of that length along this dimension.
      const int64_t edge = positive_integer(entry, source);
      out.assign(static_cast<size_t>(std::max<int64_t>(1, ceil_div(shape[d], edge))), edge);
      continue;
    }
    if (!entry.is_array() || entry.empty()) {
      invalid(source, fmt::format("chunk_shapes[{}] must be an integer or a non-empty list", d));
    }
    int64_t total = 0;
    for (const auto& item : entry) {
      int64_t edge = 0, repeat = 1;
      if (item.is_array()) {
        // Run-length encoding: [value, count] is `count` repetitions of `value`.
        if (item.size() != 2) {
          invalid(source, fmt::format("chunk_shapes[{}]: a run must be [length, count], got {}", d,
                                      item.dump()));
        }
        edge = positive_integer(item[0], source);
        repeat = positive_integer(item[1], source);
      } else {
        edge = positive_integer(item, source);
      }
      // Chunks wholly past the end of the array could never hold data; refuse absurd runs
      // before expanding them.
      if (repeat > std::max<int64_t>(1, shape[d]) + 1 ||
          out.size() + static_cast<size_t>(repeat) > static_cast<size_t>(shape[d]) + 1) {
        invalid(source, fmt::format("chunk_shapes[{}] lists more chunks than the extent {} holds",
                                    d, shape[d]));
      }
      for (int64_t r = 0; r < repeat; ++r) {
        out.push_back(edge);
        total = checked_add(total, edge, "rectilinear chunk grid");
      }
    }
    if (total < shape[d]) {
      invalid(source, fmt::format("the edge lengths of dimension {} sum to {}, less than the "
                                  "array's extent {}",
                                  d, total, shape[d]));
    }
  }
  return RectilinearChunkGrid(std::move(edges));
}

nlohmann::json RectilinearChunkGrid::to_json() const {
  auto shapes = nlohmann::json::array();
  for (const auto& dim : edges_) {
    auto encoded = nlohmann::json::array();
    for (size_t i = 0; i < dim.size();) {
      size_t j = i;
      while (j < dim.size() && dim[j] == dim[i]) ++j;
      if (j - i > 1)
        encoded.push_back({dim[i], static_cast<int64_t>(j - i)});
      else
        encoded.push_back(dim[i]);
      i = j;
    }
    shapes.push_back(std::move(encoded));
  }
  return {{"kind", "inline"}, {"chunk_shapes", std::move(shapes)}};
}

Shape RectilinearChunkGrid::grid_shape(std::span<const int64_t> array_shape) const {
  Shape grid(edges_.size());
  for (size_t d = 0; d < edges_.size(); ++d) {
    // Chunks that start at or past the end of the array hold nothing.
    const auto& origins = origins_[d];
    grid[d] = static_cast<int64_t>(
        std::lower_bound(origins.begin(), origins.end() - 1, array_shape[d]) - origins.begin());
  }
  return grid;
}

int64_t RectilinearChunkGrid::chunk_index(size_t dim, int64_t position) const {
  const auto& origins = origins_[dim];
  auto it = std::upper_bound(origins.begin(), origins.end(), position);
  return static_cast<int64_t>(it - origins.begin()) - 1;
}

Shape RectilinearChunkGrid::chunk_shape(std::span<const int64_t> coords) const {
  Shape shape(edges_.size());
  for (size_t d = 0; d < edges_.size(); ++d) shape[d] = edges_[d][static_cast<size_t>(coords[d])];
  return shape;
}

Shape RectilinearChunkGrid::max_chunk_shape() const {
  Shape shape(edges_.size(), 1);
  for (size_t d = 0; d < edges_.size(); ++d) {
    for (int64_t edge : edges_[d]) shape[d] = std::max(shape[d], edge);
  }
  return shape;
}

}  // namespace cuzarr
