// blosc on the GPU: c-blosc 1.x chunks decoded by the batched blosc kernels (lz4, lz4hc and
// blosclz blocks, any shuffle; then zstd and zlib blocks as inner streams, for the chunks of a
// batch that hold them) and encoded with lz4 blocks that c-blosc reads. Chunks whose blocks use
// snappy decode on the CPU (copied to pinned memory and back; the log says so once), and options
// asking for another inner compressor than lz4 compress on the host.
#include "api/device_compression_backends.hpp"

#if defined(CUZARR_HAVE_CUDA)
#include <fmt/format.h>

#include <algorithm>

#include "api/device_backend_batches.hpp"
#include "api/host_compression_backend.hpp"
#include "codec/cuda/blosc_inner_streams.hpp"
#include "codec/cuda/blosc_kernels.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/log.hpp"

namespace cuzarr {
namespace {

gpu::BloscShuffle gpu_shuffle(BloscShuffle shuffle) {
  switch (shuffle) {
    case BloscShuffle::noshuffle:
      return gpu::BloscShuffle::none;
    case BloscShuffle::shuffle:
      return gpu::BloscShuffle::byte;
    case BloscShuffle::bitshuffle:
      return gpu::BloscShuffle::bit;
  }
  return gpu::BloscShuffle::byte;
}

// Decodes tasks[which] on the CPU: inputs copied to pinned memory, decoded there by c-blosc, the
// outputs copied back to the device.
void decode_on_host(std::span<const DecompressTask> tasks, const std::vector<size_t>& which,
                    const Stream& stream) {
  log_once("compressor-blosc-gpu-fallback",
           "cuzarr: blosc chunks with snappy blocks have no GPU decoder: the Compressor decodes "
           "them on the CPU");
  size_t in_bytes = 0, out_bytes = 0;
  for (size_t i : which) in_bytes += tasks[i].input.size(), out_bytes += tasks[i].output.size();
  Buffer staging = Buffer::allocate(in_bytes + out_bytes, MemoryKind::pinned, stream);
  std::vector<DecompressTask> host_tasks;
  size_t in_at = 0, out_at = in_bytes;
  for (size_t i : which) {
    const DecompressTask& task = tasks[i];
    copy_bytes(staging.data() + in_at, MemoryKind::pinned, task.input.data(), MemoryKind::device,
               task.input.size(), stream);
    host_tasks.push_back({std::span<const std::byte>(staging.data() + in_at, task.input.size()),
                          std::span<std::byte>(staging.data() + out_at, task.output.size()),
                          task.label});
    in_at += task.input.size();
    out_at += task.output.size();
  }
  stream.synchronize();
  host_blosc_backend().decompress(host_tasks, stream);
  for (size_t k = 0; k < which.size(); ++k) {
    const DecompressTask& task = tasks[which[k]];
    copy_bytes(task.output.data(), MemoryKind::device, host_tasks[k].output.data(),
               MemoryKind::pinned, task.output.size(), stream);
  }
  stream.synchronize();
}

class DeviceBloscBackend final : public CompressionBackend {
 public:
  CompressionAlgorithm algorithm() const noexcept override { return CompressionAlgorithm::blosc; }
  ExecutedOn executed_on() const noexcept override { return ExecutedOn::device; }
  MemoryKind data_kind() const noexcept override { return MemoryKind::device; }

  bool compresses_with(const CompressorOptions& options) const override {
    return options.blosc.cname == "lz4";
  }

  size_t max_compressed_size(size_t chunk_size) const override {
    return std::max(static_cast<size_t>(gpu::blosc_max_encoded_size(chunk_size)),
                    host_blosc_backend().max_compressed_size(chunk_size));
  }

  void compress(std::span<CompressTask> tasks, const CompressorOptions& options,
                const Stream& stream) const override {
    if (tasks.empty()) return;
    uint64_t max_input = 0;
    for (const CompressTask& task : tasks)
      max_input = std::max<uint64_t>(max_input, task.input.size());
    gpu::BloscEncodeParams params;
    params.clevel = options.effective_level();
    params.typesize = options.blosc.typesize;
    params.shuffle = gpu_shuffle(options.blosc.shuffle);
    gpu::DeviceBatchTables tables(device_chunks_of(tasks), stream);
    Buffer temp =
        gpu::device_scratch(gpu::blosc_encode_temp_bytes(tasks.size(), max_input), stream);
    gpu::blosc_encode_batch(tables.batch(), params, temp.data(), max_input, stream);
    tables.fetch_results();
    take_compressed_sizes(tables, tasks, "blosc");
  }

  void decompress(std::span<const DecompressTask> tasks, const Stream& stream) const override {
    if (tasks.empty()) return;
    uint64_t max_output = 0;
    for (const DecompressTask& task : tasks)
      max_output = std::max<uint64_t>(max_output, task.output.size());
    gpu::DeviceBatchTables tables(device_chunks_of(tasks), stream);
    Buffer temp =
        gpu::device_scratch(gpu::blosc_decode_temp_bytes(tasks.size(), max_output), stream);
    gpu::blosc_decode_batch(tables.batch(), temp.data(), max_output, stream);
    tables.fetch_results();
    const std::vector<size_t> unsupported =
        check_decoded(tables, tasks, "blosc", /*unsupported_ok=*/true);
    if (unsupported.empty()) return;
    // zstd / zlib blocks: a second pass over those chunks only (lz4 batches never wait for it).
    std::vector<DecompressTask> inner;
    for (size_t i : unsupported) inner.push_back(tasks[i]);
    gpu::DeviceBatchTables inner_tables(device_chunks_of(inner), stream);
    Buffer inner_temp = gpu::device_scratch(
        gpu::blosc_inner_streams_decode_temp_bytes(inner.size(), max_output), stream);
    gpu::blosc_inner_streams_decode_batch(inner_tables.batch(), inner_temp.data(), max_output,
                                          stream);
    inner_tables.fetch_results();
    std::vector<size_t> on_host;
    for (size_t k : check_decoded(inner_tables, inner, "blosc", /*unsupported_ok=*/true))
      on_host.push_back(unsupported[k]);
    if (!on_host.empty()) decode_on_host(tasks, on_host, stream);
  }

  // The stream size is the header's cbytes, read on the host.
  std::optional<size_t> find_stream_size(std::span<const std::byte> input,
                                         size_t decoded_size) const override {
    return host_blosc_backend().find_stream_size(input, decoded_size);
  }

  size_t decompress_prefix(std::span<const std::byte>, std::span<std::byte>,
                           const std::string& label) const override {
    throw UnsupportedError(fmt::format(
        "{}: blosc (GPU): stream ends are found from the header, not by decoding", label));
  }
};

}  // namespace

const CompressionBackend& device_blosc_backend() {
  static const DeviceBloscBackend backend;
  return backend;
}

}  // namespace cuzarr
#endif
