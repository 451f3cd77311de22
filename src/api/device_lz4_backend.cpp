// lz4 on the GPU: one raw LZ4 block per chunk, encoded and decoded by the batched kernels of
// codec/cuda/lz4_kernels over chunks in device memory. The encoder is LZ4's fast greedy parser run
// on 64 KiB segments in parallel and stitched into one block (one level: options asking for LZ4-HC
// levels stay on the host); its blocks decode with liblz4,
// and the decoder reads liblz4's blocks of every level (large blocks block-parallel).
#include "api/device_compression_backends.hpp"

#if defined(CUZARR_HAVE_CUDA)
#include <fmt/format.h>

#include <algorithm>

#include "api/device_backend_batches.hpp"
#include "api/host_compression_backend.hpp"
#include "codec/cuda/lz4_kernels.hpp"
#include "cuzarr/core/error.hpp"

namespace cuzarr {
namespace {

class DeviceLz4Backend final : public CompressionBackend {
 public:
  CompressionAlgorithm algorithm() const noexcept override { return CompressionAlgorithm::lz4; }
  ExecutedOn executed_on() const noexcept override { return ExecutedOn::device; }
  MemoryKind data_kind() const noexcept override { return MemoryKind::device; }

  bool compresses_with(const CompressorOptions& options) const override {
    return options.effective_level() <= 1;
  }

  size_t max_compressed_size(size_t chunk_size) const override {
    return static_cast<size_t>(gpu::lz4_max_encoded_size(chunk_size));
  }

  void compress(std::span<CompressTask> tasks, const CompressorOptions&,
                const Stream& stream) const override {
    if (tasks.empty()) return;
    gpu::DeviceBatchTables tables(device_chunks_of(tasks), stream);
    // Segment-parallel encoder: 64 KiB segments per warp, stitched into one block per chunk.
    uint64_t max_input = 0;
    for (const auto& task : tasks) max_input = std::max<uint64_t>(max_input, task.input.size());
    Buffer temp =
        gpu::device_scratch(gpu::lz4_encode_segments_temp_bytes(tasks.size(), max_input), stream);
    gpu::lz4_encode_segments_batch(tables.batch(), max_input, temp.data(), stream);
    tables.fetch_results();
    take_compressed_sizes(tables, tasks, "lz4");
  }

  void decompress(std::span<const DecompressTask> tasks, const Stream& stream) const override {
    if (tasks.empty()) return;
    gpu::DeviceBatchTables tables(device_chunks_of(tasks), stream);
    // Blocks of 256 KiB and more decode block-parallel (many warps per block), the others one
    // warp per block.
    uint64_t max_output = 0;
    for (const auto& task : tasks) max_output = std::max<uint64_t>(max_output, task.output.size());
    Buffer temp = gpu::device_scratch(gpu::lz4_decode_temp_bytes(tasks.size(), max_output), stream);
    gpu::lz4_decode_batch(tables.batch(), max_output, temp.data(), stream);
    tables.fetch_results();
    check_decoded(tables, tasks, "lz4");
  }

  // Stream ends are found on the host, from the block's sequence headers (the same walk as the
  // host backend's).
  std::optional<size_t> find_stream_size(std::span<const std::byte> input,
                                         size_t decoded_size) const override {
    return host_lz4_backend().find_stream_size(input, decoded_size);
  }

  size_t decompress_prefix(std::span<const std::byte>, std::span<std::byte>,
                           const std::string& label) const override {
    throw UnsupportedError(
        fmt::format("{}: lz4 (GPU): stream ends are found from the block, not by decoding", label));
  }
};

}  // namespace

const CompressionBackend& device_lz4_backend() {
  static const DeviceLz4Backend backend;
  return backend;
}

}  // namespace cuzarr
#endif
