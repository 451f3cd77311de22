// The Zarr v3 "bytes" codec (array -> bytes): the chunk's elements in C order, each endian unit
// (the whole element, or each part of a complex number) in the configured byte order.
#pragma once

#include <memory>
#include <optional>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class BytesCodec final : public ArrayToBytesCodec {
 public:
  enum class Endian { little, big };

  /// Resolves {"endian": "little"|"big"}. The field is required for data types wider than one
  /// byte and optional otherwise. Throws InvalidArgumentError naming "endian".
  static std::shared_ptr<BytesCodec> create(const nlohmann::json& configuration,
                                            const ChunkRepresentation& decoded);
  explicit BytesCodec(std::optional<Endian> endian) : endian_(endian) {}

  std::string name() const override { return "bytes"; }
  /// {"name": "bytes", "configuration": {"endian": ...}}; the configuration is omitted when no
  /// endian was given (one-byte data types).
  nlohmann::json to_json() const override;

  /// Copies each array (any strides) into a new C-order buffer, byte-swapping when the
  /// configured order differs from the host's.
  void encode(std::span<const NDBuffer> in, std::span<Buffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  /// Checks that each input holds exactly decoded.nbytes() bytes (else corrupt_data). When out[i]
  /// already holds a host array of the right shape and type it is filled; otherwise, when no
  /// swap is needed and the bytes are suitably aligned, out[i] becomes a zero-copy view that
  /// SHARES MEMORY with in[i] (copy it before modifying it in place); otherwise a new array.
  void decode(std::span<const Buffer> in, std::span<NDBuffer> out,
              const ChunkRepresentation& decoded, std::span<ChunkStatus> status) const override;
  /// Always decoded.nbytes().
  std::optional<int64_t> fixed_encoded_size(const ChunkRepresentation& decoded) const override {
    return decoded.nbytes();
  }

  std::optional<Endian> endian() const { return endian_; }
  /// True when encoding elements of `dtype` reverses the bytes of each endian unit on this host.
  bool needs_swap(const DataType& dtype) const;

 private:
  std::optional<Endian> endian_;
};

/// Reverses the bytes of each `unit`-byte unit of data[0, size) in place (unit 1: no-op).
void byte_swap_units(std::byte* data, size_t size, size_t unit);

}  // namespace cuzarr
