// The warps' CRC-32 and Adler-32 in coalesced words (checksum_lanes.hpp, warp_checksums.cuh):
// the lanes run one after another, and the warp functions on emulated warps, against zlib's
// crc32 and adler32 for every size up to a few steps, every start alignment and large spans.
#include "warp_emulator.hpp"
// The emulator must come before the device headers.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <vector>

#include "codec/cuda/checksum_lanes.hpp"
#include "codec/cuda/warp_checksums.cuh"
#include "crc_test_tables.hpp"
#include "gpu_codec_inputs.hpp"

namespace cuzarr::gpu {
namespace {

using test::warp_emulation::kLanes;
using test::warp_emulation::run_warp;

const Crc32LaneTables& tables() { return test::crc32_lane_tables(); }

/// 8-aligned storage with the bytes of `data` starting `skew` bytes in.
struct Skewed {
  std::vector<uint64_t> words;
  const unsigned char* p;
  Skewed(const std::vector<unsigned char>& data, unsigned skew)
      : words(data.size() / 8 + 2), p(reinterpret_cast<unsigned char*>(words.data()) + skew) {
    std::copy(data.begin(), data.end(), reinterpret_cast<unsigned char*>(words.data()) + skew);
  }
};

uint32_t lanes_crc32(const unsigned char* p, uint64_t n) {
  const ChecksumSpan s = checksum_span(p, n);
  uint32_t steps = 0;
  for (unsigned lane = 0; lane < kChecksumLanes; ++lane)
    steps ^= crc32_lane_words(p, s, lane, tables());
  return crc32_finish(crc32_span_finish(steps, p, n, s, tables()), n);
}

uint32_t lanes_adler32(const unsigned char* p, uint64_t n) {
  const ChecksumSpan s = checksum_span(p, n);
  uint64_t a = 0, b = 0;
  for (unsigned lane = 0; lane < kChecksumLanes; ++lane) {
    const AdlerPiece part = adler32_lane_part(p, n, s, lane);
    a += part.s;
    b += part.t;
  }
  return adler32_finish(static_cast<uint32_t>(a % kAdlerModulus),
                        static_cast<uint32_t>(b % kAdlerModulus), n);
}

uint32_t zlib_crc32(const unsigned char* p, uint64_t n) {
  return static_cast<uint32_t>(::crc32_z(0, p, n));
}
uint32_t zlib_adler32(const unsigned char* p, uint64_t n) {
  return static_cast<uint32_t>(::adler32_z(1, p, n));
}

TEST(ChecksumLanes, TablesHoldTheirProducts) {
  const uint32_t factor = crc32_x_pow_8n(kChecksumStepBytes - kChecksumWordBytes);
  for (uint32_t r : {0u, 1u, 0x80000000u, 0xDEADBEEFu, 0xFFFFFFFFu, 0x01020304u}) {
    const uint32_t by_tables = tables().step[0][r & 0xFF] ^ tables().step[1][(r >> 8) & 0xFF] ^
                               tables().step[2][(r >> 16) & 0xFF] ^ tables().step[3][r >> 24];
    EXPECT_EQ(by_tables, crc32_multiply(r, factor)) << r;
    for (uint64_t n : {0ull, 1ull, 7ull, 248ull, 4096ull, 123456789ull, 1ull << 40})
      EXPECT_EQ(crc32_shift_by_powers(r, n, tables()), crc32_shift(r, n)) << r << " " << n;
  }
  for (unsigned lane = 0; lane < kChecksumLanes; ++lane)
    EXPECT_EQ(tables().lane_shift[lane], crc32_x_pow_8n(8 * (31 - lane)));
}

TEST(ChecksumLanes, EverySizeAndAlignmentEqualsZlib) {
  const auto data = test::random_input(3 * kChecksumStepBytes + 40, 11);
  for (unsigned skew = 0; skew < 8; ++skew) {
    const Skewed in(data, skew);
    for (uint64_t n = 0; n <= data.size(); ++n) {
      ASSERT_EQ(lanes_crc32(in.p, n), zlib_crc32(in.p, n)) << "skew " << skew << " n " << n;
      ASSERT_EQ(lanes_adler32(in.p, n), zlib_adler32(in.p, n)) << "skew " << skew << " n " << n;
    }
  }
}

TEST(ChecksumLanes, LargeSpansEqualZlib) {
  // All 0xFF bytes push the Adler sums to their largest; random bytes cover the rest.
  std::vector<std::vector<unsigned char>> inputs{test::random_input((5u << 20) + 77, 3),
                                                 std::vector<unsigned char>((3u << 20) + 5, 0xFF)};
  for (const auto& data : inputs) {
    for (unsigned skew : {0u, 3u}) {
      const Skewed in(data, skew);
      for (uint64_t n : {uint64_t{65536}, uint64_t{1} << 20, uint64_t{data.size()}}) {
        EXPECT_EQ(lanes_crc32(in.p, n), zlib_crc32(in.p, n)) << n;
        EXPECT_EQ(lanes_adler32(in.p, n), zlib_adler32(in.p, n)) << n;
      }
    }
  }
}

TEST(ChecksumLanes, WarpFunctionsGiveEveryLaneTheSpansSums) {
  const auto data = test::random_input(5000, 5);
  for (unsigned skew : {0u, 5u}) {
    const Skewed in(data, skew);
    for (uint64_t n : {uint64_t{0}, uint64_t{9}, uint64_t{300}, uint64_t{4999}}) {
      std::vector<uint32_t> crc(kLanes);
      std::vector<AdlerPiece> adler(kLanes);
      run_warp([&](unsigned lane) {
        crc[lane] = detail::warp_crc32_raw(in.p, n, tables(), lane);
        adler[lane] = detail::warp_adler32_piece(in.p, n, lane);
      });
      const AdlerPiece whole = adler32_piece(in.p, n);
      for (unsigned lane = 0; lane < kLanes; ++lane) {
        EXPECT_EQ(crc32_finish(crc[lane], n), zlib_crc32(in.p, n)) << n << " lane " << lane;
        EXPECT_EQ(adler[lane].s, whole.s) << n << " lane " << lane;
        EXPECT_EQ(adler[lane].t, whole.t) << n << " lane " << lane;
      }
    }
  }
}

}  // namespace
}  // namespace cuzarr::gpu
