// The codec registry: v3 name -> factory that resolves a configuration against the chunk
// representation the codec will see.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuzarr/codec/codec.hpp"
#include "cuzarr/metadata/array_metadata.hpp"

namespace cuzarr {

using CodecFactory = std::function<std::shared_ptr<Codec>(const nlohmann::json& configuration,
                                                          const ChunkRepresentation& decoded)>;

class CodecRegistry {
 public:
  /// The process-wide registry with every built-in codec registered.
  static CodecRegistry& instance();
  /// Adds or replaces the codec called `name`.
  void register_codec(const std::string& name, CodecFactory factory);
  bool contains(const std::string& name) const;
  std::vector<std::string> names() const;
  /// Resolves `spec`; throws UnsupportedError naming an unknown codec, InvalidArgumentError for a
  /// bad configuration (naming the codec and the field).
  std::shared_ptr<Codec> create(const CodecSpec& spec, const ChunkRepresentation& decoded) const;

 private:
  CodecRegistry();
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace cuzarr
