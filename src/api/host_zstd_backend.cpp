// zstd on the CPU: one Zstandard frame (RFC 8878) per chunk, with the content size in the frame
// header.
#include <fmt/format.h>
#include <zstd.h>

#include <memory>

#include "api/host_compression_backend.hpp"
#include "codec/zstd_thread_contexts.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

class HostZstdBackend final : public HostCompressionBackend {
 public:
  CompressionAlgorithm algorithm() const noexcept override { return CompressionAlgorithm::zstd; }

  size_t max_compressed_size(size_t chunk_size) const override {
    return ZSTD_compressBound(chunk_size);
  }

  // The frame's size from its block headers (ZSTD_findFrameCompressedSize reads no further than
  // the input).
  std::optional<size_t> find_stream_size(std::span<const std::byte> in, size_t) const override {
    if (in.empty()) throw CorruptDataError("zstd: input ends where a frame should start");
    const size_t size = ZSTD_findFrameCompressedSize(in.data(), in.size());
    if (ZSTD_isError(size))
      throw CorruptDataError(
          fmt::format("zstd: malformed or truncated frame ({})", ZSTD_getErrorName(size)));
    return size;
  }

 protected:
  size_t compress_chunk(std::span<const std::byte> in, std::span<std::byte> out,
                        const CompressorOptions& options) const override {
    ZSTD_CCtx* cctx = zstd_thread_compression_context();
    ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
    const size_t rc =
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, options.effective_level());
    if (ZSTD_isError(rc))
      throw InvalidArgumentError(fmt::format("zstd: bad \"level\" {}: {}",
                                             options.effective_level(), ZSTD_getErrorName(rc)));
    const size_t written = ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(written))
      throw InvalidArgumentError(
          fmt::format("zstd: compression failed: {}", ZSTD_getErrorName(written)));
    return written;
  }

  void decompress_chunk(std::span<const std::byte> in, std::span<std::byte> out) const override {
    // ZSTD_decompressDCtx would decode frames back to back: require exactly one.
    const size_t frame = *find_stream_size(in, out.size());
    if (frame != in.size())
      throw CorruptDataError(fmt::format("zstd: the frame ends after {} of its {} compressed bytes",
                                         frame, in.size()));
    const unsigned long long content = ZSTD_getFrameContentSize(in.data(), in.size());
    if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != out.size())
      throw CorruptDataError(
          fmt::format("zstd: the frame header says {} bytes, expected {}", content, out.size()));
    const size_t got = ZSTD_decompressDCtx(zstd_thread_decompression_context(), out.data(),
                                           out.size(), in.data(), in.size());
    if (ZSTD_isError(got))
      throw CorruptDataError(fmt::format("zstd: decompression failed: {}", ZSTD_getErrorName(got)));
    if (got != out.size())
      throw CorruptDataError(
          fmt::format("zstd: frame decodes to {} bytes, expected {}", got, out.size()));
  }
};

}  // namespace

const CompressionBackend& host_zstd_backend() {
  static const HostZstdBackend backend;
  return backend;
}

}  // namespace cuzarr
