// Where the Compressor's chunk data lives while a backend works on it, and how the framing steps
// around the backend (checksums, gathering streams, writing headers, delivering the output) run
// there: on the host (CPU backends: parallel loops over host or pinned memory) or on the device
// (GPU backends: batched kernels over device memory, with only headers and tables on the host).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "api/compression_backend.hpp"
#include "cuzarr/memory/buffer.hpp"
#include "cuzarr/memory/stream.hpp"

namespace cuzarr {

/// One copy of `size` bytes, both sides in the plane's memory.
struct ByteCopy {
  const std::byte* source = nullptr;
  std::byte* destination = nullptr;
  size_t size = 0;
};

class CompressionDataPlane {
 public:
  virtual ~CompressionDataPlane() = default;

  /// Host planes hold host-accessible (host or pinned) memory, device planes device memory.
  virtual bool on_device() const noexcept = 0;

  /// `input` in this plane's memory: itself when it is there already, else `copy_in_plane` when
  /// that is a copy there (not empty), else a new copy (waited for). `copied` says whether the
  /// result is a copy.
  virtual Buffer resident(const Buffer& input, const Buffer& copy_in_plane, const Stream& stream,
                          bool& copied) const = 0;
  /// Uninitialised memory of this plane (pinned when a host plane's result goes to the device).
  virtual Buffer allocate(size_t size, MemoryKind final_kind, const Stream& stream) const = 0;

  /// The CRC-32C of every span (spans into this plane's memory).
  virtual std::vector<uint32_t> crc32c(std::span<const std::span<const std::byte>> chunks,
                                       const Stream& stream) const = 0;
  /// Runs every copy (in parallel); they must not overlap.
  virtual void copy(std::span<const ByteCopy> copies, const Stream& stream) const = 0;
  /// Writes `host_bytes` (host memory) at `destination` (this plane's memory).
  virtual void put(std::byte* destination, std::span<const std::byte> host_bytes,
                   const Stream& stream) const = 0;
  /// `assembled` (this plane's memory) as a buffer of `final_kind`, copied when it differs (the
  /// copy is waited for).
  virtual Buffer deliver(const Buffer& assembled, MemoryKind final_kind,
                         const Stream& stream) const = 0;
};

/// The plane of the backend's data_kind(): host for CPU backends, device for GPU backends.
const CompressionDataPlane& data_plane_of(const CompressionBackend& backend);

/// The bytes of `buffer` as a span, also for device memory (a pointer and a size for device
/// code; never read on the host).
std::span<const std::byte> plane_bytes(const Buffer& buffer) noexcept;
std::span<std::byte> plane_bytes(Buffer& buffer) noexcept;

}  // namespace cuzarr
