// lz4 on the CPU: one LZ4 block (lz4.h, not the LZ4 frame format) per chunk.
#include <fmt/format.h>
#include <lz4.h>
#include <lz4hc.h>

#include "api/host_compression_backend.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

// Reads an LZ4 length extension (LZ4 Block Format: bytes of 255 continue, the first byte below
// 255 ends it) starting at `pos`; adds to `length`. False when the input ends first.
bool read_length_extension(std::span<const std::byte> in, size_t& pos, size_t& length) {
  for (;;) {
    if (pos >= in.size()) return false;
    const auto byte = static_cast<uint8_t>(in[pos++]);
    length += byte;
    if (byte != 255) return true;
  }
}

class HostLz4Backend final : public HostCompressionBackend {
 public:
  CompressionAlgorithm algorithm() const noexcept override { return CompressionAlgorithm::lz4; }

  size_t max_compressed_size(size_t chunk_size) const override {
    return static_cast<size_t>(LZ4_compressBound(static_cast<int>(chunk_size)));
  }

  // Walks the sequences of the block (LZ4 Block Format Description, "Compressed block format")
  // until they have produced `decoded_size` bytes; the block ends there. Each sequence is a token
  // (literal length in the high nibble, match length - 4 in the low one), optional length
  // extensions, the literals, and, except in the last sequence, a 2-byte match offset.
  std::optional<size_t> find_stream_size(std::span<const std::byte> in,
                                         size_t decoded_size) const override {
    size_t pos = 0;
    size_t produced = 0;
    for (;;) {
      if (pos >= in.size())
        throw CorruptDataError(
            fmt::format("lz4: block truncated after {} input bytes ({} of {} bytes decoded)",
                        in.size(), produced, decoded_size));
      const auto token = static_cast<uint8_t>(in[pos++]);
      size_t literals = token >> 4;
      if (literals == 15 && !read_length_extension(in, pos, literals))
        throw CorruptDataError("lz4: block truncated inside a literal length");
      if (literals > in.size() - pos)
        throw CorruptDataError(
            fmt::format("lz4: {} literals run past the end of the input at {}", literals, pos));
      if (literals > decoded_size - produced)
        throw CorruptDataError(
            fmt::format("lz4: block decodes to more than the expected {} bytes", decoded_size));
      pos += literals;
      produced += literals;
      if (produced == decoded_size) return pos;  // the last sequence has no match
      if (in.size() - pos < 2) throw CorruptDataError("lz4: block truncated inside a match offset");
      const size_t offset = static_cast<uint8_t>(in[pos]) |
                            (static_cast<size_t>(static_cast<uint8_t>(in[pos + 1])) << 8);
      pos += 2;
      if (offset == 0 || offset > produced)
        throw CorruptDataError(
            fmt::format("lz4: match offset {} at output position {} is invalid", offset, produced));
      size_t match = token & 15;
      if (match == 15 && !read_length_extension(in, pos, match))
        throw CorruptDataError("lz4: block truncated inside a match length");
      match += 4;  // LZ4's minimum match
      if (match > decoded_size - produced)
        throw CorruptDataError(
            fmt::format("lz4: block decodes to more than the expected {} bytes", decoded_size));
      produced += match;
    }
  }

 protected:
  size_t compress_chunk(std::span<const std::byte> in, std::span<std::byte> out,
                        const CompressorOptions& options) const override {
    const int level = options.effective_level();
    const auto* src = reinterpret_cast<const char*>(in.data());
    auto* dst = reinterpret_cast<char*>(out.data());
    const int n = static_cast<int>(in.size());
    const int capacity = static_cast<int>(out.size());
    const int written = level <= 1 ? LZ4_compress_default(src, dst, n, capacity)
                                   : LZ4_compress_HC(src, dst, n, capacity, level);
    if (written <= 0)
      throw InvalidArgumentError(fmt::format("lz4: compression of {} bytes failed", in.size()));
    return static_cast<size_t>(written);
  }

  void decompress_chunk(std::span<const std::byte> in, std::span<std::byte> out) const override {
    if (in.empty()) throw CorruptDataError("lz4: empty input is not an LZ4 block");
    char dummy = 0;
    const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                        out.empty() ? &dummy : reinterpret_cast<char*>(out.data()),
                                        static_cast<int>(in.size()), static_cast<int>(out.size()));
    if (got < 0) throw CorruptDataError(fmt::format("lz4: malformed block of {} bytes", in.size()));
    if (static_cast<size_t>(got) != out.size())
      throw CorruptDataError(
          fmt::format("lz4: block decodes to {} bytes, expected {}", got, out.size()));
  }
};

}  // namespace

const CompressionBackend& host_lz4_backend() {
  static const HostLz4Backend backend;
  return backend;
}

}  // namespace cuzarr
