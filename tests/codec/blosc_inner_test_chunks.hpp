// c-blosc chunks with zstd and zlib blocks for the inner-stream tests (CPU and GPU): chunks made
// by c-blosc's own compressor in every layout (shuffle kinds, type sizes, forced block sizes,
// split or not), and the inner stream decoders of the serial reference (libzstd, zlib), which
// decode into exactly the stream's size as c-blosc does.
#pragma once

#include <blosc.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <cstddef>
#include <string>
#include <vector>

#include "codec/cuda/blosc_inner_jobs.hpp"

namespace cuzarr::test {

/// One c-blosc chunk and what it decodes to.
struct BloscInnerChunk {
  std::string name;
  std::vector<unsigned char> chunk;
  std::vector<unsigned char> decoded;
};

/// c-blosc's split mode for the scope of the object (c-blosc keeps it process-wide; zstd and
/// zlib blocks are split only in BLOSC_ALWAYS_SPLIT mode).
class BloscSplitMode {
 public:
  explicit BloscSplitMode(int mode) { blosc_set_splitmode(mode); }
  ~BloscSplitMode() { blosc_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT); }
  BloscSplitMode(const BloscSplitMode&) = delete;
  BloscSplitMode& operator=(const BloscSplitMode&) = delete;
};

/// blosc_compress_ctx of `in` (compressor "zstd" or "zlib", shuffle BLOSC_NOSHUFFLE /
/// BLOSC_SHUFFLE / BLOSC_BITSHUFFLE, blocksize 0: c-blosc's choice).
inline std::vector<unsigned char> blosc_inner_compress(const std::vector<unsigned char>& in,
                                                       const char* compressor, int clevel,
                                                       int shuffle, size_t typesize,
                                                       size_t blocksize) {
  std::vector<unsigned char> out(in.size() + BLOSC_MAX_OVERHEAD);
  const int n = blosc_compress_ctx(clevel, shuffle, typesize, in.size(), in.data(), out.data(),
                                   out.size(), compressor, blocksize, 1);
  EXPECT_GT(n, 0) << compressor;
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

/// Decodes one inner stream as c-blosc does (ZSTD_decompress / uncompress into exactly `size`).
inline gpu::DecodeResult blosc_inner_decode_stream(gpu::BloscCompressor compressor,
                                                   const unsigned char* in, uint64_t in_size,
                                                   unsigned char* out, uint64_t size) {
  if (compressor == gpu::BloscCompressor::zstd) {
    const size_t n = ZSTD_decompress(out, size, in, in_size);
    if (ZSTD_isError(n)) return {gpu::DeviceChunkStatus::corrupt_input, 0};
    return {gpu::DeviceChunkStatus::ok, n};
  }
  uLongf n = static_cast<uLongf>(size);
  const int rc = uncompress(out, &n, in, static_cast<uLong>(in_size));
  if (rc != Z_OK) return {gpu::DeviceChunkStatus::corrupt_input, 0};
  return {gpu::DeviceChunkStatus::ok, n};
}

/// The serial reference decode of `chunk` into `capacity` bytes (exactly-sized buffers).
struct BloscInnerDecoded {
  gpu::DeviceChunkStatus status;
  std::vector<unsigned char> bytes;
};
inline BloscInnerDecoded blosc_inner_decode(const std::vector<unsigned char>& chunk,
                                            uint64_t capacity) {
  std::vector<unsigned char> in(chunk), out(capacity), tmp(capacity);
  uint64_t produced = 0;
  const auto status = gpu::blosc_inner_decode_serial(
      in.data(), in.size(), out.data(), capacity, tmp.data(), produced, blosc_inner_decode_stream);
  out.resize(produced);
  return {status, out};
}

}  // namespace cuzarr::test
