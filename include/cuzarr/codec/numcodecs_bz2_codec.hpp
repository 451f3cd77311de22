// The "numcodecs.bz2" codec (bytes -> bytes): one bzip2 stream written by libbz2, as
// numcodecs.BZ2 writes it (Python's bz2.compress).
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsBz2Codec final : public BytesToBytesCodec {
 public:
  /// Resolves {"level": 1..9} (bzip2's block size in units of 100 kB; default 1, numcodecs'
  /// default). Throws InvalidArgumentError naming "level".
  static std::shared_ptr<NumcodecsBz2Codec> create(const nlohmann::json& configuration,
                                                   const ChunkRepresentation& decoded);
  explicit NumcodecsBz2Codec(int level);

  std::string name() const override { return "numcodecs.bz2"; }
  nlohmann::json to_json() const override;
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// Decodes one or more concatenated bzip2 streams (as Python's bz2.decompress). corrupt_data
  /// with libbz2's error for malformed or truncated input, or when the output would exceed
  /// decoded_size_limit(decoded).
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;

  int level() const { return level_; }

 private:
  int level_;
};

}  // namespace cuzarr
