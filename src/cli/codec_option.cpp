#include "codec_option.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>

#include "cuzarr/core/error.hpp"

namespace cuzarr::cli {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

/// A value of the short form: JSON when it parses (3, true, 1.5, "x"), otherwise the text.
nlohmann::json parse_value(std::string_view text) {
  auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || parsed.is_object() || parsed.is_null()) return std::string(text);
  return parsed;
}

/// Array->array codecs: transpose and the numcodecs filters (as zarr-python 3 names them).
bool is_array_to_array(const std::string& name) {
  static const std::set<std::string> names{
      "transpose",          "numcodecs.delta",  "numcodecs.fixedscaleoffset", "numcodecs.quantize",
      "numcodecs.packbits", "numcodecs.astype", "numcodecs.bitround"};
  return names.contains(name);
}
bool is_array_to_bytes(const std::string& name) {
  return name == "bytes" || name == "sharding_indexed" || name == "vlen-utf8" ||
         name == "vlen-bytes";
}

}  // namespace

CodecSpec parse_codec_option(std::string_view text) {
  std::string_view trimmed = trim(text);
  if (trimmed.empty())
    throw InvalidArgumentError("--codec needs a codec name or a JSON codec object");
  if (trimmed.front() == '{' || trimmed.front() == '"') {
    auto parsed = nlohmann::json::parse(trimmed, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      throw InvalidArgumentError(fmt::format("--codec '{}' is not valid JSON", text));
    }
    return CodecSpec::from_json(parsed);
  }
  size_t colon = trimmed.find(':');
  CodecSpec spec{std::string(trim(trimmed.substr(0, colon))), nlohmann::json::object()};
  if (spec.name.empty())
    throw InvalidArgumentError(fmt::format("--codec '{}' has no codec name", text));
  if (colon == std::string_view::npos) return spec;

  std::string_view rest = trimmed.substr(colon + 1);
  std::string last_key;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) continue;
    size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      // "order=1,0": an item without '=' continues the previous value as a list.
      if (last_key.empty()) {
        throw InvalidArgumentError(
            fmt::format("--codec '{}': expected key=value, got '{}'", text, item));
      }
      auto& value = spec.configuration[last_key];
      if (!value.is_array()) value = nlohmann::json::array({value});
      value.push_back(parse_value(item));
      continue;
    }
    last_key = std::string(trim(item.substr(0, equals)));
    if (last_key.empty())
      throw InvalidArgumentError(fmt::format("--codec '{}': empty key in '{}'", text, item));
    spec.configuration[last_key] = parse_value(trim(item.substr(equals + 1)));
  }
  // A transpose order is always a list, even for one dimension.
  if (spec.name == "transpose" && spec.configuration.contains("order") &&
      !spec.configuration["order"].is_array()) {
    spec.configuration["order"] = nlohmann::json::array({spec.configuration["order"]});
  }
  return spec;
}

CodecSpec complete_codec(CodecSpec spec, const DataType& dtype) {
  auto& config = spec.configuration;
  auto set_default = [&](const char* key, nlohmann::json value) {
    if (!config.contains(key)) config[key] = std::move(value);
  };
  if (spec.name == "bytes") {
    if (dtype.endian_unit() > 1) set_default("endian", "little");
  } else if (spec.name == "blosc") {
    set_default("cname", "zstd");
    set_default("clevel", 5);
    set_default("shuffle", dtype.size() == 1 ? "bitshuffle" : "shuffle");
    set_default("typesize", dtype.size());
    set_default("blocksize", 0);
  } else if (spec.name == "gzip") {
    set_default("level", 5);
  } else if (spec.name == "zstd") {
    set_default("level", 0);
    set_default("checksum", false);
  }
  return spec;
}

std::vector<CodecSpec> complete_codec_list(std::vector<CodecSpec> codecs, const DataType& dtype) {
  for (auto& codec : codecs) codec = complete_codec(std::move(codec), dtype);
  bool has_array_to_bytes = std::any_of(
      codecs.begin(), codecs.end(), [](const CodecSpec& c) { return is_array_to_bytes(c.name); });
  if (!has_array_to_bytes) {
    auto first_bytes_codec = std::find_if(codecs.begin(), codecs.end(), [](const CodecSpec& c) {
      return !is_array_to_array(c.name);
    });
    // Variable-length types need their vlen codec instead of bytes (as zarr-python 3 picks).
    const std::string array_to_bytes = !dtype.is_variable_length()            ? "bytes"
                                       : dtype.kind() == DataTypeKind::string ? "vlen-utf8"
                                                                              : "vlen-bytes";
    codecs.insert(first_bytes_codec,
                  complete_codec(CodecSpec{array_to_bytes, nlohmann::json::object()}, dtype));
  }
  return codecs;
}

}  // namespace cuzarr::cli
