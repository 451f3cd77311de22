#include "cuzarr/metadata/array_metadata.hpp"

#include <fmt/format.h>

#include <initializer_list>
#include <limits>
#include <string_view>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/data_type_json.hpp"
#include "cuzarr/metadata/fill_value.hpp"
#include "metadata/metadata_errors.hpp"

namespace cuzarr {
namespace {

using metadata_errors::invalid;
using metadata_errors::require;
using metadata_errors::unsupported;
using metadata_errors::with_context;

void check_document(const nlohmann::json& j, const std::string& source,
                    std::string_view node_type) {
  if (!j.is_object()) {
    throw InvalidArgumentError(
        fmt::format("{}: metadata must be a JSON object, got {}", source, j.type_name()));
  }
  const auto& format = require(j, source, "zarr_format");
  if (!format.is_number_integer() || format.get<int64_t>() != 3) {
    invalid(source, "zarr_format", fmt::format("must be 3, got {}", format.dump()));
  }
  const auto& type = require(j, source, "node_type");
  if (!type.is_string())
    invalid(source, "node_type", fmt::format("must be a string, got {}", type.dump()));
  if (type != node_type) {
    invalid(source, "node_type",
            fmt::format("is {}, expected \"{}\" (the node is not {})", type.dump(), node_type,
                        node_type == "array" ? "an array" : "a group"));
  }
}

// v3 core spec, "Extension points": a metadata member this implementation does not know is an
// extension; it may be skipped only when it is an object with "must_understand": false.
void check_unknown_members(const nlohmann::json& j, const std::string& source,
                           std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : j.items()) {
    bool is_known = false;
    for (auto name : known) is_known = is_known || key == name;
    if (is_known) continue;
    if (value.is_object() && value.contains("must_understand") && value["must_understand"] == false)
      continue;
    throw UnsupportedError(
        fmt::format("{}: \"{}\" is an unknown metadata field (extensions must say "
                    "\"must_understand\": false to be ignored)",
                    source, key));
  }
}

nlohmann::json parse_attributes(const nlohmann::json& j, const std::string& source) {
  const auto it = j.find("attributes");
  if (it == j.end()) return nlohmann::json::object();
  if (!it->is_object())
    invalid(source, "attributes", fmt::format("must be an object, got {}", it->dump()));
  return *it;
}

/// A list of integers each >= `minimum`, e.g. a shape (0) or a chunk shape (1).
Shape parse_extents(const nlohmann::json& value, const std::string& source, std::string_view field,
                    int64_t minimum) {
  const auto expected =
      fmt::format("must be a list of integers >= {}, got {}", minimum, value.dump());
  if (!value.is_array()) invalid(source, field, expected);
  Shape extents;
  extents.reserve(value.size());
  for (const auto& entry : value) {
    if (!entry.is_number_integer()) invalid(source, field, expected);
    if (entry.is_number_unsigned() &&
        entry.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      invalid(source, field,
              fmt::format("has an extent too large for a 64-bit size: {}", value.dump()));
    }
    const auto extent = entry.get<int64_t>();
    if (extent < minimum) invalid(source, field, expected);
    extents.push_back(extent);
  }
  return extents;
}

DataType parse_data_type(const nlohmann::json& value, const std::string& source) {
  try {
    return data_type_from_json(value);
  } catch (const UnsupportedError& e) {
    unsupported(source, "data_type", e.what());
  } catch (const InvalidArgumentError& e) {
    invalid(source, "data_type", e.what());
  }
}

Shape parse_chunk_grid(const nlohmann::json& value, const std::string& source, size_t rank) {
  if (!value.is_object() || !value.contains("name") || !value["name"].is_string()) {
    invalid(source, "chunk_grid",
            fmt::format("must be an object with a string \"name\", got {}", value.dump()));
  }
  const auto& name = value["name"].get_ref<const std::string&>();
  if (name != "regular") {
    unsupported(
        source, "chunk_grid",
        fmt::format("\"{}\" is not supported (supported: \"regular\", \"rectilinear\")", name));
  }
  for (const auto& [key, member] : value.items()) {
    if (key != "name" && key != "configuration") {
      invalid(source, "chunk_grid", fmt::format("has an unexpected member \"{}\"", key));
    }
  }
  if (!value.contains("configuration") || !value["configuration"].is_object() ||
      !value["configuration"].contains("chunk_shape")) {
    invalid(source, "chunk_grid", "needs \"configuration\": {\"chunk_shape\": [...]}");
  }
  const auto& configuration = value["configuration"];
  for (const auto& [key, member] : configuration.items()) {
    if (key != "chunk_shape") {
      invalid(source, "chunk_grid",
              fmt::format("has an unexpected configuration member \"{}\"", key));
    }
  }
  Shape chunk_shape = parse_extents(configuration["chunk_shape"], source, "chunk_shape", 1);
  if (chunk_shape.size() != rank) {
    invalid(source, "chunk_shape",
            fmt::format("{} has {} dimensions but the shape has {}", shape_to_string(chunk_shape),
                        chunk_shape.size(), rank));
  }
  return chunk_shape;
}

std::vector<CodecSpec> parse_codecs(const nlohmann::json& value, const std::string& source) {
  if (!value.is_array() || value.empty()) {
    invalid(source, "codecs",
            fmt::format("must be a non-empty list of codecs, got {}", value.dump()));
  }
  std::vector<CodecSpec> codecs;
  codecs.reserve(value.size());
  for (const auto& entry : value) {
    codecs.push_back(with_context(source, "codecs", [&] { return CodecSpec::from_json(entry); }));
  }
  return codecs;
}

std::optional<std::vector<std::optional<std::string>>> parse_dimension_names(
    const nlohmann::json& j, const std::string& source, size_t rank) {
  const auto it = j.find("dimension_names");
  // Some zarr-python 3 releases wrote "dimension_names": null; read it as absent.
  if (it == j.end() || it->is_null()) return std::nullopt;
  const auto expected =
      fmt::format("must be a list of {} strings or nulls, got {}", rank, it->dump());
  if (!it->is_array() || it->size() != rank) invalid(source, "dimension_names", expected);
  std::vector<std::optional<std::string>> names;
  for (const auto& name : *it) {
    if (name.is_null()) {
      names.emplace_back(std::nullopt);
    } else if (name.is_string()) {
      names.emplace_back(name.get<std::string>());
    } else {
      invalid(source, "dimension_names", expected);
    }
  }
  return names;
}

void check_storage_transformers(const nlohmann::json& j, const std::string& source) {
  const auto it = j.find("storage_transformers");
  if (it == j.end()) return;
  if (!it->is_array()) {
    invalid(source, "storage_transformers", fmt::format("must be a list, got {}", it->dump()));
  }
  if (!it->empty())
    unsupported(source, "storage_transformers",
                "is not empty: storage transformers are not supported");
}

}  // namespace

ArrayMetadata ArrayMetadata::from_json(const nlohmann::json& j, const std::string& source) {
  check_document(j, source, "array");
  check_unknown_members(
      j, source,
      {"zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
       "fill_value", "codecs", "attributes", "dimension_names", "storage_transformers"});
  check_storage_transformers(j, source);

  ArrayMetadata metadata;
  metadata.shape = parse_extents(require(j, source, "shape"), source, "shape", 0);
  metadata.data_type = parse_data_type(require(j, source, "data_type"), source);
  const auto element_size = static_cast<int64_t>(metadata.data_type.size());
  with_context(source, "shape", [&] { return byte_count(metadata.shape, element_size); });
  const auto& grid = require(j, source, "chunk_grid");
  if (grid.is_object() && grid.value("name", nlohmann::json()) == "rectilinear") {
    for (const auto& [key, member] : grid.items()) {
      if (key != "name" && key != "configuration" && key != "must_understand") {
        invalid(source, "chunk_grid", fmt::format("has an unexpected member \"{}\"", key));
      }
    }
    metadata.rectilinear_grid = RectilinearChunkGrid::from_json(
        grid.value("configuration", nlohmann::json()), metadata.shape, source);
    metadata.chunk_shape = metadata.rectilinear_grid->max_chunk_shape();
  } else {
    metadata.chunk_shape = parse_chunk_grid(grid, source, metadata.shape.size());
  }
  with_context(source, "chunk_shape",
               [&] { return byte_count(metadata.chunk_shape, element_size); });
  const auto& encoding = require(j, source, "chunk_key_encoding");
  metadata.chunk_key_encoding = with_context(source, "chunk_key_encoding",
                                             [&] { return ChunkKeyEncoding::from_json(encoding); });
  const auto& fill_value = require(j, source, "fill_value");
  metadata.fill_value = with_context(
      source, "fill_value", [&] { return parse_fill_value(fill_value, metadata.data_type); });
  metadata.codecs = parse_codecs(require(j, source, "codecs"), source);
  metadata.attributes = parse_attributes(j, source);
  metadata.dimension_names = parse_dimension_names(j, source, metadata.shape.size());
  return metadata;
}

nlohmann::json ArrayMetadata::to_json() const {
  nlohmann::json j;
  j["zarr_format"] = 3;
  j["node_type"] = "array";
  j["shape"] = shape;
  j["data_type"] = data_type_to_json(data_type);
  if (rectilinear_grid) {
    j["chunk_grid"] = {{"name", "rectilinear"}, {"configuration", rectilinear_grid->to_json()}};
  } else {
    j["chunk_grid"] = {{"name", "regular"}, {"configuration", {{"chunk_shape", chunk_shape}}}};
  }
  j["chunk_key_encoding"] = chunk_key_encoding.to_json();
  j["fill_value"] = fill_value_to_json(fill_value, data_type);
  auto codec_list = nlohmann::json::array();
  for (const auto& codec : codecs) codec_list.push_back(codec.to_json());
  j["codecs"] = std::move(codec_list);
  j["attributes"] = attributes;
  if (dimension_names) {
    auto names = nlohmann::json::array();
    for (const auto& name : *dimension_names)
      names.push_back(name ? nlohmann::json(*name) : nlohmann::json());
    j["dimension_names"] = std::move(names);
  }
  return j;
}

Shape ArrayMetadata::chunk_grid_shape() const {
  if (rectilinear_grid) return rectilinear_grid->grid_shape(shape);
  if (chunk_shape.size() != shape.size()) {
    throw InvalidArgumentError(fmt::format("chunk shape {} does not have the rank of shape {}",
                                           shape_to_string(chunk_shape), shape_to_string(shape)));
  }
  Shape grid(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (chunk_shape[d] <= 0) {
      throw InvalidArgumentError(
          fmt::format("chunk shape {} has a non-positive extent", shape_to_string(chunk_shape)));
    }
    grid[d] = ceil_div(shape[d], chunk_shape[d]);
  }
  return grid;
}

Shape ArrayMetadata::chunk_shape_at(std::span<const int64_t> coords) const {
  return rectilinear_grid ? rectilinear_grid->chunk_shape(coords) : chunk_shape;
}

Index ArrayMetadata::chunk_origin(std::span<const int64_t> coords) const {
  Index origin(coords.size());
  for (size_t d = 0; d < coords.size(); ++d) {
    origin[d] = rectilinear_grid ? rectilinear_grid->chunk_origin(d, coords[d])
                                 : coords[d] * chunk_shape[d];
  }
  return origin;
}

int64_t ArrayMetadata::chunk_count() const {
  int64_t count = 1;
  for (int64_t extent : chunk_grid_shape()) count = checked_mul(count, extent, "chunk count");
  return count;
}

GroupMetadata GroupMetadata::from_json(const nlohmann::json& j, const std::string& source) {
  check_document(j, source, "group");
  check_unknown_members(j, source,
                        {"zarr_format", "node_type", "attributes", "consolidated_metadata"});
  GroupMetadata metadata;
  metadata.attributes = parse_attributes(j, source);
  // zarr-python 3.0.0 to 3.1.3 wrote "consolidated_metadata": null into every group; it carries
  // nothing and is read as absent. An object is kept as stored; ConsolidatedMetadata parses it.
  if (const auto consolidated = j.find("consolidated_metadata"); consolidated != j.end()) {
    if (!consolidated->is_null() && !consolidated->is_object()) {
      invalid(source, "consolidated_metadata",
              fmt::format("must be an object or null, got {}", consolidated->dump()));
    }
    metadata.consolidated_metadata = *consolidated;
  }
  return metadata;
}

nlohmann::json GroupMetadata::to_json() const {
  nlohmann::json j = {{"zarr_format", 3}, {"node_type", "group"}, {"attributes", attributes}};
  if (consolidated_metadata.is_object()) j["consolidated_metadata"] = consolidated_metadata;
  return j;
}

}  // namespace cuzarr
