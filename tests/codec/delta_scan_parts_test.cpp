// How the GPU delta decode splits a chunk among thread blocks (delta_scan_parts.hpp), and the
// single-pass scan with decoupled look-back over those ranges modelled on the CPU against the
// serial decoder.
#include "codec/cuda/delta_scan_parts.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "codec/cuda/delta_format.hpp"
#include "gpu_codec_inputs.hpp"

namespace cuzarr {
namespace {

TEST(DeltaScanParts, RangesAreConsecutiveAlignedAndCoverTheChunk) {
  for (uint64_t n : {uint64_t{0}, uint64_t{1}, uint64_t{31}, uint64_t{32}, uint64_t{33},
                     uint64_t{1000}, uint64_t{65536}, uint64_t{1} << 22, (uint64_t{1} << 22) + 5}) {
    for (uint32_t parts : {1u, 2u, 3u, 7u, 64u, 256u}) {
      for (uint32_t granule : {2u, 4u, 8u, 16u, 32u}) {
        uint64_t next = 0;
        for (uint32_t p = 0; p < parts; ++p) {
          const auto r = gpu::delta_scan_range(n, parts, p, granule);
          ASSERT_EQ(r.begin, next) << n << " " << parts << " " << p;
          ASSERT_LE(r.begin, r.end);
          ASSERT_LE(r.end, n);
          if (r.begin < n) {
            EXPECT_EQ(r.begin % granule, 0u);
          }
          next = r.end;
        }
        EXPECT_EQ(next, n) << n << " " << parts << " " << granule;
      }
    }
  }
}

// Each range scanned from the wrap-around sum of the ranges before it gives the serial result.
// A CPU model of the kernel's single-pass scan with decoupled look-back (delta_kernels.cu): each
// range publishes its aggregate, then walks back over the ranges before it in windows of 32,
// adding aggregates up to the nearest range whose inclusive prefix is published. Which earlier
// ranges have published their inclusive prefix depends on timing, so the model draws it at
// random (part 0 always has); every draw must give the serial decode's bits.
template <class T>
void check_look_back(const std::vector<unsigned char>& bytes, gpu::DeltaType type, uint32_t seed) {
  const uint64_t n = bytes.size() / sizeof(T);
  std::vector<T> in(n), out(n);
  if (n > 0) std::memcpy(in.data(), bytes.data(), n * sizeof(T));
  std::mt19937 random(seed);
  for (uint32_t parts : {1u, 5u, 33u, 256u}) {
    std::vector<T> aggregate(parts, 0), inclusive(parts, 0);
    std::vector<bool> has_inclusive(parts, false);
    for (uint32_t p = 0; p < parts; ++p) {
      const auto r = gpu::delta_scan_range(n, parts, p, 32 / sizeof(T));
      for (uint64_t k = r.begin; k < r.end; ++k) aggregate[p] = gpu::delta_add(aggregate[p], in[k]);
    }
    for (uint32_t p = 0; p < parts; ++p) {
      // The states this range sees: each earlier inclusive prefix published or not yet.
      std::vector<bool> seen(p);
      for (uint32_t q = 0; q < p; ++q) seen[q] = has_inclusive[q] && (q == 0 || random() % 2 == 0);
      T before = 0;
      for (uint32_t back = 1; back <= p; back += 32) {
        uint32_t nearest = 32;  // the first window lane that sees an inclusive prefix
        for (uint32_t lane = 0; lane < 32 && back + lane <= p; ++lane) {
          if (seen[p - back - lane]) {
            nearest = lane;
            break;
          }
        }
        for (uint32_t lane = 0; lane < 32 && lane <= nearest && back + lane <= p; ++lane) {
          const uint32_t q = p - back - lane;
          before = gpu::delta_add(before, seen[q] ? inclusive[q] : aggregate[q]);
        }
        if (nearest < 32) break;
      }
      inclusive[p] = gpu::delta_add(before, aggregate[p]);
      has_inclusive[p] = true;
      const auto r = gpu::delta_scan_range(n, parts, p, 32 / sizeof(T));
      T carry = before;
      for (uint64_t k = r.begin; k < r.end; ++k) out[k] = carry = gpu::delta_add(carry, in[k]);
    }
    std::vector<unsigned char> expected(n * sizeof(T)), got(n * sizeof(T));
    gpu::delta_decode_serial(bytes.data(), expected.data(), n, type);
    if (n > 0) std::memcpy(got.data(), out.data(), n * sizeof(T));
    ASSERT_EQ(got, expected) << "parts " << parts << " n " << n;
  }
}

TEST(DeltaScanParts, LookBackMatchesTheSerialDecode) {
  for (size_t size : {size_t{0}, size_t{8}, size_t{1000}, size_t{65536}, size_t{1} << 20}) {
    const auto bytes = test::random_input(size, static_cast<uint32_t>(size));
    const auto seed = static_cast<uint32_t>(size + 1);
    check_look_back<uint8_t>(bytes, gpu::DeltaType::int8, seed);
    check_look_back<uint16_t>(bytes, gpu::DeltaType::uint16, seed);
    check_look_back<uint32_t>(bytes, gpu::DeltaType::int32, seed);
    check_look_back<uint64_t>(bytes, gpu::DeltaType::uint64, seed);
  }
}

}  // namespace
}  // namespace cuzarr
