// The GPU's warp-cooperative deflate decoder (inflate_warp_decode.cuh: lane 0 decodes batches of
// steps, the warp writes them in groups with waves of matches; checksums in coalesced words) run
// on the CPU with emulated warps: the kernel's own code, byte-exact against zlib on its output for
// every wrapper, and on damaged streams the serial decoder's status and size, with nothing written
// past the capacity.
#include "warp_emulator.hpp"
// The emulator must come before the device headers.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/cuda/crc32_table.hpp"
#include "codec/cuda/inflate_warp_decode.cuh"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "crc_test_tables.hpp"
#include "deflate_hand_made.hpp"
#include "gpu_codec_inputs.hpp"
#include "guarded_output.hpp"
#include "zlib_test_streams.hpp"

namespace cuzarr::gpu {
namespace {

using Bytes = std::vector<unsigned char>;
using test::warp_emulation::kLanes;
using test::warp_emulation::run_warp;

using test::expect_guard_intact;
using test::kGuard;
using test::kGuardByte;
using test::words_input;

const uint32_t (*crc_table())[256] { return test::crc32_lane_tables().slice.table; }

using test::zlib_compress;

struct WarpInflate {
  InflateResult result;
  Bytes out;  // capacity + kGuard bytes
};

/// The chunk decoded by an emulated warp (every lane must return the same result).
WarpInflate warp_inflate(const Bytes& in, uint64_t capacity, DeflateWrapper w, bool verify) {
  WarpInflate d;
  d.out.assign(capacity + kGuard, kGuardByte);
  auto shared = std::make_unique<detail::InflateWarpShared>();
  std::vector<uint64_t> matches(detail::kInflateRoundMatches);
  std::vector<InflateResult> per_lane(kLanes);
  run_warp([&](unsigned lane) {
    detail::WarpInflateEngine engine{shared.get(), &test::crc32_lane_tables(), matches.data(),
                                     lane};
    per_lane[lane] =
        inflate_wrapped(in.data(), in.size(), d.out.data(), capacity, w, verify, engine);
  });
  for (unsigned lane = 1; lane < kLanes; ++lane) {
    EXPECT_EQ(per_lane[lane].status, per_lane[0].status) << "lane " << lane;
    EXPECT_EQ(per_lane[lane].size, per_lane[0].size) << "lane " << lane;
    EXPECT_EQ(per_lane[lane].consumed, per_lane[0].consumed) << "lane " << lane;
  }
  d.result = per_lane[0];
  return d;
}

InflateResult serial_inflate(const Bytes& in, uint64_t capacity, DeflateWrapper w, bool verify) {
  Bytes out(capacity);
  auto ws = std::make_unique<InflateWorkspace>();
  return inflate_serial(in.data(), in.size(), out.data(), capacity, w, verify, *ws, crc_table());
}

TEST(InflateWarpDecode, MatchesZlibForEveryWrapperLevelAndFamily) {
  std::vector<test::NamedInput> inputs = test::input_families({0, 1, 100, 4099, 40000});
  inputs.push_back({"words/40000", words_input(40000, 7)});
  for (const auto& [name, data] : inputs) {
    for (DeflateWrapper w : {DeflateWrapper::raw, DeflateWrapper::zlib, DeflateWrapper::gzip}) {
      for (int level : {0, 1, 6, 9}) {
        // The larger inputs at every level with one wrapper, at one level with the others.
        if (data.size() > 4099 && w != DeflateWrapper::gzip && level != 6) continue;
        SCOPED_TRACE(name + " wrapper " + std::to_string(static_cast<int>(w)) + " level " +
                     std::to_string(level));
        const Bytes packed = zlib_compress(data, level, w);
        const WarpInflate d = warp_inflate(packed, data.size(), w, true);
        ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
        ASSERT_EQ(d.result.size, data.size());
        ASSERT_TRUE(std::equal(data.begin(), data.end(), d.out.begin()));
        expect_guard_intact(d.out, data.size());
      }
    }
  }
}

TEST(InflateWarpTokens, ResynchronisationEqualsDecodingFromTheTrueStart) {
  // A lane's segment, decoded first from its own start (recording checkpoints), then from a true
  // token boundary: the checkpoint shortcut must give what decoding from that boundary gives.
  for (int level : {1, 6}) {
    for (const Bytes& data : {test::smooth_uint16_input(1u << 16, 21), words_input(1u << 16, 22)}) {
      const Bytes packed = zlib_compress(data, level, DeflateWrapper::raw);
      auto ws = std::make_unique<InflateWorkspace>();
      InflateStream s;
      inflate_begin(s, *ws, packed.data(), packed.size(), 0, 0);
      ASSERT_EQ(s.bits.bits(3) >> 1, 2u) << "the stream must start with a dynamic block";
      ASSERT_EQ(detail::read_dynamic_codes(s, *ws), DeviceChunkStatus::ok);
      // The first block's token boundaries.
      std::vector<uint64_t> boundaries;
      InflateTokenCursor c;
      c.seek(packed.data(), packed.size(), s.bits.bit_position());
      for (InflateCode code = InflateCode::literal; code != InflateCode::end_of_block;) {
        if (c.at_token()) boundaries.push_back(c.position());
        uint32_t value = 0;
        code = c.next(*ws, value);
        ASSERT_NE(code, InflateCode::invalid);
      }
      ASSERT_GT(boundaries.back() - boundaries.front(), uint64_t{20000});
      const detail::InflateLaneStream lanes{packed.data(), packed.size(), ws.get()};
      std::mt19937 rng(static_cast<uint32_t>(level));
      int met = 0, decoded_through = 0;
      for (int trial = 0; trial < 30000; ++trial) {
        const uint64_t start =
            boundaries.front() + rng() % (boundaries.back() - boundaries.front() - 2048);
        const uint64_t end = start + detail::kInflateLaneBits;
        detail::InflateCheckpoints checkpoints, unused;
        const detail::InflateSegmentDecode first =
            detail::inflate_decode_segment(lanes, start, end, checkpoints);
        // The true start: the first or a later boundary at or past the segment's start.
        auto at = std::lower_bound(boundaries.begin(), boundaries.end(), start);
        at += rng() % 3;
        if (*at == start) continue;  // then the first decoding is the true one
        const detail::InflateSegmentDecode expected =
            detail::inflate_decode_segment(lanes, *at, end, unused);
        const detail::InflateSegmentDecode got =
            detail::inflate_resync_segment(lanes, first, checkpoints, *at, end);
        ASSERT_EQ(got.exit, expected.exit) << "start " << start << ", true start " << *at;
        ASSERT_EQ(got.bytes, expected.bytes);
        ASSERT_EQ(got.matches, expected.matches);
        ASSERT_EQ(got.how, expected.how);
        // Where the first decoding meets the true boundaries: at most one checkpoint interval
        // before a checkpoint, else the resynchronisation decoded through the segment.
        InflateTokenCursor f;
        f.seek(packed.data(), packed.size(), start);
        while (!(f.at_token() && f.position() >= *at &&
                 std::binary_search(boundaries.begin(), boundaries.end(), f.position()))) {
          uint32_t value = 0;
          f.next(*ws, value);
        }
        const bool by_checkpoint =
            checkpoints.count > 0 && f.position() <= start + checkpoints.at[checkpoints.count - 1];
        ++(by_checkpoint ? met : decoded_through);
      }
      // Both ways out of the resynchronisation were taken.
      EXPECT_GT(met, 20000);
      EXPECT_GT(decoded_through, 0);
    }
  }
}

TEST(InflateWarpDecode, FixedCodesAndLongOverlappingMatches) {
  // Z_FIXED: fixed Huffman blocks; Z_RLE: matches at distance 1 (each overlaps its own output).
  const Bytes runs = test::runs_input(50000, 3);
  const Bytes words = words_input(30000, 4);
  for (int strategy : {Z_FIXED, Z_RLE, Z_HUFFMAN_ONLY}) {
    for (const Bytes* data : {&runs, &words}) {
      SCOPED_TRACE("strategy " + std::to_string(strategy));
      const Bytes packed = zlib_compress(*data, 6, DeflateWrapper::zlib, strategy);
      const WarpInflate d = warp_inflate(packed, data->size(), DeflateWrapper::zlib, true);
      ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
      ASSERT_TRUE(std::equal(data->begin(), data->end(), d.out.begin()));
    }
  }
}

TEST(InflateWarpDecode, DistanceCodesLongerThanThePrimaryTable) {
  // Distance codes of 1 to 15 bits, each used (the longer ones past the 9-bit primary table).
  const test::HandMadeDeflate made = test::long_distance_code_stream(3, 40);
  const WarpInflate d = warp_inflate(made.stream, made.decoded.size(), DeflateWrapper::raw, false);
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
  ASSERT_EQ(d.result.size, made.decoded.size());
  EXPECT_TRUE(std::equal(made.decoded.begin(), made.decoded.end(), d.out.begin()));
  expect_guard_intact(d.out, made.decoded.size());
}

TEST(InflateWarpDecode, RoundsWithMoreMatchesThanTheListHolds) {
  // Long runs code a 258-byte match in a few bits: a round's 32 segments of
  // kInflateLaneBits bits then hold far more than kInflateRoundMatches matches, and rounds end
  // early at a segment boundary.
  Bytes zeros(1u << 20, 0), pattern(1u << 20);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<unsigned char>("abc"[i % 3]);
  for (const Bytes* data : {&zeros, &pattern}) {
    for (int level : {1, 9}) {
      const Bytes packed = zlib_compress(*data, level, DeflateWrapper::raw);
      // Under 16 bits per 258-byte match: over 2048 matches in a round's 32 * 1024 bits.
      ASSERT_LT(packed.size() * 8, data->size() / 258 * 16)
          << "the stream does not have the matches this test is about";
      const WarpInflate d = warp_inflate(packed, data->size(), DeflateWrapper::raw, true);
      ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
      ASSERT_EQ(d.result.size, data->size());
      EXPECT_TRUE(std::equal(data->begin(), data->end(), d.out.begin()));
      expect_guard_intact(d.out, data->size());
    }
  }
}

TEST(InflateWarpDecode, GzipMembersBackToBack) {
  const Bytes a = words_input(20000, 11), b = test::smooth_uint16_input(30000, 12);
  Bytes packed = zlib_compress(a, 6, DeflateWrapper::gzip);
  const Bytes second = zlib_compress(b, 1, DeflateWrapper::gzip);
  packed.insert(packed.end(), second.begin(), second.end());
  Bytes expected = a;
  expected.insert(expected.end(), b.begin(), b.end());
  const WarpInflate d = warp_inflate(packed, expected.size(), DeflateWrapper::gzip, true);
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
  ASSERT_EQ(d.result.size, expected.size());
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), d.out.begin()));
}

TEST(InflateWarpDecode, TooSmallOutputsFailWithoutWritingPastTheCapacity) {
  const Bytes data = words_input(40000, 21);
  const Bytes packed = zlib_compress(data, 6, DeflateWrapper::raw);
  for (uint64_t capacity : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, uint64_t{39999}}) {
    SCOPED_TRACE(capacity);
    const WarpInflate d = warp_inflate(packed, capacity, DeflateWrapper::raw, true);
    EXPECT_EQ(d.result.status, DeviceChunkStatus::output_too_small);
    expect_guard_intact(d.out, capacity);
  }
}

TEST(InflateWarpDecode, DamagedStreamsGiveTheSerialDecodersStatus) {
  std::mt19937 rng(20261122);
  const Bytes words = words_input(12000, 31), field = test::smooth_uint16_input(12000, 32);
  int failures = 0;
  for (int round = 0; round < 48; ++round) {
    const Bytes& data = round % 2 == 0 ? words : field;
    const DeflateWrapper w = round % 3 == 0   ? DeflateWrapper::raw
                             : round % 3 == 1 ? DeflateWrapper::zlib
                                              : DeflateWrapper::gzip;
    Bytes packed = zlib_compress(data, 1 + round % 9, w);
    if (round % 4 == 3) {
      packed.resize(rng() % packed.size());  // truncated
    } else {
      for (int k = 0; k < 1 + round % 5; ++k) packed[rng() % packed.size()] ^= 1u << (rng() % 8);
    }
    SCOPED_TRACE("round " + std::to_string(round));
    const InflateResult serial = serial_inflate(packed, data.size(), w, true);
    const WarpInflate d = warp_inflate(packed, data.size(), w, true);
    EXPECT_EQ(d.result.status, serial.status);
    EXPECT_EQ(d.result.size, serial.size);
    expect_guard_intact(d.out, data.size());
    failures += d.result.status != DeviceChunkStatus::ok;
  }
  EXPECT_GT(failures, 24);  // the damage is detected in most rounds
}

}  // namespace
}  // namespace cuzarr::gpu
