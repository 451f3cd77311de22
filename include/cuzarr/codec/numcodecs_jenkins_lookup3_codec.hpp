// The "numcodecs.jenkins_lookup3" codec (bytes -> bytes), as numcodecs.JenkinsLookup3 writes it:
// the data, then Bob Jenkins' lookup3 hash of it as a 4-byte little-endian integer. The hash is
// HDF5's byte-wise variant (H5_checksum_lookup3, lookup3's hashlittle read a byte at a time, so
// the same on every machine), seeded with "initval", over "prefix" followed by the data.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsJenkinsLookup3Codec final : public BytesToBytesCodec {
 public:
  /// Resolves {"initval": 0 .. 2^32 - 1 (default 0), "prefix": null or a list of byte values}.
  /// Throws InvalidArgumentError naming the field.
  static std::shared_ptr<NumcodecsJenkinsLookup3Codec> create(const nlohmann::json& configuration,
                                                              const ChunkRepresentation& decoded);
  NumcodecsJenkinsLookup3Codec(uint32_t initval, std::vector<std::byte> prefix)
      : initval_(initval), prefix_(std::move(prefix)) {}

  std::string name() const override { return "numcodecs.jenkins_lookup3"; }
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

  /// The checksum of `data`: the hash of the prefix followed by `data`.
  uint32_t checksum(std::span<const std::byte> data) const;

 private:
  uint32_t initval_;
  std::vector<std::byte> prefix_;
};

/// HDF5's lookup3 hash (H5_checksum_lookup3) of `data` with seed `initval`.
uint32_t jenkins_lookup3(std::span<const std::byte> data, uint32_t initval) noexcept;

}  // namespace cuzarr
