#include "cuzarr/metadata/v2_array_metadata.hpp"

#include <fmt/format.h>

#include <limits>
#include <string_view>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/v2_codecs.hpp"
#include "cuzarr/metadata/v2_data_type.hpp"
#include "cuzarr/metadata/v2_fill_value.hpp"
#include "metadata/metadata_errors.hpp"

namespace cuzarr {
namespace {

using metadata_errors::invalid;
using metadata_errors::require;
using metadata_errors::unsupported;
using metadata_errors::with_context;

void check_format(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) {
    throw InvalidArgumentError(
        fmt::format("{}: metadata must be a JSON object, got {}", source, j.type_name()));
  }
  const auto& format = require(j, source, "zarr_format");
  if (!format.is_number_integer() || format.get<int64_t>() != 2)
    invalid(source, "zarr_format", fmt::format("must be 2, got {}", format.dump()));
}

nlohmann::json parse_attributes(const nlohmann::json& zattrs, const std::string& source) {
  if (zattrs.is_null()) return nlohmann::json::object();
  if (!zattrs.is_object()) {
    // The attributes live beside the metadata document, in .zattrs.
    const auto slash = source.rfind('/');
    const std::string key =
        (slash == std::string::npos ? std::string() : source.substr(0, slash + 1)) +
        kV2AttributesKey;
    throw InvalidArgumentError(
        fmt::format("{}: attributes must be a JSON object, got {}", key, zattrs.type_name()));
  }
  return zattrs;
}

/// A list of integers each >= `minimum`: a shape (0) or a chunk shape (1).
Shape parse_extents(const nlohmann::json& value, const std::string& source, std::string_view field,
                    int64_t minimum) {
  const auto expected =
      fmt::format("must be a list of integers >= {}, got {}", minimum, value.dump());
  if (!value.is_array()) invalid(source, field, expected);
  Shape extents;
  for (const auto& entry : value) {
    if (!entry.is_number_integer()) invalid(source, field, expected);
    if (entry.is_number_unsigned() &&
        entry.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      invalid(source, field,
              fmt::format("has an extent too large for a 64-bit size: {}", value.dump()));
    }
    if (entry.get<int64_t>() < minimum) invalid(source, field, expected);
    extents.push_back(entry.get<int64_t>());
  }
  return extents;
}

V2DataType parse_dtype(const nlohmann::json& value, const std::string& source) {
  if (value.is_array()) {
    // Zarr v2 spec, "Data type encoding": a structured dtype is a list of [name, typestr(, shape)].
    std::string field = "?";
    if (!value.empty() && value[0].is_array() && !value[0].empty() && value[0][0].is_string())
      field = value[0][0].get<std::string>();
    unsupported(source, "dtype",
                fmt::format("is a structured data type (field \"{}\"): structured data types are "
                            "not supported",
                            field));
  }
  if (!value.is_string())
    invalid(source, "dtype", fmt::format("must be a numpy typestr, got {}", value.dump()));
  return with_context(source, "dtype",
                      [&] { return parse_v2_data_type(value.get_ref<const std::string&>()); });
}

/// The typestr a numcodecs array filter converts elements to ("astype" of delta, quantize and
/// fixedscaleoffset, "encode_dtype" of astype), nullopt when it keeps them.
std::optional<V2DataType> filter_output_type(const nlohmann::json& filter,
                                             const std::string& source) {
  for (const char* key : {"astype", "encode_dtype"}) {
    const auto it = filter.find(key);
    if (it != filter.end() && it->is_string()) {
      return with_context(source, "filters",
                          [&] { return parse_v2_data_type(it->get_ref<const std::string&>()); });
    }
  }
  return std::nullopt;
}

CodecSpec bytes_codec(size_t endian_unit, bool big_endian) {
  if (endian_unit <= 1) return CodecSpec{"bytes", nlohmann::json::object()};
  return CodecSpec{"bytes", {{"endian", big_endian ? "big" : "little"}}};
}

/// The object dtype's element type, from its vlen filter.
DataType object_data_type(const nlohmann::json& filters, const std::string& source) {
  if (filters.is_array()) {
    for (const auto& filter : filters) {
      const auto id = filter.is_object() ? filter.value("id", "") : "";
      if (id == "vlen-utf8") return DataType(DataTypeKind::string);
      if (id == "vlen-bytes") return DataType(DataTypeKind::variable_length_bytes);
    }
  }
  unsupported(source, "dtype",
              "\"|O\" (numpy object) is supported only with a \"vlen-utf8\" or \"vlen-bytes\" "
              "filter");
}

std::vector<CodecSpec> codec_chain(const nlohmann::json& filters, const nlohmann::json& compressor,
                                   bool fortran_order, const V2DataType& dtype, size_t rank,
                                   const std::string& source) {
  std::vector<CodecSpec> codecs;
  // Zarr v2 spec, "order": "F" stores each chunk in column-major order, which a transpose to the
  // reversed dimension order followed by a C-order serialisation produces.
  if (fortran_order && rank > 0) {
    std::vector<int64_t> order;
    for (size_t d = rank; d > 0; --d) order.push_back(static_cast<int64_t>(d - 1));
    codecs.push_back(CodecSpec{"transpose", {{"order", order}}});
  }
  size_t itemsize = dtype.data_type.size();
  size_t endian_unit = dtype.data_type.endian_unit();
  bool big_endian = dtype.big_endian;
  bool serialized = false;  // an array -> bytes codec is in the chain
  const auto serialize = [&] {
    if (!serialized) codecs.push_back(bytes_codec(endian_unit, big_endian));
    serialized = true;
    itemsize = std::max<size_t>(itemsize, 1);
  };
  // Zarr v2 spec, "filters": applied in order when encoding, before the compressor.
  if (filters.is_array()) {
    for (const auto& filter : filters) {
      CodecSpec spec = v2_codec_to_spec(filter, itemsize, source, "filters");
      const auto role = *v2_storable_codec_role(spec.name);
      if (role == CodecRole::array_to_bytes) {
        if (!dtype.is_object) {
          invalid(
              source, "filters",
              fmt::format("\"{}\" needs the object dtype \"|O\"", filter["id"].get<std::string>()));
        }
        if (serialized) {
          unsupported(source, "filters",
                      fmt::format("\"{}\" after another serialising filter is not supported",
                                  filter["id"].get<std::string>()));
        }
        codecs.push_back(std::move(spec));
        serialized = true;
        itemsize = 1;
      } else if (role == CodecRole::array_to_array) {
        if (serialized || dtype.is_object) {
          unsupported(source, "filters",
                      fmt::format("array filter \"{}\" after a byte filter is not supported",
                                  filter["id"].get<std::string>()));
        }
        if (auto output = filter_output_type(filter, source)) {
          itemsize = output->data_type.size();
          endian_unit = output->data_type.endian_unit();
          big_endian = output->big_endian;
        } else if (spec.name == "numcodecs.packbits") {
          itemsize = endian_unit = 1;
        }
        codecs.push_back(std::move(spec));
      } else {
        if (dtype.is_object && !serialized) {
          invalid(source, "filters", "an object dtype needs its vlen filter first");
        }
        serialize();
        codecs.push_back(std::move(spec));
      }
    }
  }
  if (dtype.is_object && !serialized) object_data_type(nlohmann::json(), source);
  serialize();
  if (!compressor.is_null()) {
    CodecSpec spec = v2_codec_to_spec(compressor, itemsize, source, "compressor");
    if (*v2_storable_codec_role(spec.name) != CodecRole::bytes_to_bytes) {
      unsupported(source, "compressor",
                  fmt::format("\"{}\" is not a compressor", compressor["id"].get<std::string>()));
    }
    codecs.push_back(std::move(spec));
  }
  return codecs;
}

}  // namespace

ArrayMetadata parse_v2_array_metadata(const nlohmann::json& zarray, const nlohmann::json& zattrs,
                                      const std::string& source) {
  check_format(zarray, source);
  ArrayMetadata metadata;
  metadata.zarr_format = 2;
  metadata.shape = parse_extents(require(zarray, source, "shape"), source, "shape", 0);
  metadata.chunk_shape = parse_extents(require(zarray, source, "chunks"), source, "chunks", 1);
  if (metadata.chunk_shape.size() != metadata.shape.size()) {
    invalid(source, "chunks",
            fmt::format("{} has {} dimensions but the shape {} has {}",
                        shape_to_string(metadata.chunk_shape), metadata.chunk_shape.size(),
                        shape_to_string(metadata.shape), metadata.shape.size()));
  }
  const V2DataType dtype = parse_dtype(require(zarray, source, "dtype"), source);

  const auto& compressor = require(zarray, source, "compressor");
  if (!compressor.is_null() && !compressor.is_object()) {
    invalid(source, "compressor",
            fmt::format("must be a codec object or null, got {}", compressor.dump()));
  }
  // "filters" is required by the spec, but early writers left it out; absent reads as null.
  const nlohmann::json filters = zarray.value("filters", nlohmann::json());
  if (!filters.is_null() && !filters.is_array())
    invalid(source, "filters",
            fmt::format("must be a list of codec objects or null, got {}", filters.dump()));
  const auto& order = require(zarray, source, "order");
  if (order != "C" && order != "F")
    invalid(source, "order", fmt::format("must be \"C\" or \"F\", got {}", order.dump()));
  // Zarr v2 spec, "dimension_separator": "." (the default) or "/".
  const nlohmann::json separator = zarray.value("dimension_separator", nlohmann::json("."));
  if (separator != "." && separator != "/") {
    invalid(source, "dimension_separator",
            fmt::format("must be \".\" or \"/\", got {}", separator.dump()));
  }
  metadata.chunk_key_encoding = {ChunkKeyEncoding::Kind::v2,
                                 separator.get_ref<const std::string&>()[0]};

  metadata.data_type = dtype.is_object ? object_data_type(filters, source) : dtype.data_type;
  const auto element_size = static_cast<int64_t>(metadata.data_type.size());
  with_context(source, "shape", [&] { return byte_count(metadata.shape, element_size); });
  with_context(source, "chunks", [&] { return byte_count(metadata.chunk_shape, element_size); });

  metadata.codecs =
      codec_chain(filters, compressor, order == "F", dtype, metadata.shape.size(), source);
  const auto& fill_value = require(zarray, source, "fill_value");
  metadata.fill_value_is_null = fill_value.is_null();
  metadata.fill_value = with_context(
      source, "fill_value", [&] { return parse_v2_fill_value(fill_value, metadata.data_type); });
  metadata.attributes = parse_attributes(zattrs, source);
  return metadata;
}

nlohmann::ordered_json v2_array_metadata_to_json(const ArrayMetadata& metadata) {
  if (metadata.chunk_key_encoding.kind != ChunkKeyEncoding::Kind::v2) {
    throw UnsupportedError(
        "Zarr v2 metadata needs the \"v2\" chunk key encoding (the \"default\" one is v3 only)");
  }
  if (metadata.dimension_names)
    throw UnsupportedError("dimension_names cannot be stored in Zarr v2 metadata");
  const size_t rank = metadata.shape.size();
  const char* order = "C";
  size_t first = 0;
  if (!metadata.codecs.empty() && metadata.codecs[0].name == "transpose") {
    const auto& permutation = metadata.codecs[0].configuration.value("order", nlohmann::json());
    nlohmann::json reversed = nlohmann::json::array();
    for (size_t d = rank; d > 0; --d) reversed.push_back(d - 1);
    if (permutation != reversed) {
      throw UnsupportedError(fmt::format(
          "transpose order {} cannot be stored in Zarr v2 metadata (only the reversed order, "
          "\"order\": \"F\")",
          permutation.dump()));
    }
    order = "F";
    first = 1;
  }
  nlohmann::ordered_json filters = nlohmann::ordered_json::array();
  std::vector<nlohmann::ordered_json> byte_codecs;
  bool serialized = false;
  bool big_endian = false;
  for (size_t i = first; i < metadata.codecs.size(); ++i) {
    const CodecSpec& spec = metadata.codecs[i];
    const auto role = v2_storable_codec_role(spec.name);
    if (!role || spec.name == "transpose") {
      throw UnsupportedError(
          fmt::format("codec \"{}\" cannot be stored in Zarr v2 metadata", spec.name));
    }
    if (*role == CodecRole::array_to_array) {
      filters.push_back(spec_to_v2_codec(spec));
    } else if (*role == CodecRole::array_to_bytes) {
      if (serialized)
        throw UnsupportedError("Zarr v2 metadata cannot hold two array -> bytes codecs");
      serialized = true;
      if (spec.name == "bytes")
        big_endian = spec.configuration.value("endian", "little") == "big";
      else
        filters.push_back({{"id", spec.name}});
    } else {
      byte_codecs.push_back(spec_to_v2_codec(spec));
    }
  }
  nlohmann::ordered_json compressor = nullptr;
  if (!byte_codecs.empty()) {
    compressor = byte_codecs.back();
    byte_codecs.pop_back();
    for (auto& codec : byte_codecs) filters.push_back(std::move(codec));
  }
  nlohmann::ordered_json j;
  j["shape"] = metadata.shape;
  j["chunks"] = metadata.chunk_shape;
  j["dtype"] = v2_data_type_string(metadata.data_type, big_endian);
  j["fill_value"] =
      metadata.fill_value_is_null
          ? nlohmann::ordered_json()
          : nlohmann::ordered_json(v2_fill_value_to_json(metadata.fill_value, metadata.data_type));
  j["order"] = order;
  j["filters"] = filters.empty() ? nlohmann::ordered_json() : filters;
  j["dimension_separator"] = std::string(1, metadata.chunk_key_encoding.separator);
  j["compressor"] = compressor;
  j["zarr_format"] = 2;
  return j;
}

GroupMetadata parse_v2_group_metadata(const nlohmann::json& zgroup, const nlohmann::json& zattrs,
                                      const std::string& source) {
  check_format(zgroup, source);
  GroupMetadata metadata;
  metadata.zarr_format = 2;
  metadata.attributes = parse_attributes(zattrs, source);
  return metadata;
}

nlohmann::ordered_json v2_group_metadata_to_json() { return {{"zarr_format", 2}}; }

}  // namespace cuzarr
