// The "numcodecs.gzip" codec (bytes -> bytes): RFC 1952 gzip, as numcodecs.GZip writes it
// (Python's gzip.GzipFile). The bytes are those of the v3 "gzip" codec; only the name and the
// default level (1 instead of 5) differ, so encoding and decoding are delegated to GzipCodec.
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"
#include "cuzarr/codec/gzip_codec.hpp"

namespace cuzarr {

class NumcodecsGzipCodec final : public BytesToBytesCodec {
 public:
  /// Resolves {"level": 0..9} (default 1). Throws InvalidArgumentError naming "level".
  static std::shared_ptr<NumcodecsGzipCodec> create(const nlohmann::json& configuration,
                                                    const ChunkRepresentation& decoded);
  explicit NumcodecsGzipCodec(int level) : gzip_(level) {}

  std::string name() const override { return "numcodecs.gzip"; }
  nlohmann::json to_json() const override;
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override {
    gzip_.encode(in, out, decoded, status);
  }
  /// As GzipCodec::decode: one or more gzip members; corrupt_data for malformed input.
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override {
    gzip_.decode(in, out, decoded, status);
  }

  int level() const { return gzip_.level(); }

 private:
  GzipCodec gzip_;
};

}  // namespace cuzarr
