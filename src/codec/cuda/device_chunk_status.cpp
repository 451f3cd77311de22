#include "codec/cuda/device_chunk_batch.hpp"

namespace cuzarr::gpu {

std::string_view device_chunk_status_message(DeviceChunkStatus status) noexcept {
  switch (status) {
    case DeviceChunkStatus::ok:
      return "ok";
    case DeviceChunkStatus::corrupt_input:
      return "malformed or truncated input";
    case DeviceChunkStatus::output_too_small:
      return "the output does not fit the space given for it";
    case DeviceChunkStatus::unsupported:
      return "valid input that the GPU codec does not handle (decode it on the CPU)";
    case DeviceChunkStatus::checksum_mismatch:
      return "the stored checksum differs from the computed one";
    case DeviceChunkStatus::size_mismatch:
      return "the decoded size differs from the expected size";
  }
  return "unknown status";
}

}  // namespace cuzarr::gpu
