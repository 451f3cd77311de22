#include "api/compression_data_plane.hpp"

#include <cstring>

#include "api/compressor_memory.hpp"
#include "cuzarr/codec/crc32c.hpp"
#include "cuzarr/core/error.hpp"
#include "cuzarr/core/parallel.hpp"

#if defined(CUZARR_HAVE_CUDA)
#include <fmt/format.h>

#include "codec/cuda/copy_kernels.hpp"
#include "codec/cuda/crc32c_kernels.hpp"
#include "codec/cuda/device_batch_tables.hpp"
#endif

namespace cuzarr {
namespace {

class HostDataPlane final : public CompressionDataPlane {
 public:
  bool on_device() const noexcept override { return false; }

  Buffer resident(const Buffer& input, const Buffer& copy_in_plane, const Stream& stream,
                  bool& copied) const override {
    copied = !is_host_accessible(input.kind());
    if (!copied) return input;
    if (!copy_in_plane.empty() || input.empty()) return copy_in_plane;
    Buffer result = input.copy_to(MemoryKind::pinned, stream);
    stream.synchronize();
    return result;
  }

  Buffer allocate(size_t size, MemoryKind final_kind, const Stream&) const override {
    return allocate_assembly_buffer(size, final_kind);
  }

  std::vector<uint32_t> crc32c(std::span<const std::span<const std::byte>> chunks,
                               const Stream&) const override {
    std::vector<uint32_t> crcs(chunks.size());
    parallel_for(chunks.size(), [&](size_t i) { crcs[i] = cuzarr::crc32c(chunks[i]); });
    return crcs;
  }

  void copy(std::span<const ByteCopy> copies, const Stream&) const override {
    parallel_for(copies.size(), [&](size_t i) {
      if (copies[i].size > 0) std::memcpy(copies[i].destination, copies[i].source, copies[i].size);
    });
  }

  void put(std::byte* destination, std::span<const std::byte> host_bytes,
           const Stream&) const override {
    if (!host_bytes.empty()) std::memcpy(destination, host_bytes.data(), host_bytes.size());
  }

  Buffer deliver(const Buffer& assembled, MemoryKind final_kind,
                 const Stream& stream) const override {
    return deliver_output(assembled, final_kind, stream);
  }
};

#if defined(CUZARR_HAVE_CUDA)
class DeviceDataPlane final : public CompressionDataPlane {
 public:
  bool on_device() const noexcept override { return true; }

  Buffer resident(const Buffer& input, const Buffer&, const Stream& stream,
                  bool& copied) const override {
    copied = input.kind() != MemoryKind::device;
    if (!copied) return input;
    Buffer result = input.copy_to(MemoryKind::device, stream);
    stream.synchronize();
    return result;
  }

  Buffer allocate(size_t size, MemoryKind, const Stream& stream) const override {
    return Buffer::allocate(size, MemoryKind::device, stream);
  }

  std::vector<uint32_t> crc32c(std::span<const std::span<const std::byte>> chunks,
                               const Stream& stream) const override {
    std::vector<uint32_t> crcs(chunks.size());
    if (chunks.empty()) return crcs;
    std::vector<gpu::DeviceChunkRef> refs(chunks.size());
    for (size_t i = 0; i < chunks.size(); ++i) refs[i] = {chunks[i].data(), chunks[i].size()};
    const gpu::DeviceBatchTables tables(refs, stream);
    Buffer device_crcs =
        Buffer::allocate(crcs.size() * sizeof(uint32_t), MemoryKind::device, stream);
    gpu::crc32c_batch(tables.batch().inputs, tables.batch().input_sizes, chunks.size(),
                      reinterpret_cast<uint32_t*>(device_crcs.data()), stream);
    copy_bytes(crcs.data(), MemoryKind::host, device_crcs.data(), MemoryKind::device,
               crcs.size() * sizeof(uint32_t), stream);
    stream.synchronize();
    return crcs;
  }

  void copy(std::span<const ByteCopy> copies, const Stream& stream) const override {
    if (copies.empty()) return;
    std::vector<gpu::DeviceChunkRef> refs(copies.size());
    for (size_t i = 0; i < copies.size(); ++i)
      refs[i] = {copies[i].source, copies[i].size, copies[i].destination, copies[i].size};
    gpu::DeviceBatchTables tables(refs, stream);
    gpu::copy_batch(tables.batch(), stream);
    tables.fetch_results();
    for (size_t i = 0; i < copies.size(); ++i)
      if (tables.status(i) != gpu::DeviceChunkStatus::ok)
        throw CudaError(fmt::format("compressor: device copy {} of {} bytes failed: {}", i,
                                    copies[i].size,
                                    gpu::device_chunk_status_message(tables.status(i))));
  }

  void put(std::byte* destination, std::span<const std::byte> host_bytes,
           const Stream& stream) const override {
    if (host_bytes.empty()) return;
    copy_bytes(destination, MemoryKind::device, host_bytes.data(), MemoryKind::host,
               host_bytes.size(), stream);
    stream.synchronize();
  }

  Buffer deliver(const Buffer& assembled, MemoryKind final_kind,
                 const Stream& stream) const override {
    if (final_kind == MemoryKind::device) return assembled;
    Buffer result = assembled.copy_to(final_kind, stream);
    stream.synchronize();
    return result;
  }
};
#endif

}  // namespace

const CompressionDataPlane& data_plane_of(const CompressionBackend& backend) {
  static const HostDataPlane host;
#if defined(CUZARR_HAVE_CUDA)
  static const DeviceDataPlane device;
  if (backend.data_kind() == MemoryKind::device) return device;
#else
  if (backend.data_kind() == MemoryKind::device)
    throw UnsupportedError("compressor: a device backend in a build without CUDA");
#endif
  return host;
}

std::span<const std::byte> plane_bytes(const Buffer& buffer) noexcept {
  return {buffer.data(), buffer.size()};
}

std::span<std::byte> plane_bytes(Buffer& buffer) noexcept { return {buffer.data(), buffer.size()}; }

}  // namespace cuzarr
