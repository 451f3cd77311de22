// Input families for the GPU codec tests (CPU-run format tests and GPU differential tests alike):
// incompressible random bytes, runs, smooth fields with noise (uint16 / float32), zeros, over
// sizes from 0 bytes to 16 MiB; text-like words; a delta-encoded float32 field and a uint32
// label volume (zstd matches that read earlier blocks).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codec/cuda/delta_format.hpp"

namespace cuzarr::test {

struct NamedInput {
  std::string name;
  std::vector<unsigned char> bytes;
};

inline std::vector<unsigned char> random_input(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(rng());
  return v;
}

/// Runs of random length (1..300) of random bytes, with a few random literals between them.
inline std::vector<unsigned char> runs_input(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  size_t i = 0;
  while (i < n) {
    const size_t run = 1 + rng() % 300;
    const auto value = static_cast<unsigned char>(rng() % 4);
    for (size_t k = 0; k < run && i < n; ++k) v[i++] = value;
    for (size_t k = rng() % 4; k > 0 && i < n; --k) v[i++] = static_cast<unsigned char>(rng());
  }
  return v;
}

/// A smooth 2-D field plus a little noise, as little-endian uint16 elements (n bytes, the last
/// odd byte, if any, random).
inline std::vector<unsigned char> smooth_uint16_input(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> v(n);
  const size_t count = n / 2;
  for (size_t i = 0; i < count; ++i) {
    const double x = static_cast<double>(i % 512), y = static_cast<double>(i / 512);
    const double value = 20000 + 8000 * std::sin(x / 40.0) * std::cos(y / 30.0) + (rng() % 16);
    const auto u = static_cast<uint16_t>(value);
    std::memcpy(v.data() + 2 * i, &u, 2);
  }
  if (n % 2) v[n - 1] = static_cast<unsigned char>(rng());
  return v;
}

/// A smooth field plus noise as little-endian float32 (trailing bytes random).
inline std::vector<unsigned char> smooth_float32_input(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  std::vector<unsigned char> v(n);
  const size_t count = n / 4;
  for (size_t i = 0; i < count; ++i) {
    const float x = static_cast<float>(i % 1024), y = static_cast<float>(i / 1024);
    const float value = 280.0f + 15.0f * std::sin(x / 50.0f) * std::cos(y / 70.0f) + noise(rng);
    std::memcpy(v.data() + 4 * i, &value, 4);
  }
  for (size_t k = count * 4; k < n; ++k) v[k] = static_cast<unsigned char>(rng());
  return v;
}

/// smooth_float32_input delta-encoded as numcodecs.delta stores it (differences of neighbours).
inline std::vector<unsigned char> delta_float32_input(size_t n, uint32_t seed) {
  const std::vector<unsigned char> field = smooth_float32_input(n, seed);
  std::vector<unsigned char> v(field);
  gpu::delta_encode_serial(field.data(), v.data(), n / 4, gpu::DeltaType::float32);
  return v;
}

/// A uint32 label volume (planes of 512 x 512): ids constant over blobs of 37 x 29 elements
/// (trailing bytes zero).
inline std::vector<unsigned char> label_volume_input(size_t n) {
  std::vector<unsigned char> v(n, 0);
  for (size_t i = 0; i < n / 4; ++i) {
    const size_t x = i % 512, y = (i / 512) % 512;
    const auto id = static_cast<uint32_t>((x / 37) * 131 + (y / 29) * 7919 + i / 262144);
    std::memcpy(v.data() + 4 * i, &id, 4);
  }
  return v;
}

/// Text-like bytes: words from a small vocabulary (Huffman-friendly literals, many long matches
/// at all distances).
inline std::vector<unsigned char> words_input(size_t n, uint32_t seed) {
  static const char* const kWords[] = {"zarr ",  "chunk ",   "array ", "shard ", "codec ",
                                       "blosc ", "deflate ", "gpu ",   "warp ",  "lane "};
  std::mt19937 rng(seed);
  std::vector<unsigned char> v;
  while (v.size() < n) {
    for (const char* c = kWords[rng() % 10]; *c != 0 && v.size() < n; ++c) v.push_back(*c);
  }
  return v;
}

/// Every family at every size of `sizes`.
inline std::vector<NamedInput> input_families(const std::vector<size_t>& sizes) {
  std::vector<NamedInput> out;
  uint32_t seed = 1;
  for (size_t n : sizes) {
    const std::string suffix = "/" + std::to_string(n);
    out.push_back({"random" + suffix, random_input(n, seed++)});
    out.push_back({"runs" + suffix, runs_input(n, seed++)});
    out.push_back({"smooth_uint16" + suffix, smooth_uint16_input(n, seed++)});
    out.push_back({"smooth_float32" + suffix, smooth_float32_input(n, seed++)});
    out.push_back({"zeros" + suffix, std::vector<unsigned char>(n, 0)});
  }
  return out;
}

/// Sizes for the format tests: edge cases around 8, 16, 128 and the powers of two, up to 1 MiB.
inline std::vector<size_t> small_sizes() {
  return {0,   1,   2,   3,   7,   8,   9,    12,   13,   15,    16,    17,     31,     64,
          100, 127, 128, 129, 255, 256, 1000, 4096, 4099, 65536, 65541, 200000, 1 << 20};
}

}  // namespace cuzarr::test
