// deflate, gzip and zlib on the CPU, through zlib: the same DEFLATE data (RFC 1951) raw, in a
// gzip member (RFC 1952) or in a zlib stream (RFC 1950), chosen by zlib's windowBits.
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <limits>

#include "api/host_compression_backend.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

constexpr size_t kMaxStep = std::numeric_limits<uInt>::max();

class HostZlibFamilyBackend final : public HostCompressionBackend {
 public:
  // window_bits: -15 raw deflate, 15 zlib, 15 + 16 gzip (zlib manual, deflateInit2).
  HostZlibFamilyBackend(CompressionAlgorithm algorithm, int window_bits)
      : algorithm_(algorithm), window_bits_(window_bits) {}

  CompressionAlgorithm algorithm() const noexcept override { return algorithm_; }

  size_t max_compressed_size(size_t chunk_size) const override {
    // compressBound covers the zlib wrapper (6 bytes); gzip's wrapper is 18 bytes.
    return compressBound(static_cast<uLong>(chunk_size)) + 32;
  }

 protected:
  size_t compress_chunk(std::span<const std::byte> in, std::span<std::byte> out,
                        const CompressorOptions& options) const override {
    z_stream stream{};
    int rc = deflateInit2(&stream, options.effective_level(), Z_DEFLATED, window_bits_, 8,
                          Z_DEFAULT_STRATEGY);
    if (rc != Z_OK)
      throw InvalidArgumentError(fmt::format("{}: deflateInit2 failed ({})", name(), rc));
    // Chunks are at most 1 GiB, so the sizes fit zlib's 32-bit counters.
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    stream.avail_in = static_cast<uInt>(in.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(std::min(out.size(), kMaxStep));
    rc = deflate(&stream, Z_FINISH);
    const size_t written = stream.total_out;
    deflateEnd(&stream);
    if (rc != Z_STREAM_END)
      throw InvalidArgumentError(fmt::format("{}: deflate failed ({})", name(), rc));
    return written;
  }

  size_t decompress_chunk_prefix(std::span<const std::byte> in,
                                 std::span<std::byte> out) const override {
    z_stream stream{};
    if (inflateInit2(&stream, window_bits_) != Z_OK)
      throw CorruptDataError(fmt::format("{}: inflateInit2 failed", name()));
    Bytef dummy = 0;  // zlib refuses a null next_out even for zero bytes
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in.data()));
    stream.avail_in = static_cast<uInt>(std::min(in.size(), kMaxStep));
    stream.next_out = out.empty() ? &dummy : reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&stream, Z_FINISH);
    const size_t used = stream.total_in;
    const size_t produced = stream.total_out;
    const std::string message = stream.msg != nullptr ? stream.msg : "";
    inflateEnd(&stream);
    if (rc == Z_STREAM_END) {
      if (produced != out.size())
        throw CorruptDataError(fmt::format("{}: stream decodes to {} bytes, expected {}", name(),
                                           produced, out.size()));
      return used;
    }
    if (rc == Z_BUF_ERROR || rc == Z_OK) {
      if (produced == out.size())
        throw CorruptDataError(fmt::format("{}: stream decodes to more than the expected {} bytes",
                                           name(), out.size()));
      throw CorruptDataError(
          fmt::format("{}: stream truncated after {} compressed bytes ({} of {} "
                      "bytes decoded)",
                      name(), used, produced, out.size()));
    }
    throw CorruptDataError(
        fmt::format("{}: malformed stream: {}", name(),
                    message.empty() ? fmt::format("zlib error {}", rc) : message));
  }

 private:
  std::string_view name() const { return compression_algorithm_name(algorithm_); }

  CompressionAlgorithm algorithm_;
  int window_bits_;
};

}  // namespace

const CompressionBackend& host_deflate_backend() {
  static const HostZlibFamilyBackend backend(CompressionAlgorithm::deflate, -15);
  return backend;
}

const CompressionBackend& host_gzip_backend() {
  static const HostZlibFamilyBackend backend(CompressionAlgorithm::gzip, 15 + 16);
  return backend;
}

const CompressionBackend& host_zlib_backend() {
  static const HostZlibFamilyBackend backend(CompressionAlgorithm::zlib, 15);
  return backend;
}

}  // namespace cuzarr
