// zstd decoding on the GPU: one zstd frame per chunk, decoded by the batched kernels of
// codec/cuda/zstd_kernels over chunks in device memory (content checksums verified; chunks above
// one block, and every chunk of a large batch, block-parallel). There is no
// GPU zstd encoder: compresses_with() is false, so compression stays on the host backend.
#include "api/device_compression_backends.hpp"

#if defined(CUZARR_HAVE_CUDA)
#include <fmt/format.h>

#include <algorithm>

#include "api/device_backend_batches.hpp"
#include "api/host_compression_backend.hpp"
#include "codec/cuda/zstd_kernels.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

class DeviceZstdBackend final : public CompressionBackend {
 public:
  CompressionAlgorithm algorithm() const noexcept override { return CompressionAlgorithm::zstd; }
  ExecutedOn executed_on() const noexcept override { return ExecutedOn::device; }
  MemoryKind data_kind() const noexcept override { return MemoryKind::device; }
  bool compresses_with(const CompressorOptions&) const override { return false; }
  bool decodes_only() const noexcept override { return true; }

  size_t max_compressed_size(size_t chunk_size) const override {
    return host_zstd_backend().max_compressed_size(chunk_size);
  }

  void compress(std::span<CompressTask>, const CompressorOptions&, const Stream&) const override {
    throw UnsupportedError("zstd (GPU): there is no GPU zstd encoder (compress on the host)");
  }

  void decompress(std::span<const DecompressTask> tasks, const Stream& stream) const override {
    if (tasks.empty()) return;
    gpu::DeviceBatchTables tables(device_chunks_of(tasks), stream);
    // The largest output lets chunks above one block (and large batches) decode block-parallel.
    uint64_t max_output = 0;
    for (const auto& task : tasks) max_output = std::max<uint64_t>(max_output, task.output.size());
    Buffer temp =
        gpu::device_scratch(gpu::zstd_decode_temp_bytes(tasks.size(), max_output), stream);
    gpu::zstd_decode_batch(tables.batch(), /*verify_checksum=*/true, max_output, temp.data(),
                           stream);
    tables.fetch_results();
    check_decoded(tables, tasks, "zstd");
  }

  // Frame ends are found on the host, from the block headers (as the host backend does).
  std::optional<size_t> find_stream_size(std::span<const std::byte> input,
                                         size_t decoded_size) const override {
    return host_zstd_backend().find_stream_size(input, decoded_size);
  }

  size_t decompress_prefix(std::span<const std::byte>, std::span<std::byte>,
                           const std::string& label) const override {
    throw UnsupportedError(fmt::format(
        "{}: zstd (GPU): frame ends are found from the block headers, not by decoding", label));
  }
};

}  // namespace

const CompressionBackend& device_zstd_backend() {
  static const DeviceZstdBackend backend;
  return backend;
}

}  // namespace cuzarr
#endif
