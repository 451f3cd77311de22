// Reads a codec's "configuration" object with errors that name the codec and the field, and
// rejects fields the codec does not know (like zarr-python, so that typos do not pass silently).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace cuzarr {

class CodecConfiguration {
 public:
  /// Throws InvalidArgumentError unless `configuration` is an object (or null, meaning {}) whose
  /// keys are all in `known`.
  CodecConfiguration(std::string codec, const nlohmann::json& configuration,
                     std::initializer_list<const char*> known);

  bool has(const char* field) const;
  /// The integer field, or nullopt when absent; throws InvalidArgumentError when it is not an
  /// integer in [min, max].
  std::optional<int64_t> integer(const char* field, int64_t min, int64_t max) const;
  std::optional<bool> boolean(const char* field) const;
  std::optional<std::string> string(const char* field) const;
  /// The raw JSON of a field (must be present).
  const nlohmann::json& at(const char* field) const;

  /// An InvalidArgumentError message prefix: `codec "name": `.
  std::string prefix() const;

 private:
  std::string codec_;
  nlohmann::json configuration_;
};

}  // namespace cuzarr
