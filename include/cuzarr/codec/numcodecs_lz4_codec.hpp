// The "numcodecs.lz4" codec (bytes -> bytes), as numcodecs.LZ4 writes it: the decoded size as a
// 4-byte little-endian integer, then one LZ4 block (not an LZ4 frame) written by liblz4.
#pragma once

#include <memory>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsLz4Codec final : public BytesToBytesCodec {
 public:
  /// Resolves {"acceleration": int} (default 1; values <= 0 mean 1, as in numcodecs). Throws
  /// InvalidArgumentError naming "acceleration".
  static std::shared_ptr<NumcodecsLz4Codec> create(const nlohmann::json& configuration,
                                                   const ChunkRepresentation& decoded);
  explicit NumcodecsLz4Codec(int acceleration) : acceleration_(acceleration) {}

  std::string name() const override { return "numcodecs.lz4"; }
  nlohmann::json to_json() const override;
  /// Failed status (invalid_argument) for inputs larger than LZ4's block limit (about 2 GB).
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// corrupt_data when the input is shorter than the header, the header claims more than
  /// decoded_size_limit(decoded) bytes or more than the block could hold (LZ4 expands at most
  /// 255-fold), or the block is malformed or decodes to another size.
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// Decodes one chunk straight into `out` when its header records exactly out.size() bytes
  /// (false, nothing written, otherwise or for input shorter than the header). Throws
  /// CorruptDataError for an implausible header or a malformed block or one of another size.
  bool decode_into(std::span<const std::byte> in, std::span<std::byte> out,
                   const ChunkRepresentation& decoded, size_t threads) const override;

  int acceleration() const { return acceleration_; }

 private:
  int acceleration_;
};

}  // namespace cuzarr
