// bz2 on the CPU: one bzip2 stream per chunk, through libbz2.
#include <bzlib.h>
#include <fmt/format.h>

#include <algorithm>

#include "api/host_compression_backend.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

class HostBz2Backend final : public HostCompressionBackend {
 public:
  CompressionAlgorithm algorithm() const noexcept override { return CompressionAlgorithm::bz2; }

  size_t max_compressed_size(size_t chunk_size) const override {
    // bzlib manual (BZ2_bzBuffToBuffCompress): 1% larger than the input plus 600 bytes.
    return chunk_size + chunk_size / 100 + 601;
  }

 protected:
  size_t compress_chunk(std::span<const std::byte> in, std::span<std::byte> out,
                        const CompressorOptions& options) const override {
    auto written = static_cast<unsigned int>(out.size());
    const int rc = BZ2_bzBuffToBuffCompress(
        reinterpret_cast<char*>(out.data()), &written,
        reinterpret_cast<char*>(const_cast<std::byte*>(in.data())),
        static_cast<unsigned int>(in.size()), options.effective_level(), 0, 0);
    if (rc != BZ_OK) throw InvalidArgumentError(fmt::format("bz2: compression failed ({})", rc));
    return written;
  }

  size_t decompress_chunk_prefix(std::span<const std::byte> in,
                                 std::span<std::byte> out) const override {
    bz_stream stream{};
    if (BZ2_bzDecompressInit(&stream, 0, 0) != BZ_OK)
      throw CorruptDataError("bz2: BZ2_bzDecompressInit failed");
    char dummy = 0;
    const size_t fed = std::min<size_t>(in.size(), 0xFFFFFFFFu);
    stream.next_in = reinterpret_cast<char*>(const_cast<std::byte*>(in.data()));
    stream.avail_in = static_cast<unsigned int>(fed);
    stream.next_out = out.empty() ? &dummy : reinterpret_cast<char*>(out.data());
    stream.avail_out = static_cast<unsigned int>(out.size());
    // BZ2_bzDecompress returns BZ_OK while it makes progress: call it until the stream ends, it
    // fails, or it makes none (input used up or output full).
    int rc = BZ_OK;
    for (;;) {
      const unsigned int in_before = stream.avail_in;
      const unsigned int out_before = stream.avail_out;
      rc = BZ2_bzDecompress(&stream);
      if (rc != BZ_OK) break;
      if (stream.avail_in == in_before && stream.avail_out == out_before) break;
    }
    const size_t used = fed - stream.avail_in;
    const size_t produced = out.size() - stream.avail_out;
    BZ2_bzDecompressEnd(&stream);
    if (rc == BZ_STREAM_END) {
      if (produced != out.size())
        throw CorruptDataError(
            fmt::format("bz2: stream decodes to {} bytes, expected {}", produced, out.size()));
      return used;
    }
    if (rc == BZ_OK) {
      if (produced == out.size())
        throw CorruptDataError(
            fmt::format("bz2: stream decodes to more than the expected {} bytes", out.size()));
      throw CorruptDataError(
          fmt::format("bz2: stream truncated after {} compressed bytes ({} of {} bytes decoded)",
                      used, produced, out.size()));
    }
    throw CorruptDataError(fmt::format("bz2: malformed stream (error {})", rc));
  }
};

}  // namespace

const CompressionBackend& host_bz2_backend() {
  static const HostBz2Backend backend;
  return backend;
}

}  // namespace cuzarr
