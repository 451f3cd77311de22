#include "codec/codec_configuration.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuzarr/core/error.hpp"

namespace cuzarr {

CodecConfiguration::CodecConfiguration(std::string codec, const nlohmann::json& configuration,
                                       std::initializer_list<const char*> known)
    : codec_(std::move(codec)),
      configuration_(configuration.is_null() ? nlohmann::json::object() : configuration) {
  if (!configuration_.is_object()) {
    throw InvalidArgumentError(fmt::format("{}\"configuration\" must be an object, got {}",
                                           prefix(), configuration_.dump()));
  }
  for (const auto& item : configuration_.items()) {
    bool is_known =
        std::any_of(known.begin(), known.end(), [&](const char* k) { return item.key() == k; });
    if (!is_known) {
      std::string expected;
      for (const char* k : known)
        expected += fmt::format("{}\"{}\"", expected.empty() ? "" : ", ", k);
      throw InvalidArgumentError(fmt::format("{}unknown configuration field \"{}\" (expected {})",
                                             prefix(), item.key(),
                                             expected.empty() ? "no fields" : expected));
    }
  }
}

std::string CodecConfiguration::prefix() const { return fmt::format("codec \"{}\": ", codec_); }

bool CodecConfiguration::has(const char* field) const { return configuration_.contains(field); }

const nlohmann::json& CodecConfiguration::at(const char* field) const {
  if (!has(field))
    throw InvalidArgumentError(
        fmt::format("{}missing configuration field \"{}\"", prefix(), field));
  return configuration_.at(field);
}

std::optional<int64_t> CodecConfiguration::integer(const char* field, int64_t min,
                                                   int64_t max) const {
  if (!has(field)) return std::nullopt;
  const auto& v = configuration_.at(field);
  bool ok = v.is_number_integer();
  int64_t value = 0;
  if (ok && v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    ok = u <= static_cast<uint64_t>(INT64_MAX);
    value = static_cast<int64_t>(u);
  } else if (ok) {
    value = v.get<int64_t>();
  }
  if (!ok || value < min || value > max) {
    throw InvalidArgumentError(fmt::format("{}\"{}\" must be an integer in [{}, {}], got {}",
                                           prefix(), field, min, max, v.dump()));
  }
  return value;
}

std::optional<bool> CodecConfiguration::boolean(const char* field) const {
  if (!has(field)) return std::nullopt;
  const auto& v = configuration_.at(field);
  if (!v.is_boolean())
    throw InvalidArgumentError(
        fmt::format("{}\"{}\" must be true or false, got {}", prefix(), field, v.dump()));
  return v.get<bool>();
}

std::optional<std::string> CodecConfiguration::string(const char* field) const {
  if (!has(field)) return std::nullopt;
  const auto& v = configuration_.at(field);
  if (!v.is_string())
    throw InvalidArgumentError(
        fmt::format("{}\"{}\" must be a string, got {}", prefix(), field, v.dump()));
  return v.get<std::string>();
}

}  // namespace cuzarr
