// The "numcodecs.zlib" codec (bytes -> bytes): one RFC 1950 zlib stream, as numcodecs.Zlib
// writes it (Python's zlib.compress).
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsZlibCodec final : public BytesToBytesCodec {
 public:
  /// Resolves {"level": -1..9} (default 1, numcodecs' default; -1 is zlib's default level).
  /// Throws InvalidArgumentError naming "level".
  static std::shared_ptr<NumcodecsZlibCodec> create(const nlohmann::json& configuration,
                                                    const ChunkRepresentation& decoded);
  explicit NumcodecsZlibCodec(int level);

  std::string name() const override { return "numcodecs.zlib"; }
  nlohmann::json to_json() const override;
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// Decodes one zlib stream; bytes after its end are ignored (as Python's zlib.decompress does).
  /// corrupt_data with zlib's message for malformed or truncated input, or when the output would
  /// exceed decoded_size_limit(decoded).
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;

  int level() const { return level_; }

 private:
  int level_;
};

}  // namespace cuzarr
