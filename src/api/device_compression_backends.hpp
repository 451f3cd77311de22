// The GPU backends of the Compressor (CUDA builds only), one file each.
#pragma once

#include "api/compression_backend.hpp"

namespace cuzarr {

#if defined(CUZARR_HAVE_CUDA)
const CompressionBackend& device_lz4_backend();
const CompressionBackend& device_blosc_backend();
/// Decode-only: zstd, and deflate / gzip / zlib (device_deflate_backends.cpp).
const CompressionBackend& device_zstd_backend();
const CompressionBackend& device_deflate_backend();
const CompressionBackend& device_gzip_backend();
const CompressionBackend& device_zlib_backend();
#endif

}  // namespace cuzarr
