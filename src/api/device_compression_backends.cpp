// The GPU backends of the Compressor, by algorithm: a CompressionBackend whose data_kind() is
// MemoryKind::device, over batched kernels. Automatic execution uses it for device data, and
// "device" execution throws for the algorithms that have none.
#include "api/device_compression_backends.hpp"

namespace cuzarr {

const CompressionBackend* device_compression_backend(CompressionAlgorithm algorithm) {
#if defined(CUZARR_HAVE_CUDA)
  switch (algorithm) {
    case CompressionAlgorithm::lz4:
      return &device_lz4_backend();
    case CompressionAlgorithm::blosc:
      // c-blosc is the CPU fallback of chunks the kernels do not decode.
      return compression_algorithm_available(algorithm) ? &device_blosc_backend() : nullptr;
    // Decode only (compression stays on the host).
    case CompressionAlgorithm::zstd:
      return &device_zstd_backend();
    case CompressionAlgorithm::deflate:
      return &device_deflate_backend();
    case CompressionAlgorithm::gzip:
      return &device_gzip_backend();
    case CompressionAlgorithm::zlib:
      return &device_zlib_backend();
    default:
      return nullptr;
  }
#else
  (void)algorithm;
  return nullptr;
#endif
}

}  // namespace cuzarr
