// Compressible "realistic" inputs for the LZ4 block-parallel tests: a smooth float32 field with
// noise whose low mantissa bits are cleared (as lossy quantization before compression does), so
// LZ4 finds matches and reaches ratios from about 2 (few bits cleared) to 20 (many).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

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

}  // namespace cuzarr::test
