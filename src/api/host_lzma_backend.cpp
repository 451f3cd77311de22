// lzma on the CPU: one .xz stream (LZMA2 filter, CRC-32 check) per chunk, through liblzma.
#include <fmt/format.h>
#include <lzma.h>

#include "api/host_compression_backend.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

// Enough for every preset's dictionary (preset 9: 64 MiB); bounds hostile headers.
constexpr uint64_t kDecoderMemoryLimit = uint64_t{1} << 30;

class HostLzmaBackend final : public HostCompressionBackend {
 public:
  CompressionAlgorithm algorithm() const noexcept override { return CompressionAlgorithm::lzma; }

  size_t max_compressed_size(size_t chunk_size) const override {
    return lzma_stream_buffer_bound(chunk_size);
  }

 protected:
  size_t compress_chunk(std::span<const std::byte> in, std::span<std::byte> out,
                        const CompressorOptions& options) const override {
    size_t written = 0;
    const lzma_ret rc =
        lzma_easy_buffer_encode(static_cast<uint32_t>(options.effective_level()), LZMA_CHECK_CRC32,
                                nullptr, reinterpret_cast<const uint8_t*>(in.data()), in.size(),
                                reinterpret_cast<uint8_t*>(out.data()), &written, out.size());
    if (rc != LZMA_OK)
      throw InvalidArgumentError(
          fmt::format("lzma: compression failed (lzma_ret {})", static_cast<int>(rc)));
    return written;
  }

  size_t decompress_chunk_prefix(std::span<const std::byte> in,
                                 std::span<std::byte> out) const override {
    if (in.empty()) throw CorruptDataError("lzma: input ends where an .xz stream should start");
    uint64_t memory_limit = kDecoderMemoryLimit;
    size_t in_pos = 0;
    size_t out_pos = 0;
    uint8_t dummy = 0;
    // Without LZMA_CONCATENATED the decoder stops at the end of the first stream.
    const lzma_ret rc = lzma_stream_buffer_decode(
        &memory_limit, 0, nullptr, reinterpret_cast<const uint8_t*>(in.data()), &in_pos, in.size(),
        out.empty() ? &dummy : reinterpret_cast<uint8_t*>(out.data()), &out_pos, out.size());
    switch (rc) {
      case LZMA_OK:
        break;
      case LZMA_BUF_ERROR:  // input left but the output is full
        throw CorruptDataError(
            fmt::format("lzma: stream decodes to more than the expected {} bytes", out.size()));
      case LZMA_DATA_ERROR:  // also a stream that runs past the input
        throw CorruptDataError(fmt::format(
            "lzma: malformed or truncated stream ({} compressed bytes available)", in.size()));
      case LZMA_FORMAT_ERROR:
        throw CorruptDataError("lzma: input is not an .xz stream");
      case LZMA_MEMLIMIT_ERROR:
        throw CorruptDataError("lzma: the stream needs more than 1 GiB of decoder memory");
      default:
        throw CorruptDataError(
            fmt::format("lzma: malformed stream (lzma_ret {})", static_cast<int>(rc)));
    }
    if (out_pos != out.size())
      throw CorruptDataError(
          fmt::format("lzma: stream decodes to {} bytes, expected {}", out_pos, out.size()));
    return in_pos;
  }
};

}  // namespace

const CompressionBackend& host_lzma_backend() {
  static const HostLzmaBackend backend;
  return backend;
}

}  // namespace cuzarr
