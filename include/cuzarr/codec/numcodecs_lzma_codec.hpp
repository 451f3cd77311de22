// The "numcodecs.lzma" codec (bytes -> bytes): an .xz stream (or a legacy .lzma stream) written
// by liblzma, as numcodecs.LZMA writes it (Python's lzma.compress).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "cuzarr/codec/codec.hpp"

namespace cuzarr {

class NumcodecsLzmaCodec final : public BytesToBytesCodec {
 public:
  /// Python's lzma.FORMAT_* values.
  enum class Format { automatic = 0, xz = 1, alone = 2 };

  /// Resolves {"format": 0 (auto-detect, decode only) | 1 (xz, default) | 2 (legacy .lzma),
  /// "check": -1 (default: CRC64 for xz, none for .lzma) | 0 (none) | 1 (CRC32) | 4 (CRC64) |
  /// 10 (SHA-256), "preset": null | 0..9, optionally or-ed with 0x80000000 (extreme),
  /// "filters": null}. Throws InvalidArgumentError naming the field; UnsupportedError for
  /// format 3 (raw) and for explicit filter chains.
  static std::shared_ptr<NumcodecsLzmaCodec> create(const nlohmann::json& configuration,
                                                    const ChunkRepresentation& decoded);
  NumcodecsLzmaCodec(Format format, int check, std::optional<uint32_t> preset);

  std::string name() const override { return "numcodecs.lzma"; }
  nlohmann::json to_json() const override;
  /// Failed status (invalid_argument) for format 0, which can only decode.
  void encode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;
  /// Decodes one stream, or for xz concatenated streams (with stream padding), as Python's
  /// lzma.decompress does. corrupt_data with liblzma's error for malformed or truncated input,
  /// when the decoder would need more than 1 GiB of memory, or when the output would exceed
  /// decoded_size_limit(decoded).
  void decode(std::span<const Buffer> in, std::span<Buffer> out, const ChunkRepresentation& decoded,
              std::span<ChunkStatus> status) const override;

  Format format() const { return format_; }
  int check() const { return check_; }
  std::optional<uint32_t> preset() const { return preset_; }

 private:
  Format format_;
  int check_;
  std::optional<uint32_t> preset_;
};

}  // namespace cuzarr
