// Test helper: raw LZ4 blocks made by liblz4 (the reference encoder the LZ4 decoders are checked
// against).
#pragma once

#include <gtest/gtest.h>
#include <lz4.h>
#include <lz4hc.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "codec/cuda/little_endian.hpp"

namespace cuzarr::test {

/// `in` as one raw LZ4 block: LZ4_compress_fast with `acceleration` (1: LZ4_compress_default),
/// or LZ4_compress_HC when hc_level > 0.
inline std::vector<unsigned char> liblz4_compress(const std::vector<unsigned char>& in,
                                                  int acceleration = 1, int hc_level = 0) {
  std::vector<unsigned char> out(
      static_cast<size_t>(LZ4_compressBound(static_cast<int>(in.size()))));
  static const char kEmpty = 0;  // liblz4 wants a non-null source even for 0 bytes
  const auto* src = in.empty() ? &kEmpty : reinterpret_cast<const char*>(in.data());
  auto* dst = reinterpret_cast<char*>(out.data());
  const int n = hc_level > 0 ? LZ4_compress_HC(src, dst, static_cast<int>(in.size()),
                                               static_cast<int>(out.size()), hc_level)
                             : LZ4_compress_fast(src, dst, static_cast<int>(in.size()),
                                                 static_cast<int>(out.size()), acceleration);
  EXPECT_GT(n, 0);
  out.resize(static_cast<size_t>(n));
  return out;
}

/// numcodecs.lz4's framing of `block`, the LZ4 block of `decoded`: its 4-byte little-endian size
/// first.
inline std::vector<unsigned char> numcodecs_frame(const std::vector<unsigned char>& decoded,
                                                  const std::vector<unsigned char>& block) {
  std::vector<unsigned char> framed(4 + block.size());
  gpu::store_le32(framed.data(), static_cast<uint32_t>(decoded.size()));
  std::copy(block.begin(), block.end(), framed.begin() + 4);
  return framed;
}

}  // namespace cuzarr::test
