// The "numcodecs.fletcher32" codec (bytes -> bytes), as numcodecs.Fletcher32 writes it: the data,
// then its Fletcher-32 checksum as a 4-byte little-endian integer. The checksum is the HDF5 /
// netCDF-4 variant (H5_checksum_fletcher32): 16-bit big-endian words, sums folded every 360
// words, an odd last byte taken as the high byte of a final word.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsFletcher32Codec final : public BytesToBytesCodec {
 public:
  /// Resolves an empty configuration; throws InvalidArgumentError for any field.
  static std::shared_ptr<NumcodecsFletcher32Codec> create(const nlohmann::json& configuration,
                                                          const ChunkRepresentation& decoded);

  std::string name() const override { return "numcodecs.fletcher32"; }
  nlohmann::json to_json() const override {
    return {{"name", "numcodecs.fletcher32"}, {"configuration", nlohmann::json::object()}};
  }
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// out[i] is a zero-copy view of the data without the checksum. corrupt_data when the input
  /// is shorter than 4 bytes or the checksum does not match.
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  std::optional<int64_t> fixed_encoded_size(int64_t decoded_size) const override {
    return decoded_size + 4;
  }
};

/// The HDF5 Fletcher-32 checksum of `data`.
uint32_t fletcher32_hdf5(std::span<const std::byte> data) noexcept;

}  // namespace cuzarr
