// Compressible "realistic" inputs for the large-block LZ4 tests: a smooth float32 field with
// noise whose low mantissa bits are cleared (as lossy quantization before compression does), so
// LZ4 finds matches and reaches ratios from about 2 (few bits cleared) to 20 (many); and the
// quantized uint16 field of the LZ4 benchmarks (bench/bench_data.hpp, make_quantized_field).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "bench_data.hpp"

namespace cuzarr::test {

/// n bytes of little-endian float32 (trailing bytes zero), `cleared_bits` low mantissa bits 0.
inline std::vector<unsigned char> quantized_float32_input(size_t n, unsigned cleared_bits,
                                                          uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  std::vector<unsigned char> v(n, 0);
  const uint32_t mask = ~((uint32_t{1} << cleared_bits) - 1);
  for (size_t i = 0; i < n / 4; ++i) {
    const float x = static_cast<float>(i % 1024), y = static_cast<float>(i / 1024);
    const float value = 280.0f + 15.0f * std::sin(x / 50.0f) * std::cos(y / 70.0f) + noise(rng);
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    bits &= mask;
    std::memcpy(v.data() + 4 * i, &bits, 4);
  }
  return v;
}

/// `bytes` of a smooth uint16 field rounded to multiples of 32 with sparse jitter, liblz4 ratio
/// about 2.2: the benchmarks' field itself.
inline std::vector<unsigned char> quantized_uint16_input(size_t bytes, uint32_t seed) {
  return bench::make_quantized_field(bytes, seed);
}

}  // namespace cuzarr::test
