// The numcodecs 32-bit checksum codecs (bytes -> bytes) "numcodecs.crc32", "numcodecs.adler32"
// and "numcodecs.crc32c", as numcodecs' checksum32 module writes them: the checksum of the data
// as a 4-byte little-endian integer, before the data ("location": "start", the default of crc32
// and adler32) or after it ("end", the default of crc32c).
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsChecksum32Codec final : public BytesToBytesCodec {
 public:
  enum class Algorithm { crc32, adler32, crc32c };
  enum class Location { start, end };

  /// Resolves {"location": "start" | "end"} for `algorithm` (default: numcodecs' default for
  /// it). Throws InvalidArgumentError naming "location".
  static std::shared_ptr<NumcodecsChecksum32Codec> create(Algorithm algorithm,
                                                          const nlohmann::json& configuration,
                                                          const ChunkRepresentation& decoded);
  NumcodecsChecksum32Codec(Algorithm algorithm, Location location)
      : algorithm_(algorithm), location_(location) {}
  /// numcodecs' default location for `algorithm`.
  static Location default_location(Algorithm algorithm) {
    return algorithm == Algorithm::crc32c ? Location::end : Location::start;
  }

  /// "numcodecs.crc32", "numcodecs.adler32" or "numcodecs.crc32c".
  std::string name() const override;
  nlohmann::json to_json() const override;
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// out[i] is a zero-copy view of the data without the checksum. corrupt_data when the input
  /// is shorter than 4 bytes or the checksum does not match.
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  std::optional<int64_t> fixed_encoded_size(int64_t decoded_size) const override {
    return decoded_size + 4;
  }

  Algorithm algorithm() const { return algorithm_; }
  Location location() const { return location_; }
  /// The checksum of `data` (CRC-32 as zlib's crc32, Adler-32 as zlib's adler32, or CRC-32C).
  static uint32_t checksum(Algorithm algorithm, std::span<const std::byte> data);

 private:
  Algorithm algorithm_;
  Location location_;
};

}  // namespace cuzarr
