// Block-parallel inflate (inflate_block_parallel.hpp) on the CPU: the block search's header test
// against the decoder's own reading of a dynamic block header at every bit offset, and the GPU's
// warp passes run with emulated warps over small segments: byte-exact against zlib for every
// wrapper, level and strategy, and on damaged streams either left to the warp decoder or exactly
// the serial decoder's output, never writing past the capacity.
#include "warp_emulator.hpp"
// The emulator must come before the device headers.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/cuda/crc32_table.hpp"
#include "codec/cuda/inflate_block_parallel.cuh"
#include "codec/cuda/inflate_block_search.hpp"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "crc_test_tables.hpp"
#include "deflate_hand_made.hpp"
#include "gpu_codec_inputs.hpp"
#include "guarded_output.hpp"
#include "zlib_test_streams.hpp"

namespace cuzarr::gpu {
namespace {

using Bytes = std::vector<unsigned char>;
using test::zlib_compress;
using test::warp_emulation::run_warp;

const uint32_t (*crc_table())[256] { return test::crc32_lane_tables().slice.table; }

/// The decoder's own answer: BFINAL 0, BTYPE 2 and read_dynamic_codes accepting the header.
bool decoder_reads_dynamic_header(const Bytes& in, uint64_t bit, InflateWorkspace& ws) {
  InflateStream s;
  inflate_begin(s, ws, in.data(), in.size(), 0, 0);
  s.bits.seek_bit(in.data(), in.size(), bit);
  if (s.bits.bits(3) != 4) return false;
  return detail::read_dynamic_codes(s, ws) == DeviceChunkStatus::ok;
}

TEST(InflateBlockSearch, AgreesWithTheDecoderAtEveryBitOffset) {
  auto ws = std::make_unique<InflateWorkspace>();
  uint64_t accepted = 0, may_start = 0, tested = 0;
  for (const auto& [name, data] : test::input_families({300000})) {
    for (int level : {1, 6, 9}) {
      const Bytes stream = zlib_compress(data, level, test::kRawBits);
      for (uint64_t bit = 0; bit < stream.size() * 8 + 8; ++bit) {
        const bool expected =
            bit < stream.size() * 8 && decoder_reads_dynamic_header(stream, bit, *ws);
        ASSERT_EQ(inflate_dynamic_header_at(stream.data(), stream.size(), bit), expected)
            << name << " level " << level << " bit " << bit;
        // The prefilter is a necessary condition.
        const bool maybe = inflate_dynamic_header_may_start(stream.data(), stream.size(), bit);
        ASSERT_TRUE(maybe || !expected) << name << " level " << level << " bit " << bit;
        accepted += expected ? 1 : 0;
        may_start += maybe ? 1 : 0;
        ++tested;
      }
    }
  }
  // Streams of several blocks: the test saw headers, not only rejections.
  EXPECT_GT(accepted, 20u) << tested;
  // The prefilter leaves few offsets to the full test (it is what makes the search cheap).
  EXPECT_LT(may_start * 100, tested) << may_start << " of " << tested;
  std::printf("prefilter passed %llu of %llu bit offsets; headers %llu\n",
              static_cast<unsigned long long>(may_start), static_cast<unsigned long long>(tested),
              static_cast<unsigned long long>(accepted));
}

TEST(InflateBlockSearch, RejectsHeadersThatDoNotFitTheInput) {
  const Bytes data = test::smooth_uint16_input(200000, 3);
  const Bytes stream = zlib_compress(data, 6, test::kRawBits);
  auto ws = std::make_unique<InflateWorkspace>();
  // The last accepted offset, with the input cut just before its header ends: no longer accepted.
  uint64_t last = 0;
  for (uint64_t bit = 0; bit < stream.size() * 8; ++bit) {
    if (inflate_dynamic_header_at(stream.data(), stream.size(), bit)) last = bit;
  }
  ASSERT_GT(last, 0u);
  const Bytes cut(stream.begin(), stream.begin() + static_cast<long>(last / 8 + 4));
  EXPECT_FALSE(inflate_dynamic_header_at(cut.data(), cut.size(), last));
}

/// What the block-parallel passes did with one chunk.
struct BpRun {
  bool finished = false;  ///< the path finished the chunk (else the warp decoder would)
  bool two_pass = false;  ///< a segment outgrew its region
  uint32_t segments = 0;  ///< segments with a block start
  uint64_t size = 0;
  Bytes out;  // capacity + kGuard bytes
};

/// Runs every pass of the path on one chunk in the GPU's order, each warp pass emulated segment
/// by segment.
BpRun run_block_parallel(const Bytes& in, uint64_t capacity, DeflateWrapper w, bool verify,
                         uint64_t segment_bytes) {
  BpRun run;
  run.out.assign(capacity + test::kGuard, test::kGuardByte);
  const InflateBpLayout layout = inflate_bp_layout(capacity, segment_bytes);
  std::vector<uint64_t> storage(layout.bytes / 8);
  const InflateBpSlot slot = inflate_bp_slot(storage.data(), layout);
  inflate_bp_plan(in.data(), in.size(), capacity, w, 0, layout, slot);
  const uint32_t n = slot.chunk->segments;
  auto ws = std::make_unique<InflateWorkspace>();
  for (uint32_t k = 1; k < n; ++k) {
    run_warp([&](unsigned lane) {
      detail::warp_inflate_bp_search(in.data(), in.size(), slot, k, lane);
    });
    // The first offset of the search range where the full test holds, as a scan finds it.
    uint64_t first = 0, end = 0;
    inflate_bp_search_range(*slot.chunk, in.size(), k, first, end);
    uint64_t expected = kInflateBpNone;
    for (uint64_t bit = first; bit < end && expected == kInflateBpNone; ++bit) {
      if (inflate_dynamic_header_at(in.data(), in.size(), bit)) expected = bit;
    }
    EXPECT_EQ(slot.segments[k].start_bit, expected) << "segment " << k;
  }
  std::vector<uint64_t> list(detail::kInflateRoundMatches);
  const auto segment_pass = [&](detail::InflateBpPass pass) {
    for (uint32_t k = 0; k < n; ++k) {
      run_warp([&](unsigned lane) {
        detail::warp_inflate_bp_pass(pass, in.data(), in.size(), capacity, slot, k, *ws,
                                     list.data(), lane);
      });
    }
  };
  segment_pass(detail::InflateBpPass::decode);
  inflate_bp_scan(in.size(), capacity, slot);
  segment_pass(detail::InflateBpPass::count);
  inflate_bp_scan(in.size(), capacity, slot);
  segment_pass(detail::InflateBpPass::write);
  // The finish: every byte resolved on its own, then the checksums in pieces of an odd size, each
  // by a warp, combined as the GPU's atomics combine them.
  InflateBpChunk& c = *slot.chunk;
  bool good = c.parallel != 0;
  for (uint64_t p = 0; good && p < c.output_size; ++p)
    run.out[p] = inflate_bp_resolve_byte(slot, p, inflate_bp_segment_of(slot, p), good);
  // The kernel's words (from many byte offsets) narrow to the same bytes.
  for (uint64_t p = 0; good && p + 8 <= c.output_size; p += p % 5 == 0 ? 3 : 8) {
    uint32_t k = inflate_bp_segment_of(slot, p);
    const uint64_t word = inflate_bp_resolve_word(slot, p, k, good);
    EXPECT_EQ(k, inflate_bp_segment_of(slot, p + 7)) << p;
    for (int b = 0; b < 8; ++b) {
      EXPECT_EQ(static_cast<unsigned char>(word >> (8 * b)), run.out[p + b]) << p << " + " << b;
    }
  }
  if (good && verify && c.wrapped) {
    constexpr uint64_t kPiece = 1000;
    for (uint64_t from = 0; from < c.output_size; from += kPiece) {
      std::vector<InflateBpChecksumPart> parts(test::warp_emulation::kLanes);
      run_warp([&](unsigned lane) {
        parts[lane] = detail::warp_inflate_bp_checksum_part(run.out.data(), c, from,
                                                            std::min(c.output_size, from + kPiece),
                                                            test::crc32_lane_tables(), lane);
      });
      for (const InflateBpChecksumPart& part : parts) {
        EXPECT_EQ(part.crc, parts[0].crc);
        EXPECT_EQ(part.adler_a, parts[0].adler_a);
        EXPECT_EQ(part.adler_b, parts[0].adler_b);
      }
      c.crc ^= parts[0].crc;
      c.adler_a += parts[0].adler_a;
      c.adler_b += parts[0].adler_b;
    }
  }
  run.finished = good && inflate_bp_checksums_hold(in.data(), verify, c);
  run.size = slot.chunk->output_size;
  run.two_pass = slot.chunk->two_pass != 0;
  for (uint32_t k = 0; k < n; ++k) run.segments += slot.segments[k].start_bit != kInflateBpNone;
  return run;
}

// Emulated warps are slow (a barrier per warp intrinsic): small streams cut into 2 KiB segments.
TEST(InflateBlockParallel, DecodesEveryWrapperLevelAndStrategyExactly) {
  struct Case {
    const char* name;
    Bytes data;
    DeflateWrapper wrapper;
    int level;
    int strategy;
  };
  const Bytes uint16 = test::smooth_uint16_input(60000, 5);
  const Bytes float32 = test::smooth_float32_input(60000, 6);
  const Bytes words = test::words_input(50000, 7);
  const std::vector<Case> cases = {
      {"smooth_uint16", uint16, DeflateWrapper::raw, 1, Z_DEFAULT_STRATEGY},
      {"smooth_uint16", uint16, DeflateWrapper::zlib, 6, Z_DEFAULT_STRATEGY},
      {"smooth_uint16", uint16, DeflateWrapper::gzip, 9, Z_DEFAULT_STRATEGY},
      {"smooth_float32", float32, DeflateWrapper::gzip, 1, Z_DEFAULT_STRATEGY},
      {"smooth_float32", float32, DeflateWrapper::raw, 6, Z_HUFFMAN_ONLY},
      {"words", words, DeflateWrapper::zlib, 1, Z_DEFAULT_STRATEGY},
      {"words", words, DeflateWrapper::gzip, 6, Z_FIXED},  // no dynamic block: one segment
      {"random", test::random_input(20000, 8), DeflateWrapper::gzip, 6, Z_DEFAULT_STRATEGY},
      {"smooth_uint16", uint16, DeflateWrapper::zlib, 0, Z_DEFAULT_STRATEGY},  // stored blocks
  };
  uint32_t multi_segment = 0, one_pass = 0;
  for (const Case& c : cases) {
    const Bytes stream =
        zlib_compress(c.data, c.level, test::window_bits_of(c.wrapper), c.strategy);
    const BpRun run = run_block_parallel(stream, c.data.size(), c.wrapper, true, 2048);
    const std::string what = std::string(c.name) + " wrapper " +
                             std::to_string(static_cast<int>(c.wrapper)) + " level " +
                             std::to_string(c.level) + " strategy " + std::to_string(c.strategy);
    ASSERT_TRUE(run.finished) << what;
    ASSERT_EQ(run.size, c.data.size()) << what;
    ASSERT_TRUE(std::equal(c.data.begin(), c.data.end(), run.out.begin())) << what;
    test::expect_guard_intact(run.out, c.data.size());
    multi_segment += run.segments > 1 ? 1 : 0;
    one_pass += run.segments > 1 && !run.two_pass ? 1 : 0;
  }
  // The dynamic blocks of the compressible streams were found and decoded in parallel, and
  // evenly compressible data fits the regions of a single decoding pass.
  EXPECT_GE(multi_segment, 5u);
  EXPECT_GE(one_pass, 4u);
}

TEST(InflateBlockParallel, DistanceCodesLongerThanThePrimaryTable) {
  // Twelve dynamic blocks whose distance codes take 1 to 15 bits, found by the search and
  // decoded in parallel (the longer codes past the 9-bit primary table).
  const test::HandMadeDeflate made = test::long_distance_code_stream(12, 40);
  const BpRun run =
      run_block_parallel(made.stream, made.decoded.size(), DeflateWrapper::raw, false, 2048);
  ASSERT_TRUE(run.finished);
  EXPECT_GT(run.segments, 3u);
  ASSERT_EQ(run.size, made.decoded.size());
  EXPECT_TRUE(std::equal(made.decoded.begin(), made.decoded.end(), run.out.begin()));
  test::expect_guard_intact(run.out, made.decoded.size());
}

TEST(InflateBlockParallel, SegmentsThatOutgrowTheirRegionsGoTwoPass) {
  // Text, then a long run of zeros, then a smooth field, Huffman-coded only (a block every 16 Ki
  // symbols): the segments of the run decode to far more than their share of the capacity.
  Bytes data = test::words_input(20000, 12);
  data.resize(data.size() + 120000, 0);
  const Bytes field = test::smooth_uint16_input(30000, 13);
  data.insert(data.end(), field.begin(), field.end());
  for (DeflateWrapper w : {DeflateWrapper::raw, DeflateWrapper::gzip}) {
    const Bytes stream = zlib_compress(data, 6, test::window_bits_of(w), Z_HUFFMAN_ONLY);
    const BpRun run = run_block_parallel(stream, data.size(), w, true, 2048);
    ASSERT_TRUE(run.finished);
    EXPECT_TRUE(run.two_pass);
    EXPECT_GT(run.segments, 2u);
    ASSERT_EQ(run.size, data.size());
    ASSERT_TRUE(std::equal(data.begin(), data.end(), run.out.begin()));
    test::expect_guard_intact(run.out, data.size());
  }
  // Evenly compressible data with room to spare (a capacity three times its size): one pass.
  const Bytes field_stream = zlib_compress(field, 6, test::kRawBits);
  const BpRun roomy =
      run_block_parallel(field_stream, 3 * field.size(), DeflateWrapper::raw, true, 2048);
  ASSERT_TRUE(roomy.finished);
  EXPECT_FALSE(roomy.two_pass);
  ASSERT_EQ(roomy.size, field.size());
  EXPECT_TRUE(std::equal(field.begin(), field.end(), roomy.out.begin()));
}

TEST(InflateBlockParallel, LeavesWhatItCannotFinishToTheWarpDecoder) {
  const Bytes data = test::smooth_uint16_input(40000, 9);
  // Members back to back (gzip), a capacity too small, checksums that lie.
  Bytes two = zlib_compress(data, 6, test::kGzipBits);
  const Bytes copy = two;
  two.insert(two.end(), copy.begin(), copy.end());
  EXPECT_FALSE(run_block_parallel(two, 2 * data.size(), DeflateWrapper::gzip, true, 2048).finished);
  EXPECT_FALSE(
      run_block_parallel(copy, data.size() - 1, DeflateWrapper::gzip, true, 2048).finished);
  Bytes lying = copy;
  lying[lying.size() - 6] ^= 1;  // CRC-32
  EXPECT_FALSE(run_block_parallel(lying, data.size(), DeflateWrapper::gzip, true, 2048).finished);
  const BpRun unchecked = run_block_parallel(lying, data.size(), DeflateWrapper::gzip, false, 2048);
  ASSERT_TRUE(unchecked.finished);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), unchecked.out.begin()));
}

TEST(InflateBlockParallel, DamagedStreamsAreLeftOrDecodedAsTheSerialDecoderDoes) {
  std::mt19937 rng(77);
  const Bytes data = test::smooth_float32_input(30000, 10);
  auto ws = std::make_unique<InflateWorkspace>();
  uint32_t finished = 0, left = 0;
  for (DeflateWrapper w : {DeflateWrapper::raw, DeflateWrapper::zlib, DeflateWrapper::gzip}) {
    const Bytes stream = zlib_compress(data, 1, test::window_bits_of(w));
    for (int trial = 0; trial < 10; ++trial) {
      Bytes damaged = stream;
      if (trial % 3 == 0) {
        damaged.resize(rng() % damaged.size());
      } else {
        for (int k = 0; k <= trial % 3; ++k)
          damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
      }
      const bool verify = trial % 2 == 0;
      const BpRun run = run_block_parallel(damaged, data.size(), w, verify, 1024);
      test::expect_guard_intact(run.out, data.size());
      if (!run.finished) {
        ++left;
        continue;
      }
      ++finished;
      Bytes reference(data.size());
      const InflateResult r = inflate_serial(damaged.data(), damaged.size(), reference.data(),
                                             data.size(), w, verify, *ws, crc_table());
      ASSERT_EQ(r.status, DeviceChunkStatus::ok) << "trial " << trial;
      ASSERT_EQ(r.size, run.size) << "trial " << trial;
      ASSERT_TRUE(std::equal(reference.begin(), reference.begin() + static_cast<long>(r.size),
                             run.out.begin()))
          << "trial " << trial;
    }
  }
  // Most damage is seen (the path declines); damage no check can see is decoded as the serial
  // decoder decodes it.
  EXPECT_GT(left, finished);
}

TEST(InflateBlockParallel, AutomaticThresholdTakesSmallerChunksInSmallBatches) {
  EXPECT_EQ(inflate_block_parallel_from(1, kInflateBpAuto), kInflateBpSmallBatchMinCapacity);
  EXPECT_EQ(inflate_block_parallel_from(kInflateBpSmallBatch, kInflateBpAuto),
            kInflateBpSmallBatchMinCapacity);
  EXPECT_EQ(inflate_block_parallel_from(kInflateBpSmallBatch + 1, kInflateBpAuto),
            kInflateBpMinCapacity);
  EXPECT_LT(kInflateBpSmallBatchMinCapacity, kInflateBpMinCapacity);
  // A threshold the caller names is kept whatever the batch.
  for (const size_t count : {size_t{1}, size_t{100000}}) {
    EXPECT_EQ(inflate_block_parallel_from(count, 0), 0u);
    EXPECT_EQ(inflate_block_parallel_from(count, UINT64_MAX), UINT64_MAX);
    EXPECT_EQ(inflate_block_parallel_from(count, uint64_t{3} << 20), uint64_t{3} << 20);
  }
}

TEST(InflateBlockParallel, NumberedSegmentsGiveEveryWarpItsChunkAndSegment) {
  // Segments per chunk, chunks without any (not taken) among them.
  const std::vector<uint32_t> segments = {3, 0, 1, 0, 0, 5, 2, 0};
  std::vector<uint32_t> first(segments.size() + 1, 0);
  for (size_t i = 0; i < segments.size(); ++i) first[i + 1] = first[i] + segments[i];
  const auto n = static_cast<uint32_t>(segments.size());
  uint64_t w = 0;
  for (uint32_t i = 0; i < n; ++i) {
    for (uint32_t k = 0; k < segments[i]; ++k, ++w) {
      uint32_t chunk = 99, segment = 99;
      ASSERT_TRUE(inflate_bp_numbered_segment(first.data(), n, w, chunk, segment)) << w;
      EXPECT_EQ(chunk, i) << "warp " << w;
      EXPECT_EQ(segment, k) << "warp " << w;
    }
  }
  EXPECT_EQ(w, 11u);
  uint32_t chunk = 0, segment = 0;
  EXPECT_FALSE(inflate_bp_numbered_segment(first.data(), n, w, chunk, segment));
  EXPECT_FALSE(inflate_bp_numbered_segment(first.data(), n, w + 1000, chunk, segment));
  const std::vector<uint32_t> none(4, 0);
  EXPECT_FALSE(inflate_bp_numbered_segment(none.data(), 3, 0, chunk, segment));
}

}  // namespace
}  // namespace cuzarr::gpu
