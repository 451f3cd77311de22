// Test helper: zstd frames written by libzstd with explicit frame parameters, for the tests of
// the GPU zstd decoder's format logic.
#pragma once

#include <gtest/gtest.h>
#include <zstd.h>

#include <vector>

namespace cuzarr::test {

/// libzstd frame parameters.
struct ZstdFrameParams {
  int level = 3;
  bool checksum = false;
  bool content_size = true;
  int window_log = 0;  // 0: libzstd's choice
};

/// One frame of `in` written by libzstd with `p` (empty, and a test failure, on error).
inline std::vector<unsigned char> zstd_compress(const std::vector<unsigned char>& in,
                                                const ZstdFrameParams& p) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  EXPECT_NE(cctx, nullptr);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, p.level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, p.checksum ? 1 : 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, p.content_size ? 1 : 0);
  if (p.window_log > 0) ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, p.window_log);
  std::vector<unsigned char> out(ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size());
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

}  // namespace cuzarr::test
