// deflate, gzip and zlib decoding on the GPU: one stream per chunk (raw DEFLATE, RFC 1951; a gzip
// member, RFC 1952; a zlib stream, RFC 1950), decoded by the batched kernel of
// codec/cuda/deflate_kernels over chunks in device memory, with the CRC-32 / ISIZE / Adler-32
// trailers checked. There is no GPU deflate encoder: compresses_with() is false, so compression
// stays on the host. The end of a deflate stream is only found by decoding it, so raw bitstreams
// (no table of stream sizes) decode on the host (decodes_raw_bitstreams() is false).
#include "api/device_compression_backends.hpp"

#if defined(CUZARR_HAVE_CUDA)
#include <fmt/format.h>

#include "api/device_backend_batches.hpp"
#include "api/host_compression_backend.hpp"
#include "codec/cuda/deflate_kernels.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

class DeviceDeflateFamilyBackend final : public CompressionBackend {
 public:
  DeviceDeflateFamilyBackend(CompressionAlgorithm algorithm, gpu::DeflateWrapper wrapper)
      : algorithm_(algorithm), wrapper_(wrapper) {}

  CompressionAlgorithm algorithm() const noexcept override { return algorithm_; }
  ExecutedOn executed_on() const noexcept override { return ExecutedOn::device; }
  MemoryKind data_kind() const noexcept override { return MemoryKind::device; }
  bool compresses_with(const CompressorOptions&) const override { return false; }
  bool decodes_only() const noexcept override { return true; }
  bool decodes_raw_bitstreams() const noexcept override { return false; }

  size_t max_compressed_size(size_t chunk_size) const override {
    return host_compression_backend(algorithm_).max_compressed_size(chunk_size);
  }

  void compress(std::span<CompressTask>, const CompressorOptions&, const Stream&) const override {
    throw UnsupportedError(
        fmt::format("{} (GPU): there is no GPU deflate encoder (compress on the host)", name()));
  }

  void decompress(std::span<const DecompressTask> tasks, const Stream& stream) const override {
    if (tasks.empty()) return;
    gpu::DeviceBatchTables tables(device_chunks_of(tasks), stream);
    uint64_t max_output = 0;
    for (const DecompressTask& t : tasks)
      max_output = std::max<uint64_t>(max_output, t.output.size());
    Buffer temp = gpu::device_scratch(gpu::inflate_temp_bytes(tasks.size(), max_output), stream);
    gpu::inflate_batch(tables.batch(), wrapper_, /*verify_checksums=*/true, max_output, temp.data(),
                       stream);
    tables.fetch_results();
    check_decoded(tables, tasks, name());
  }

  std::optional<size_t> find_stream_size(std::span<const std::byte>, size_t) const override {
    return std::nullopt;  // only decoding finds the end of a deflate stream
  }

  size_t decompress_prefix(std::span<const std::byte>, std::span<std::byte>,
                           const std::string& label) const override {
    throw UnsupportedError(fmt::format(
        "{}: {} (GPU): raw bitstreams of deflate streams decode on the host", label, name()));
  }

 private:
  std::string_view name() const { return compression_algorithm_name(algorithm_); }

  CompressionAlgorithm algorithm_;
  gpu::DeflateWrapper wrapper_;
};

}  // namespace

const CompressionBackend& device_deflate_backend() {
  static const DeviceDeflateFamilyBackend backend(CompressionAlgorithm::deflate,
                                                  gpu::DeflateWrapper::raw);
  return backend;
}

const CompressionBackend& device_gzip_backend() {
  static const DeviceDeflateFamilyBackend backend(CompressionAlgorithm::gzip,
                                                  gpu::DeflateWrapper::gzip);
  return backend;
}

const CompressionBackend& device_zlib_backend() {
  static const DeviceDeflateFamilyBackend backend(CompressionAlgorithm::zlib,
                                                  gpu::DeflateWrapper::zlib);
  return backend;
}

}  // namespace cuzarr
#endif
