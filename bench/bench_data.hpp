// The benchmarks' data, for CPU and GPU programs: smooth 2-D fields plus noise (uint16 or float32),
// a quantized uint16 field, a uint32 label volume, a delta-encoded float32 field, and zlib's
// deflate streams of them.
#pragma once

#include <zlib.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "codec/cuda/delta_format.hpp"

namespace cuzarr::bench {

/// A smooth 2-D field (rows of 2048 elements) plus noise: `bytes` bytes of uint16 or float32.
inline std::vector<unsigned char> make_field(size_t bytes, bool is_float, uint32_t seed) {
  std::vector<unsigned char> v(bytes);
  std::mt19937 rng(seed);
  if (is_float) {
    std::normal_distribution<float> noise(0.0f, 0.01f);
    for (size_t i = 0; i < bytes / 4; ++i) {
      const float x = static_cast<float>(i % 2048), y = static_cast<float>(i / 2048);
      const float value = 280.0f + 15.0f * std::sin(x / 60.0f) * std::cos(y / 80.0f) + noise(rng);
      std::memcpy(v.data() + 4 * i, &value, 4);
    }
  } else {
    for (size_t i = 0; i < bytes / 2; ++i) {
      const double x = static_cast<double>(i % 2048), y = static_cast<double>(i / 2048);
      const auto value = static_cast<uint16_t>(
          20000 + 8000 * std::sin(x / 60.0) * std::cos(y / 80.0) + static_cast<double>(rng() % 8));
      std::memcpy(v.data() + 2 * i, &value, 2);
    }
  }
  return v;
}

/// `bytes` of a uint16 field that compresses about 2.2x with liblz4 (the LZ4 target's "ratio >= 2"
/// data): the smooth field of make_field quantized to steps of 32, with one sample in five off by
/// 0 to 3, like quantized measurements or label volumes.
inline std::vector<unsigned char> make_quantized_field(size_t bytes, uint32_t seed) {
  std::vector<unsigned char> v(bytes);
  std::mt19937 rng(seed);
  for (size_t i = 0; i < bytes / 2; ++i) {
    const double x = static_cast<double>(i % 2048), y = static_cast<double>(i / 2048);
    const double smooth = 20000 + 8000 * std::sin(x / 60.0) * std::cos(y / 80.0);
    const uint32_t jitter = rng() % 100 < 20 ? rng() % 4 : 0;
    const auto value = static_cast<uint16_t>(std::lround(smooth / 32) * 32 + jitter);
    std::memcpy(v.data() + 2 * i, &value, 2);
  }
  return v;
}

/// `bytes` of a uint32 label volume (planes of 512 x 512): ids constant over blobs of 37 x 29
/// elements, a new set of ids in every plane.
inline std::vector<unsigned char> make_label_volume(size_t bytes) {
  std::vector<unsigned char> v(bytes);
  for (size_t i = 0; i < bytes / 4; ++i) {
    const size_t x = i % 512, y = (i / 512) % 512;
    const auto id = static_cast<uint32_t>((x / 37) * 131 + (y / 29) * 7919 + (i / 262144));
    std::memcpy(v.data() + 4 * i, &id, 4);
  }
  return v;
}

/// The float32 field of make_field delta-encoded as numcodecs.delta stores it (little-endian
/// differences of neighbours: runs of small, repeated byte patterns).
inline std::vector<unsigned char> make_delta_field(size_t bytes, uint32_t seed) {
  const std::vector<unsigned char> field = make_field(bytes, true, seed);
  std::vector<unsigned char> v(bytes);
  cuzarr::gpu::delta_encode_serial(field.data(), v.data(), bytes / 4,
                                   cuzarr::gpu::DeltaType::float32);
  return v;
}

/// zlib window bits for a gzip member (raw deflate: -15).
inline constexpr int kGzipWindowBits = 31;

/// A deflate stream of `in` at `level` written by zlib: raw (window bits -15) or gzip (31).
inline std::vector<unsigned char> zlib_compress(const unsigned char* in, size_t n, int level,
                                                int window_bits) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::exit(2);
  std::vector<unsigned char> out(deflateBound(&z, n) + 64);
  z.next_in = const_cast<Bytef*>(in);
  z.avail_in = static_cast<uInt>(n);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::exit(2);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace cuzarr::bench
