// The argument of every batched GPU codec kernel, in the style of nvCOMP's batched API: device
// arrays of pointers and sizes, one status per chunk, and the stream last. The arrays and the
// memory they point to are device memory; the kernels never read past input_sizes[i] nor write
// past output_capacities[i], whatever the input holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cuzarr/core/host_device.hpp"

namespace cuzarr::gpu {

/// What a batched GPU codec reports for one chunk (statuses[i]).
enum class DeviceChunkStatus : int32_t {
  ok = 0,
  corrupt_input = 1,      ///< malformed or truncated input
  output_too_small = 2,   ///< the decoded (or encoded) data does not fit output_capacities[i]
  unsupported = 3,        ///< valid input this kernel does not handle (e.g. a blosc codec)
  checksum_mismatch = 4,  ///< a stored checksum differs from the computed one
  size_mismatch = 5,      ///< decoded size differs from the size the caller expects
};

/// A short English description of a status, for error messages.
std::string_view device_chunk_status_message(DeviceChunkStatus status) noexcept;

/// `count` chunks; every pointer below is a device array of `count` entries.
struct DeviceChunkBatch {
  const std::byte* const* inputs = nullptr;  ///< device pointers to each chunk's input bytes
  const uint64_t* input_sizes = nullptr;
  std::byte* const* outputs = nullptr;  ///< device pointers to each chunk's output space
  const uint64_t* output_capacities = nullptr;
  uint64_t* output_sizes = nullptr;       ///< written: bytes produced per chunk
  DeviceChunkStatus* statuses = nullptr;  ///< written: one status per chunk
  size_t count = 0;
};

}  // namespace cuzarr::gpu
