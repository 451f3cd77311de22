#include <fmt/format.h>

#include "cuzarr/core/error.hpp"
#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr {

CodecSpec CodecSpec::from_json(const nlohmann::json& j) {
  // v3 core spec, "Extension definition": a bare string is shorthand for {"name": string}.
  if (j.is_string()) return {j.get<std::string>(), nlohmann::json::object()};
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) {
    throw InvalidArgumentError(
        fmt::format("codec entry {} must be an object with a string \"name\"", j.dump()));
  }
  CodecSpec spec{j["name"].get<std::string>(), nlohmann::json::object()};
  if (j.contains("configuration")) {
    if (!j["configuration"].is_object()) {
      throw InvalidArgumentError(
          fmt::format("codec \"{}\": \"configuration\" must be an object", spec.name));
    }
    spec.configuration = j["configuration"];
  }
  return spec;
}

nlohmann::json CodecSpec::to_json() const {
  nlohmann::json j{{"name", name}};
  // zarr-python requires "configuration" for its numcodecs.* codecs, even when empty.
  if (!configuration.empty() || name.rfind("numcodecs.", 0) == 0)
    j["configuration"] = configuration;
  return j;
}

}  // namespace cuzarr
