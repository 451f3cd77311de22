#include "cuzarr/pipeline/stored_chunks.hpp"

#include <charconv>

namespace cuzarr {

std::optional<Index> parse_chunk_key(const ChunkKeyEncoding& encoding, std::string_view key,
                                     size_t ndim) {
  const char sep = encoding.separator;
  if (encoding.kind == ChunkKeyEncoding::Kind::default_) {
    // "c" for a 0-d array, else "c" + sep + coords joined by sep (v3 core spec, "default").
    if (key.empty() || key[0] != 'c') return std::nullopt;
    key.remove_prefix(1);
    if (ndim == 0) return key.empty() ? std::optional<Index>(Index{}) : std::nullopt;
    if (key.empty() || key[0] != sep) return std::nullopt;
    key.remove_prefix(1);
  } else if (ndim == 0) {
    return key == "0" ? std::optional<Index>(Index{}) : std::nullopt;
  }
  Index coords;
  size_t pos = 0;
  while (true) {
    size_t next = key.find(sep, pos);
    std::string_view part =
        key.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || p != part.data() + part.size() || v < 0)
      return std::nullopt;
    coords.push_back(v);
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  if (coords.size() != ndim) return std::nullopt;
  return coords;
}

std::vector<StoredChunk> list_stored_chunks(const Store& store, const std::string& prefix,
                                            const ArrayMetadata& metadata) {
  const std::string list_prefix = prefix.empty() ? "" : prefix + "/";
  const Shape grid = metadata.chunk_grid_shape();
  std::vector<StoredChunk> chunks;
  for (auto& key : store.list(list_prefix)) {
    std::string_view relative = std::string_view(key).substr(list_prefix.size());
    auto coords = parse_chunk_key(metadata.chunk_key_encoding, relative, metadata.shape.size());
    if (!coords) continue;
    bool inside = true;
    for (size_t d = 0; d < grid.size(); ++d) inside = inside && (*coords)[d] < grid[d];
    if (inside) chunks.push_back({std::move(key), std::move(*coords)});
  }
  return chunks;
}

}  // namespace cuzarr
