#include "cuzarr/metadata/chunk_key_encoding.hpp"

#include <fmt/format.h>

#include <string_view>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

std::string_view kind_name(ChunkKeyEncoding::Kind kind) {
  return kind == ChunkKeyEncoding::Kind::v2 ? "v2" : "default";
}

}  // namespace

std::string ChunkKeyEncoding::encode(std::span<const int64_t> coords) const {
  // v3 core spec, "Chunk key encoding": "default" prefixes "c" and joins with the separator, so a
  // zero-dimensional array's only chunk is "c"; "v2" joins the coordinates alone, and names a
  // zero-dimensional array's chunk "0".
  std::string key;
  if (kind == Kind::default_) {
    key = "c";
    for (int64_t c : coords) {
      key += separator;
      key += std::to_string(c);
    }
    return key;
  }
  if (coords.empty()) return "0";
  for (size_t i = 0; i < coords.size(); ++i) {
    if (i > 0) key += separator;
    key += std::to_string(coords[i]);
  }
  return key;
}

ChunkKeyEncoding ChunkKeyEncoding::from_json(const nlohmann::json& j) {
  // v3 core spec, "Extension definition": a bare name string stands for {"name": name}.
  const bool bare = j.is_string();
  if (!bare && (!j.is_object() || !j.contains("name") || !j["name"].is_string())) {
    throw InvalidArgumentError(fmt::format(
        "chunk_key_encoding {} must be an object with a string \"name\" (\"default\" or \"v2\")",
        j.dump()));
  }
  const std::string name = bare ? j.get<std::string>() : j["name"].get<std::string>();
  ChunkKeyEncoding encoding;
  if (name == "default") {
    encoding = {Kind::default_, '/'};
  } else if (name == "v2") {
    encoding = {Kind::v2, '.'};
  } else {
    throw InvalidArgumentError(fmt::format(
        "chunk_key_encoding: unknown \"name\" \"{}\", expected \"default\" or \"v2\"", name));
  }
  if (bare) return encoding;
  for (const auto& [key, value] : j.items()) {
    if (key != "name" && key != "configuration") {
      throw InvalidArgumentError(
          fmt::format("chunk_key_encoding \"{}\": unexpected member \"{}\"", name, key));
    }
  }
  if (!j.contains("configuration")) return encoding;
  const auto& configuration = j["configuration"];
  if (!configuration.is_object()) {
    throw InvalidArgumentError(
        fmt::format("chunk_key_encoding \"{}\": \"configuration\" must be an object", name));
  }
  for (const auto& [key, value] : configuration.items()) {
    if (key != "separator") {
      throw InvalidArgumentError(fmt::format(
          "chunk_key_encoding \"{}\": unexpected configuration member \"{}\"", name, key));
    }
    if (!value.is_string() || (value != "/" && value != ".")) {
      throw InvalidArgumentError(
          fmt::format("chunk_key_encoding \"{}\": \"separator\" must be \"/\" or \".\", got {}",
                      name, value.dump()));
    }
    encoding.separator = value.get_ref<const std::string&>()[0];
  }
  return encoding;
}

nlohmann::json ChunkKeyEncoding::to_json() const {
  return {{"name", kind_name(kind)}, {"configuration", {{"separator", std::string(1, separator)}}}};
}

}  // namespace cuzarr
