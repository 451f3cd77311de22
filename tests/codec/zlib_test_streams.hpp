// zlib's own output for the deflate decoder tests (CPU and GPU): a chunk deflated in one call,
// raw or in a zlib or gzip wrapper.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <vector>

#include "codec/cuda/zlib_gzip_wrappers.hpp"

namespace cuzarr::test {

/// zlib's windowBits for raw deflate, a zlib stream and a gzip member (32 KiB windows).
inline constexpr int kRawBits = -15, kZlibBits = 15, kGzipBits = 31;

inline int window_bits_of(gpu::DeflateWrapper w) {
  return w == gpu::DeflateWrapper::raw    ? kRawBits
         : w == gpu::DeflateWrapper::zlib ? kZlibBits
                                          : kGzipBits;
}

/// zlib's deflate of `in` in one call; `header`: the fields of a gzip member's header (window
/// bits 31 only).
inline std::vector<unsigned char> zlib_compress(const std::vector<unsigned char>& in, int level,
                                                int window_bits, int strategy = Z_DEFAULT_STRATEGY,
                                                int mem_level = 8, gz_header* header = nullptr) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, level, Z_DEFLATED, window_bits, mem_level, strategy), Z_OK);
  if (header != nullptr) {
    EXPECT_EQ(deflateSetHeader(&z, header), Z_OK);
  }
  std::vector<unsigned char> out(deflateBound(&z, in.size()) + 64);
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

/// zlib's deflate of `in` in wrapper `w`.
inline std::vector<unsigned char> zlib_compress(const std::vector<unsigned char>& in, int level,
                                                gpu::DeflateWrapper w,
                                                int strategy = Z_DEFAULT_STRATEGY) {
  return zlib_compress(in, level, window_bits_of(w), strategy);
}

}  // namespace cuzarr::test
