// The block-parallel LZ4 passes (lz4_block_parallel.hpp) run serially on the CPU, in the GPU's
// order: byte-exact against liblz4 (fast and HC at several levels, tiny to 16 MiB blocks), the
// same verdict and size as the serial decoder on hostile blocks (truncations, offsets before the
// start, lengths past the end, random mutations), never an access outside the given buffers
// (these tests also run under AddressSanitizer), and the stitch's reparse fallback.
#include <gtest/gtest.h>
#include <lz4.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/cuda/lz4_block_parallel_host.hpp"
#include "gpu_codec_inputs.hpp"
#include "liblz4_blocks.hpp"
#include "quantized_field_inputs.hpp"

namespace cuzarr {
namespace {

using gpu::DeviceChunkStatus;
using gpu::lz4_bp_segment_count;
using Bytes = std::vector<unsigned char>;

using test::liblz4_compress;

struct Decoded {
  gpu::DecodeResult result;
  Bytes out;
  gpu::Lz4BpReport report;
};

// Decodes with exact-size heap buffers (ASan sees any overrun). min_capacity 1: every non-empty
// block takes the block-parallel path.
Decoded decode_parallel(const Bytes& block, size_t capacity, uint64_t min_capacity = 1) {
  Decoded d;
  auto in = std::make_unique<unsigned char[]>(block.size() + 1);
  if (!block.empty()) std::memcpy(in.get(), block.data(), block.size());
  auto out = std::make_unique<unsigned char[]>(capacity + 1);
  d.result = gpu::lz4_decode_block_parallel_host(in.get(), block.size(), out.get(), capacity,
                                                 min_capacity, &d.report);
  d.out.assign(out.get(),
               out.get() + (d.result.status == DeviceChunkStatus::ok ? d.result.size : 0));
  return d;
}

gpu::DecodeResult decode_serial(const Bytes& block, size_t capacity, Bytes& out) {
  auto in = std::make_unique<unsigned char[]>(block.size() + 1);
  if (!block.empty()) std::memcpy(in.get(), block.data(), block.size());
  out.assign(capacity + 1, 0);
  return gpu::lz4_decode_block_serial(in.get(), block.size(), out.data(), capacity);
}

int liblz4_decompress(const Bytes& block, size_t capacity, Bytes& out) {
  out.assign(capacity + 1, 0);
  static const char kEmpty = 0;
  return LZ4_decompress_safe(block.empty() ? &kEmpty : reinterpret_cast<const char*>(block.data()),
                             reinterpret_cast<char*>(out.data()), static_cast<int>(block.size()),
                             static_cast<int>(capacity));
}

void expect_roundtrip(const Bytes& input, const Bytes& block, const std::string& what,
                      uint64_t& segments, uint64_t& reparsed) {
  const Decoded d = decode_parallel(block, input.size());
  ASSERT_TRUE(d.report.parallel || input.empty()) << what;
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok) << what;
  ASSERT_EQ(d.result.size, input.size()) << what;
  ASSERT_TRUE(d.out == input) << what;
  segments += d.report.segments;
  reparsed += d.report.reparsed;
}

TEST(Lz4BlockParallel, DecodesLiblz4BlocksOfEveryLevelAndFamily) {
  auto sizes = test::small_sizes();
  sizes.push_back(4 << 20);
  uint64_t segments = 0, reparsed = 0;
  for (const auto& input : test::input_families(sizes)) {
    if (input.bytes.empty()) continue;
    expect_roundtrip(input.bytes, liblz4_compress(input.bytes, 1), input.name + " fast", segments,
                     reparsed);
    expect_roundtrip(input.bytes, liblz4_compress(input.bytes, 8), input.name + " fast8", segments,
                     reparsed);
    for (int level : {3, 9, 12}) {
      expect_roundtrip(input.bytes, liblz4_compress(input.bytes, 1, level),
                       input.name + " hc" + std::to_string(level), segments, reparsed);
    }
  }
  std::printf("liblz4 blocks: %llu segments, %llu reparsed\n",
              static_cast<unsigned long long>(segments), static_cast<unsigned long long>(reparsed));
  EXPECT_GT(segments, 1000u);
}

TEST(Lz4BlockParallel, Decodes16MiBBlocks) {
  const Bytes fields = test::quantized_float32_input(16 << 20, 8, 9);
  const Bytes random = test::random_input(16 << 20, 8);
  uint64_t segments = 0, reparsed = 0;
  expect_roundtrip(fields, liblz4_compress(fields, 1), "16 MiB fields fast", segments, reparsed);
  expect_roundtrip(random, liblz4_compress(random, 1, 9), "16 MiB random hc9", segments, reparsed);
}

// Compressible fields (ratio 2 to 20): the speculative chains of almost every segment join the
// true one, so the stitch parses few segments again.
TEST(Lz4BlockParallel, SpeculationJoinsTheTrueChainOnCompressibleFields) {
  for (unsigned cleared : {8u, 11u, 13u}) {
    const Bytes input = test::quantized_float32_input(2 << 20, cleared, cleared);
    for (int level : {0, 9}) {
      const Bytes block = liblz4_compress(input, 1, level);
      ASSERT_LT(block.size() * 3, input.size() * 2);  // ratio above 1.5
      const Decoded d = decode_parallel(block, input.size());
      ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
      ASSERT_TRUE(d.out == input);
      std::printf("cleared %u level %d ratio %.2f: %u segments, %u reparsed, %llu of %llu tokens\n",
                  cleared, level, static_cast<double>(input.size()) / block.size(),
                  d.report.segments, d.report.reparsed,
                  static_cast<unsigned long long>(d.report.reparsed_records),
                  static_cast<unsigned long long>(d.report.records));
      EXPECT_LE(d.report.reparsed * 50, d.report.segments);         // at most 2 %
      EXPECT_LE(d.report.reparsed_records * 50, d.report.records);  // at most 2 % of the work
    }
  }
}

TEST(Lz4BlockParallel, LongRunsWithOffsetOneAndOverlaps) {
  Bytes input(3 << 20, 'x');
  for (size_t i = 0; i < input.size(); i += 100000) input[i] = static_cast<unsigned char>(i);
  uint64_t segments = 0, reparsed = 0;
  expect_roundtrip(input, liblz4_compress(input, 1), "runs", segments, reparsed);
  // A repeating 7-byte pattern: matches at distance 7 read earlier matches across segments.
  Bytes periodic(2 << 20);
  for (size_t i = 0; i < periodic.size(); ++i) periodic[i] = "abcdefg"[i % 7];
  expect_roundtrip(periodic, liblz4_compress(periodic, 1), "periodic", segments, reparsed);
  expect_roundtrip(periodic, liblz4_compress(periodic, 1, 12), "periodic hc", segments, reparsed);
}

TEST(Lz4BlockParallel, SmallBlocksGoSerialByDefault) {
  const Bytes input = test::smooth_uint16_input(100000, 3);
  const Decoded d =
      decode_parallel(liblz4_compress(input, 1), input.size(), gpu::kLz4BpMinCapacity);
  EXPECT_FALSE(d.report.parallel);
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
  EXPECT_TRUE(d.out == input);
  const Bytes large = test::smooth_uint16_input(gpu::kLz4BpMinCapacity, 3);
  const Decoded e =
      decode_parallel(liblz4_compress(large, 1), large.size(), gpu::kLz4BpMinCapacity);
  EXPECT_TRUE(e.report.parallel);
  EXPECT_TRUE(e.out == large);
}

// All passes by hand: `drop_every` > 0 throws away the speculative records of every so many
// segments (their chains then never meet the true one: the stitch must parse them again); the
// pieces execute last first, and the bytes resolve last first (any order must do); `pieces`
// counts them.
Bytes run_passes_by_hand(const Bytes& block, uint64_t capacity, uint32_t drop_every,
                         uint32_t& reparsed, uint32_t* pieces = nullptr) {
  const gpu::Lz4BpSlotLayout layout = gpu::lz4_bp_slot_layout(block.size(), capacity);
  std::vector<uint64_t> storage((layout.bytes + 7) / 8);
  const gpu::Lz4BpSlot slot = gpu::lz4_bp_slot(storage.data(), layout);
  gpu::lz4_bp_plan(block.size(), capacity, 1, block.size(), slot);
  EXPECT_EQ(slot.plan->parallel, 1u);
  const uint32_t n = slot.plan->segments;
  for (uint32_t k = 0; k < n; ++k) gpu::lz4_bp_parse_segment(block.data(), block.size(), slot, k);
  for (uint32_t k = 1; drop_every > 0 && k < n; k += drop_every) {
    slot.segments[k].count = 0;
    slot.segments[k].total = 0;
    slot.segments[k].terminated = 1;
  }
  for (uint32_t k = 0; k < n; ++k) gpu::lz4_bp_link_segment(slot, k);
  gpu::lz4_bp_stitch(block.data(), block.size(), slot);
  reparsed = slot.plan->reparsed;
  for (uint32_t k = 0; k < n; ++k) gpu::lz4_bp_segment_bytes(slot, k);
  gpu::lz4_bp_scan(slot);
  for (uint32_t k = 0; k < n; ++k)
    gpu::lz4_bp_check_segment(block.data(), block.size(), capacity, slot, k);
  const gpu::DecodeResult r = gpu::lz4_bp_finish(slot);
  EXPECT_EQ(r.status, DeviceChunkStatus::ok);
  Bytes out(r.size);
  if (r.status != DeviceChunkStatus::ok) return out;
  uint32_t starts = 0;
  for (uint32_t k = n; k-- > 0;) {
    if (!slot.segments[k].piece_start) continue;
    ++starts;
    gpu::lz4_bp_execute_piece_serial(block.data(), block.size(), slot, k, out.data());
  }
  if (pieces != nullptr) *pieces = starts;
  for (uint64_t p = out.size(); p-- > 0;) gpu::lz4_bp_resolve_byte(slot, out.data(), p);
  return out;
}

TEST(Lz4BlockParallel, StitchReparsesSegmentsThatMissTheTrueChain) {
  const Bytes input = test::smooth_uint16_input(1 << 20, 9);
  const Bytes block = liblz4_compress(input, 1, 9);
  uint32_t reparsed = 0;
  EXPECT_TRUE(run_passes_by_hand(block, input.size(), 2, reparsed) == input);
  EXPECT_GE(reparsed, lz4_bp_segment_count(block.size()) / 4);
}

// Pieces executed in any order, bytes resolved in any order: every external byte follows its
// origins, through chains of matches over several pieces (overlapping ones included), to a local
// byte.
TEST(Lz4BlockParallel, PiecesAndExternalBytesResolveInAnyOrder) {
  Bytes periodic(300000);
  for (size_t i = 0; i < periodic.size(); ++i) periodic[i] = "abcdefg"[i % 7];
  const std::vector<Bytes> inputs = {test::quantized_float32_input(400000, 11, 3),
                                     test::runs_input(500000, 3), periodic,
                                     test::smooth_uint16_input(1 << 20, 5)};
  for (size_t which = 0; which < inputs.size(); ++which) {
    const Bytes& input = inputs[which];
    for (int level : {0, 9}) {
      const Bytes block = liblz4_compress(input, 1, level);
      uint32_t reparsed = 0, pieces = 0;
      EXPECT_TRUE(run_passes_by_hand(block, input.size(), 0, reparsed, &pieces) == input)
          << input.size() << " bytes, level " << level;
      // At most one piece starts in each window of kLz4BpPieceBytes of output (besides the
      // first); a block with tokens all along has one in (nearly) every window.
      EXPECT_LE(pieces, input.size() / gpu::kLz4BpPieceBytes + 1);
      if (which == 0) {  // the quantized field
        EXPECT_GE(pieces, input.size() / gpu::kLz4BpPieceBytes - 1) << "level " << level;
      }
    }
  }
}

// A CPU model of the GPU's warp stitch (stitch_chunk in lz4_block_parallel.cu): runs of joined
// segments in one step of 32 lanes, the other segments through lz4_bp_stitch_step.
void stitch_like_a_warp(const Bytes& block, const gpu::Lz4BpSlot& slot) {
  constexpr uint32_t kLanes = 32;
  const uint32_t n = slot.plan->segments;
  gpu::Lz4BpStitchState state;
  uint32_t k = 0;
  while (k < n) {
    if (state.ended) {
      for (uint32_t s = k; s < n; ++s) slot.segments[s].first = slot.segments[s].end = 0;
      break;
    }
    if (state.hint_segment == k && state.hint != gpu::kLz4BpNone) {
      uint32_t run = 0;
      while (run < kLanes && gpu::lz4_bp_run_member(slot, k, run)) ++run;
      for (uint32_t l = 0; l < run; ++l) gpu::lz4_bp_run_segment(slot, k, l, state.hint);
      gpu::lz4_bp_run_leave(slot, k + run - 1, state);
      k += run;
      continue;
    }
    gpu::lz4_bp_stitch_step(block.data(), block.size(), slot, k, state);
    ++k;
  }
  slot.plan->terminated = state.ended ? 1 : 0;
}

struct StitchResult {
  std::vector<std::pair<uint32_t, uint32_t>> ranges;  // per segment: first, end
  uint32_t terminated;
  uint32_t reparsed;
};

StitchResult stitch(const Bytes& block, uint64_t capacity, bool warp, uint32_t drop_every) {
  const gpu::Lz4BpSlotLayout layout = gpu::lz4_bp_slot_layout(block.size(), capacity);
  std::vector<uint64_t> storage((layout.bytes + 7) / 8);
  const gpu::Lz4BpSlot slot = gpu::lz4_bp_slot(storage.data(), layout);
  gpu::lz4_bp_plan(block.size(), capacity, 1, block.size(), slot);
  const uint32_t n = slot.plan->segments;
  for (uint32_t k = 0; k < n; ++k) gpu::lz4_bp_parse_segment(block.data(), block.size(), slot, k);
  for (uint32_t k = 1; drop_every > 0 && k < n; k += drop_every) {
    slot.segments[k].count = slot.segments[k].total = 0;
    slot.segments[k].terminated = 1;
  }
  for (uint32_t k = 0; k < n; ++k) gpu::lz4_bp_link_segment(slot, k);
  if (warp) {
    stitch_like_a_warp(block, slot);
  } else {
    gpu::lz4_bp_stitch(block.data(), block.size(), slot);
  }
  StitchResult r{{}, slot.plan->terminated, slot.plan->reparsed};
  for (uint32_t k = 0; k < n; ++k)
    r.ranges.emplace_back(slot.segments[k].first, slot.segments[k].end);
  return r;
}

TEST(Lz4BlockParallel, WarpStitchModelMatchesTheSerialStitch) {
  std::vector<std::pair<Bytes, uint64_t>> blocks;
  for (const Bytes& input :
       {test::quantized_float32_input(1 << 20, 10, 4), test::smooth_uint16_input(1 << 20, 4),
        test::runs_input(1 << 20, 4), test::random_input(300000, 4)}) {
    blocks.emplace_back(liblz4_compress(input, 1), input.size());
    blocks.emplace_back(liblz4_compress(input, 1, 9), input.size());
  }
  std::mt19937 rng(8);
  Bytes damaged = blocks[0].first;
  for (int i = 0; i < 20; ++i) damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
  blocks.emplace_back(damaged, blocks[0].second);
  blocks.emplace_back(test::random_input(200000, 9), 1 << 20);
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (uint32_t drop : {0u, 2u, 5u, 33u}) {
      const StitchResult serial = stitch(blocks[b].first, blocks[b].second, false, drop);
      const StitchResult warp = stitch(blocks[b].first, blocks[b].second, true, drop);
      ASSERT_EQ(serial.terminated, warp.terminated) << b << " drop " << drop;
      ASSERT_EQ(serial.reparsed, warp.reparsed) << b << " drop " << drop;
      ASSERT_TRUE(serial.ranges == warp.ranges) << b << " drop " << drop;
    }
  }
}

// Same verdict, size and bytes as the serial decoder; where liblz4 accepts too, the same bytes.
void expect_like_serial(const Bytes& block, size_t capacity, const std::string& what,
                        int& both_accepted) {
  const Decoded d = decode_parallel(block, capacity);
  Bytes serial_out;
  const gpu::DecodeResult s = decode_serial(block, capacity, serial_out);
  ASSERT_EQ(static_cast<int>(d.result.status), static_cast<int>(s.status)) << what;
  if (s.status != DeviceChunkStatus::ok) return;
  ASSERT_EQ(d.result.size, s.size) << what;
  ASSERT_TRUE(std::equal(d.out.begin(), d.out.end(), serial_out.begin())) << what;
  Bytes expected;
  const int n = liblz4_decompress(block, capacity, expected);
  // liblz4 reads offset 0 and rejects some end-of-block layouts the format allows; where both
  // accept, the bytes agree.
  if (n >= 0) {
    ++both_accepted;
    ASSERT_EQ(d.result.size, static_cast<uint64_t>(n)) << what;
    ASSERT_TRUE(std::equal(d.out.begin(), d.out.end(), expected.begin())) << what;
  }
}

TEST(Lz4BlockParallel, HostileBlocksGetTheSerialVerdict) {
  int both_accepted = 0;
  const std::vector<std::pair<Bytes, size_t>> handmade = {
      {{}, 10},
      {{0x10, 'a', 0, 0}, 10},                             // offset 0
      {{0x10, 'a', 2, 0, 0x00}, 10},                       // offset before the output start
      {{0x10, 'a', 1}, 10},                                // 1-byte offset
      {{0xF0, 255, 255}, 10},                              // length runs out
      {{0x50, 'a', 'b'}, 10},                              // short literals
      {{0x30, 'a', 'b', 'c'}, 2},                          // literals past the capacity
      {{0x1F, 'a', 1, 0, 255, 255, 10, 0x00}, 100},        // match past the capacity
      {{0x10, 'a', 1, 0}, 10},                             // ends after a match
      {{0x36, 'a', 'b', 'c', 0x03, 0x00, 0x10, 'Z'}, 14},  // overlapping match
  };
  for (size_t i = 0; i < handmade.size(); ++i)
    expect_like_serial(handmade[i].first, handmade[i].second, "handmade " + std::to_string(i),
                       both_accepted);

  std::mt19937 rng(23);
  for (const auto& input : test::input_families({5000, 70000, 300000})) {
    const Bytes block = liblz4_compress(input.bytes, 1, input.bytes.size() % 2 ? 0 : 9);
    for (int trial = 0; trial < 120; ++trial) {
      Bytes damaged = block;
      const int kind = trial % 4;
      if (kind == 0) {
        damaged.resize(rng() % damaged.size());  // truncated
      } else if (kind == 1) {
        for (int k = 0; k <= trial % 5; ++k)  // random bytes
          damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
      } else if (kind == 2) {
        // Offsets and length bytes pushed to their extremes at random places.
        for (int k = 0; k < 3; ++k)
          damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng() % 2 ? 0xFF : 0x00);
      } else {
        // A random window replaced by garbage: speculative chains run through it.
        const size_t at = rng() % damaged.size();
        for (size_t k = at; k < damaged.size() && k < at + 200; ++k)
          damaged[k] = static_cast<unsigned char>(rng());
      }
      const size_t capacity =
          input.bytes.size() - (trial % 7 == 0 ? rng() % 10 : 0) + (trial % 11 == 0 ? 1000 : 0);
      expect_like_serial(damaged, capacity, input.name + " trial " + std::to_string(trial),
                         both_accepted);
    }
  }
  // Pure garbage of a few sizes.
  for (uint32_t seed = 0; seed < 40; ++seed) {
    const Bytes garbage = test::random_input(1000 + seed * 3000, seed);
    expect_like_serial(garbage, 1 << 20, "garbage " + std::to_string(seed), both_accepted);
  }
  EXPECT_GT(both_accepted, 50);
}

}  // namespace
}  // namespace cuzarr
