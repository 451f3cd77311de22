// How the GPU integer delta decode splits a chunk among thread blocks (delta_scan_parts.hpp), and
// the reduce-then-scan over those ranges modelled on the CPU against the serial decoder.
#include "codec/cuda/delta_scan_parts.hpp"

#include <gtest/gtest.h>

#include <cstring>
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
template <class T>
void check_reduce_then_scan(const std::vector<unsigned char>& bytes, gpu::DeltaType type) {
  const uint64_t n = bytes.size() / sizeof(T);
  std::vector<T> in(n), out(n);
  if (n > 0) std::memcpy(in.data(), bytes.data(), n * sizeof(T));
  for (uint32_t parts : {1u, 5u, 256u}) {
    std::vector<T> partials(parts, 0);
    for (uint32_t p = 0; p < parts; ++p) {
      const auto r = gpu::delta_scan_range(n, parts, p, 32 / sizeof(T));
      for (uint64_t k = r.begin; k < r.end; ++k) partials[p] = gpu::delta_add(partials[p], in[k]);
    }
    for (uint32_t p = 0; p < parts; ++p) {
      T carry = 0;
      for (uint32_t q = 0; q < p; ++q) carry = gpu::delta_add(carry, partials[q]);
      const auto r = gpu::delta_scan_range(n, parts, p, 32 / sizeof(T));
      for (uint64_t k = r.begin; k < r.end; ++k) out[k] = carry = gpu::delta_add(carry, in[k]);
    }
    std::vector<unsigned char> expected(n * sizeof(T)), got(n * sizeof(T));
    gpu::delta_decode_serial(bytes.data(), expected.data(), n, type);
    if (n > 0) std::memcpy(got.data(), out.data(), n * sizeof(T));
    ASSERT_EQ(got, expected) << "parts " << parts << " n " << n;
  }
}

TEST(DeltaScanParts, ReduceThenScanMatchesTheSerialDecode) {
  for (size_t size : {size_t{0}, size_t{8}, size_t{1000}, size_t{65536}, size_t{1} << 20}) {
    const auto bytes = test::random_input(size, static_cast<uint32_t>(size));
    check_reduce_then_scan<uint8_t>(bytes, gpu::DeltaType::int8);
    check_reduce_then_scan<uint16_t>(bytes, gpu::DeltaType::uint16);
    check_reduce_then_scan<uint32_t>(bytes, gpu::DeltaType::int32);
    check_reduce_then_scan<uint64_t>(bytes, gpu::DeltaType::uint64);
  }
}

}  // namespace
}  // namespace cuzarr
