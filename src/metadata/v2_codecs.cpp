#include "cuzarr/metadata/v2_codecs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "cuzarr/core/error.hpp"
#include "metadata/metadata_errors.hpp"

namespace cuzarr {
namespace {

using enum CodecRole;

// numcodecs ids (numcodecs.get_codec) and what they are in a v3 chain. The numcodecs.* names are
// the codecs of the codec registry (numcodecs_registration.cpp); a test checks that they agree.
constexpr std::array<V2CodecId, 22> kIds = {{
    {"adler32", "numcodecs.adler32", bytes_to_bytes},
    {"astype", "numcodecs.astype", array_to_array},
    {"base64", "numcodecs.base64", bytes_to_bytes},
    {"bitround", "numcodecs.bitround", array_to_array},
    {"blosc", "blosc", bytes_to_bytes},
    {"bz2", "numcodecs.bz2", bytes_to_bytes},
    {"crc32", "numcodecs.crc32", bytes_to_bytes},
    {"crc32c", "numcodecs.crc32c", bytes_to_bytes},
    {"delta", "numcodecs.delta", array_to_array},
    {"fixedscaleoffset", "numcodecs.fixedscaleoffset", array_to_array},
    {"fletcher32", "numcodecs.fletcher32", bytes_to_bytes},
    {"gzip", "numcodecs.gzip", bytes_to_bytes},
    {"jenkins_lookup3", "numcodecs.jenkins_lookup3", bytes_to_bytes},
    {"lz4", "numcodecs.lz4", bytes_to_bytes},
    {"lzma", "numcodecs.lzma", bytes_to_bytes},
    {"packbits", "numcodecs.packbits", array_to_array},
    {"quantize", "numcodecs.quantize", array_to_array},
    {"shuffle", "numcodecs.shuffle", bytes_to_bytes},
    {"vlen-bytes", "vlen-bytes", array_to_bytes},
    {"vlen-utf8", "vlen-utf8", array_to_bytes},
    {"zlib", "numcodecs.zlib", bytes_to_bytes},
    {"zstd", "zstd", bytes_to_bytes},
}};

using metadata_errors::invalid;

nlohmann::json blosc_configuration(const nlohmann::json& codec, size_t itemsize,
                                   const std::string& source, std::string_view field) {
  nlohmann::json configuration = nlohmann::json::object();
  for (const auto& [key, value] : codec.items()) {
    if (key == "id") continue;
    if (key == "shuffle") {
      if (!value.is_number_integer() || value.get<int64_t>() < -1 || value.get<int64_t>() > 2) {
        invalid(source, field,
                fmt::format("blosc \"shuffle\" must be -1, 0, 1 or 2, got {}", value.dump()));
      }
      configuration["shuffle"] =
          numcodecs_blosc_shuffle_name(value.get<int64_t>(), static_cast<int64_t>(itemsize));
    } else {
      configuration[key] = value;  // cname, clevel, blocksize (checked by the codec)
    }
  }
  if (!configuration.contains("shuffle"))
    configuration["shuffle"] = numcodecs_blosc_shuffle_name(1, 1);
  configuration["typesize"] = std::max<size_t>(itemsize, 1);
  return configuration;
}

}  // namespace

std::string numcodecs_blosc_shuffle_name(int64_t shuffle, int64_t itemsize) {
  switch (shuffle) {
    case 0:
      return "noshuffle";
    case 1:
      return "shuffle";
    case 2:
      return "bitshuffle";
    default:
      return itemsize == 1 ? "bitshuffle" : "shuffle";
  }
}

std::span<const V2CodecId> v2_codec_ids() { return kIds; }

std::optional<V2CodecId> find_v2_codec_id(std::string_view id) {
  const auto it =
      std::lower_bound(kIds.begin(), kIds.end(), id,
                       [](const V2CodecId& entry, std::string_view v) { return entry.id < v; });
  if (it == kIds.end() || it->id != id) return std::nullopt;
  return *it;
}

std::optional<CodecRole> v2_storable_codec_role(std::string_view v3_name) {
  if (v3_name == "bytes") return array_to_bytes;
  if (v3_name == "transpose") return array_to_array;
  if (v3_name == "gzip" || v3_name == "numcodecs.zstd" || v3_name == "numcodecs.blosc") {
    return bytes_to_bytes;
  }
  for (const auto& entry : kIds) {
    if (entry.v3_name == v3_name) return entry.role;
  }
  return std::nullopt;
}

CodecSpec v2_codec_to_spec(const nlohmann::json& codec, size_t itemsize, const std::string& source,
                           std::string_view field) {
  if (!codec.is_object() || !codec.contains("id") || !codec["id"].is_string()) {
    invalid(
        source, field,
        fmt::format("entries must be codec objects with a string \"id\", got {}", codec.dump()));
  }
  const auto& id = codec["id"].get_ref<const std::string&>();
  const auto entry = find_v2_codec_id(id);
  if (!entry) {
    throw UnsupportedError(
        fmt::format("{}: \"{}\": codec id \"{}\" is not supported", source, field, id));
  }
  CodecSpec spec{std::string(entry->v3_name), nlohmann::json::object()};
  if (id == "blosc") {
    spec.configuration = blosc_configuration(codec, itemsize, source, field);
  } else if (id == "zstd") {
    // numcodecs.Zstd {"level", "checksum"}: the v3 zstd codec's configuration.
    spec.configuration["level"] = codec.value("level", nlohmann::json(0));
    spec.configuration["checksum"] = codec.value("checksum", nlohmann::json(false));
  } else {
    for (const auto& [key, value] : codec.items()) {
      if (key != "id") spec.configuration[key] = value;
    }
  }
  return spec;
}

nlohmann::ordered_json spec_to_v2_codec(const CodecSpec& spec) {
  nlohmann::ordered_json codec;
  const auto& c = spec.configuration;
  if (spec.name == "blosc") {
    const std::string shuffle = c.value("shuffle", "shuffle");
    codec["id"] = "blosc";
    codec["cname"] = c.value("cname", "zstd");
    codec["clevel"] = c.value("clevel", 5);
    codec["shuffle"] = shuffle == "noshuffle" ? 0 : shuffle == "bitshuffle" ? 2 : 1;
    codec["blocksize"] = c.value("blocksize", 0);
    return codec;
  }
  if (spec.name == "zstd") {
    codec["id"] = "zstd";
    codec["level"] = c.value("level", 0);
    if (c.value("checksum", false)) codec["checksum"] = true;
    return codec;
  }
  if (spec.name == "numcodecs.zstd" || spec.name == "numcodecs.blosc") {
    // zarr-python's v3 wrappers hold numcodecs' own configuration.
    codec["id"] = spec.name == "numcodecs.zstd" ? "zstd" : "blosc";
    for (const auto& [key, value] : c.items()) codec[key] = value;
    return codec;
  }
  if (spec.name == "gzip") {
    codec["id"] = "gzip";
    codec["level"] = c.value("level", 5);
    return codec;
  }
  for (const auto& entry : kIds) {
    if (entry.v3_name == spec.name) {
      codec["id"] = entry.id;
      for (const auto& [key, value] : c.items()) codec[key] = value;
      return codec;
    }
  }
  throw UnsupportedError(
      fmt::format("codec \"{}\" cannot be stored in Zarr v2 metadata", spec.name));
}

}  // namespace cuzarr
