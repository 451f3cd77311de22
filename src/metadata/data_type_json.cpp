#include "cuzarr/metadata/data_type_json.hpp"

#include <fmt/format.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

const nlohmann::json& member(const nlohmann::json& configuration, const std::string& name,
                             const char* key) {
  const auto it = configuration.find(key);
  if (it == configuration.end()) {
    throw InvalidArgumentError(
        fmt::format("data type \"{}\": configuration member \"{}\" is required", name, key));
  }
  return *it;
}

void check_members(const nlohmann::json& configuration, const std::string& name,
                   std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : configuration.items()) {
    bool is_known = false;
    for (auto k : known) is_known = is_known || key == k;
    if (!is_known) {
      throw InvalidArgumentError(
          fmt::format("data type \"{}\": unknown configuration member \"{}\"", name, key));
    }
  }
}

int64_t positive_integer(const nlohmann::json& value, const std::string& name, const char* key) {
  if (!value.is_number_integer() ||
      (value.is_number_integer() && !value.is_number_unsigned() && value.get<int64_t>() < 1)) {
    throw InvalidArgumentError(fmt::format(
        "data type \"{}\": \"{}\" must be a positive integer, got {}", name, key, value.dump()));
  }
  const auto v = value.get<uint64_t>();
  if (v < 1 || v > static_cast<uint64_t>(INT64_MAX)) {
    throw InvalidArgumentError(fmt::format(
        "data type \"{}\": \"{}\" must be a positive integer, got {}", name, key, value.dump()));
  }
  return static_cast<int64_t>(v);
}

// The kind named `name` when it takes a configuration, else nullopt.
std::optional<DataTypeKind> configured_kind(const std::string& name) {
  if (name == "numpy.datetime64") return DataTypeKind::datetime64;
  if (name == "numpy.timedelta64") return DataTypeKind::timedelta64;
  if (name == "fixed_length_utf32") return DataTypeKind::fixed_length_utf32;
  if (name == "null_terminated_bytes") return DataTypeKind::null_terminated_bytes;
  if (name == "raw_bytes") return DataTypeKind::raw_bytes;
  return std::nullopt;
}

DataType parse_configured(DataTypeKind kind, const std::string& name,
                          const nlohmann::json& configuration) {
  if (kind == DataTypeKind::datetime64 || kind == DataTypeKind::timedelta64) {
    // zarr-extensions numpy.datetime64 / numpy.timedelta64: {"unit": ..., "scale_factor": ...}.
    check_members(configuration, name, {"unit", "scale_factor"});
    const auto& unit = member(configuration, name, "unit");
    if (!unit.is_string()) {
      throw InvalidArgumentError(
          fmt::format("data type \"{}\": \"unit\" must be a string, got {}", name, unit.dump()));
    }
    TimeUnit parsed_unit;
    try {
      parsed_unit = parse_time_unit(unit.get<std::string>());
    } catch (const InvalidArgumentError& e) {
      throw InvalidArgumentError(fmt::format("data type \"{}\": \"unit\": {}", name, e.what()));
    }
    const auto scale =
        positive_integer(member(configuration, name, "scale_factor"), name, "scale_factor");
    return DataType::time(kind, parsed_unit, scale);
  }
  check_members(configuration, name, {"length_bytes"});
  const auto length =
      positive_integer(member(configuration, name, "length_bytes"), name, "length_bytes");
  return DataType::fixed_length(kind, static_cast<size_t>(length));
}

}  // namespace

DataType data_type_from_json(const nlohmann::json& value) {
  std::string name;
  const nlohmann::json* configuration = nullptr;
  if (value.is_string()) {
    name = value.get<std::string>();
  } else if (value.is_object() && value.contains("name") && value["name"].is_string()) {
    name = value["name"].get<std::string>();
    for (const auto& [key, m] : value.items()) {
      if (key == "name") continue;
      if (key == "configuration") {
        if (!m.is_object()) {
          throw InvalidArgumentError(fmt::format(
              "data type \"{}\": \"configuration\" must be an object, got {}", name, m.dump()));
        }
        configuration = &m;
        continue;
      }
      // v3 core spec, "Extension points": unknown members must declare must_understand false.
      if (m.is_object() && m.contains("must_understand") && m["must_understand"] == false) continue;
      throw UnsupportedError(
          fmt::format("data type \"{}\" with member \"{}\" is not supported", name, key));
    }
  } else {
    throw InvalidArgumentError(
        fmt::format("must be a string or an object with a string \"name\", got {}", value.dump()));
  }
  if (const auto kind = configured_kind(name)) {
    if (!configuration) {
      throw InvalidArgumentError(fmt::format("data type \"{}\" needs a configuration", name));
    }
    return parse_configured(*kind, name, *configuration);
  }
  if (configuration && !configuration->empty()) {
    throw UnsupportedError(fmt::format("data type \"{}\" with configuration {} is not supported",
                                       name, configuration->dump()));
  }
  try {
    return DataType::from_name(name);
  } catch (const InvalidArgumentError&) {
    throw UnsupportedError(fmt::format("\"{}\" is not a supported data type", name));
  }
}

nlohmann::json data_type_to_json(const DataType& dtype) {
  if (dtype.is_time()) {
    return {{"name", dtype.name()},
            {"configuration",
             {{"unit", std::string(time_unit_name(dtype.time_unit()))},
              {"scale_factor", dtype.scale_factor()}}}};
  }
  if (dtype.is_fixed_length_bytes()) {
    return {{"name", dtype.name()}, {"configuration", {{"length_bytes", dtype.length_bytes()}}}};
  }
  return dtype.name();
}

}  // namespace cuzarr
