// The block-parallel Zstandard passes (zstd_block_parallel.hpp), run serially on the CPU by
// zstd_decode_block_parallel_host: byte-exact against libzstd at every level from -7 to 19, with
// and without checksum and content size, frames back to back, skippable frames, small windows
// (matches crossing blocks), 1 to 32 MiB inputs; hostile inputs (truncated, damaged, random)
// give a failure exactly when the serial decoder fails, and never an access outside the given
// buffers (exact-size heap copies; these tests also run under AddressSanitizer).
#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/cuda/zstd_block_parallel_host.hpp"
#include "codec/cuda/zstd_kernels.hpp"
#include "gpu_codec_inputs.hpp"
#include "zstd_test_frames.hpp"

namespace cuzarr {
namespace {

using gpu::DeviceChunkStatus;
using Bytes = std::vector<unsigned char>;

using Params = test::ZstdFrameParams;
using test::zstd_compress;

struct Decoded {
  gpu::DecodeResult result;
  bool block_parallel = false;
  Bytes out;
};

/// Decodes from an exact-size heap copy of `frame` into exactly `capacity` heap bytes.
Decoded decode(const Bytes& frame, size_t capacity, bool verify = true) {
  auto in = std::unique_ptr<unsigned char[]>(new unsigned char[frame.size()]);
  if (!frame.empty()) std::memcpy(in.get(), frame.data(), frame.size());
  auto dst = std::unique_ptr<unsigned char[]>(new unsigned char[capacity]);
  Decoded d;
  d.result = gpu::zstd_decode_block_parallel_host(in.get(), frame.size(), dst.get(), capacity,
                                                  verify, &d.block_parallel);
  if (d.result.status == DeviceChunkStatus::ok) {
    EXPECT_LE(d.result.size, capacity);
    d.out.assign(dst.get(), dst.get() + d.result.size);
  }
  return d;
}

/// The serial decoder's status on the same input.
gpu::DecodeResult decode_serial(const Bytes& frame, size_t capacity, Bytes& out) {
  static auto workspace = std::make_unique<gpu::ZstdWorkspace>();
  out.assign(capacity, 0);
  return gpu::zstd_decode_serial(frame.data(), frame.size(), out.data(), capacity, *workspace);
}

std::string describe(const std::string& name, const Params& p) {
  return name + " level " + std::to_string(p.level) + (p.checksum ? " checksum" : "") +
         (p.content_size ? " content-size" : "") +
         (p.window_log ? " windowLog " + std::to_string(p.window_log) : "");
}

void expect_roundtrip(const Bytes& input, const Params& p, const std::string& what) {
  const Bytes frame = zstd_compress(input, p);
  const Decoded d = decode(frame, input.size());
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok) << what;
  ASSERT_EQ(d.result.size, input.size()) << what;
  ASSERT_TRUE(d.out == input) << what;
  ASSERT_EQ(d.block_parallel, input.size() >= gpu::kZstdBlockParallelMinCapacity) << what;
}

TEST(ZstdBlockParallel, LargeBatchesSendEveryChunkToTheBlockPathByDefault) {
  using gpu::kZstdBlockParallelAuto;
  EXPECT_EQ(gpu::zstd_block_parallel_from(1, kZstdBlockParallelAuto),
            gpu::kZstdBlockParallelMinCapacity);
  EXPECT_EQ(gpu::zstd_block_parallel_from(gpu::kZstdBlockParallelBatch - 1, kZstdBlockParallelAuto),
            gpu::kZstdBlockParallelMinCapacity);
  EXPECT_EQ(gpu::zstd_block_parallel_from(gpu::kZstdBlockParallelBatch, kZstdBlockParallelAuto),
            0u);
  // A threshold the caller chose stays.
  EXPECT_EQ(gpu::zstd_block_parallel_from(1, 12345), 12345u);
  EXPECT_EQ(gpu::zstd_block_parallel_from(size_t{1} << 20, UINT64_MAX), UINT64_MAX);
}

TEST(ZstdBlockParallel, Xxh64InFourLanesEqualsXxh64) {
  const Bytes data = test::random_input(5000, 17);
  for (size_t size = 0; size < 5000; size += size < 100 ? 1 : 97) {
    uint64_t lanes[4];
    for (unsigned k = 0; k < 4; ++k) lanes[k] = gpu::zstd_bp_xxh64_lane(data.data(), size, k);
    EXPECT_EQ(gpu::zstd_bp_xxh64_combine(lanes, data.data(), size), gpu::xxh64(data.data(), size))
        << size;
  }
}

TEST(ZstdBlockParallel, DecodesEveryLevelOfEveryFamily) {
  const auto inputs = test::input_families({140000, 700001});
  for (int level = -7; level <= 19; ++level) {
    for (const auto& input : inputs) {
      if (level > 12 && input.bytes.size() > 200000 && level != 19) continue;  // test time
      Params p;
      p.level = level;
      p.checksum = (level & 1) != 0;
      p.content_size = (level % 3) != 0;
      expect_roundtrip(input.bytes, p, describe(input.name, p));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(ZstdBlockParallel, DecodesEveryFlagCombination) {
  const auto inputs = test::input_families({131073, 300000});
  for (int level : {-3, 1, 3, 7, 12}) {
    for (int flags = 0; flags < 4; ++flags) {
      for (const auto& input : inputs) {
        Params p;
        p.level = level;
        p.checksum = flags & 1;
        p.content_size = flags & 2;
        expect_roundtrip(input.bytes, p, describe(input.name, p));
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ZstdBlockParallel, DecodesLargeInputs) {
  for (size_t size : {size_t{1} << 20, size_t{4} << 20, size_t{32} << 20}) {
    for (int level : {1, 3}) {
      Params p;
      p.level = level;
      p.checksum = level == 3;
      expect_roundtrip(test::smooth_uint16_input(size, 5), p,
                       describe("smooth_uint16/" + std::to_string(size), p));
      if (HasFatalFailure()) return;
    }
  }
  Params p;
  p.level = 9;
  p.content_size = false;
  expect_roundtrip(test::runs_input(size_t{4} << 20, 6), p, describe("runs/4MiB", p));
  expect_roundtrip(test::smooth_float32_input(size_t{4} << 20, 8), p,
                   describe("smooth_float32/4MiB", p));
  expect_roundtrip(test::random_input(size_t{1} << 20, 7), p, describe("random/1MiB", p));
}

TEST(ZstdBlockParallel, SmallWindowsMakeMatchesCrossBlocks) {
  const auto inputs = test::input_families({size_t{1} << 20});
  for (int window_log : {10, 11, 14, 17}) {
    for (int level : {1, 3, 9}) {
      for (const auto& input : inputs) {
        Params p;
        p.level = level;
        p.window_log = window_log;
        p.checksum = true;
        p.content_size = window_log != 14;
        expect_roundtrip(input.bytes, p, describe(input.name, p));
        if (HasFatalFailure()) return;
      }
    }
  }
}

/// A random pattern of `period` bytes repeated: every block is one long match of the previous
/// content, so a byte's source chain runs through every earlier block.
Bytes repeated_pattern(size_t size, size_t period, uint32_t seed) {
  const Bytes pattern = test::random_input(period, seed);
  Bytes v(size);
  for (size_t i = 0; i < size; ++i) v[i] = pattern[i % period];
  return v;
}

TEST(ZstdBlockParallel, FollowsMatchChainsThroughEveryEarlierBlock) {
  for (int window_log : {10, 0}) {
    for (int level : {1, 3, 19}) {
      Params p;
      p.level = level;
      p.window_log = window_log;
      p.checksum = true;
      expect_roundtrip(repeated_pattern(200000, 300, 5), p,
                       describe("repeated 300-byte pattern/200000", p));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(ZstdBlockParallel, DecodesSmallChunksWhenAskedTo) {
  const auto inputs = test::input_families(test::small_sizes());
  int k = 0;
  for (const auto& input : inputs) {
    for (int level : {-5, 1, 3, 19}) {
      Params p;
      p.level = level;
      p.checksum = k % 2 == 0;
      p.content_size = k % 3 != 0;
      ++k;
      const Bytes frame = zstd_compress(input.bytes, p);
      auto in = std::unique_ptr<unsigned char[]>(new unsigned char[frame.size()]);
      std::memcpy(in.get(), frame.data(), frame.size());
      auto out = std::unique_ptr<unsigned char[]>(new unsigned char[input.bytes.size() + 1]);
      bool block_parallel = false;
      const auto r = gpu::zstd_decode_block_parallel_host(
          in.get(), frame.size(), out.get(), input.bytes.size(), true, &block_parallel, 0);
      ASSERT_EQ(r.status, DeviceChunkStatus::ok) << describe(input.name, p);
      ASSERT_TRUE(block_parallel) << describe(input.name, p);
      ASSERT_EQ(r.size, input.bytes.size());
      ASSERT_TRUE(Bytes(out.get(), out.get() + r.size) == input.bytes) << describe(input.name, p);
    }
  }
}

TEST(ZstdBlockParallel, DecodesFramesBackToBackAndSkipsSkippableFrames) {
  const auto inputs = test::input_families({0, 3, 5000, 150000, 400000});
  Bytes stream, expected;
  int k = 0;
  for (const auto& input : inputs) {
    Params p;
    p.level = (k % 5) * 4 - 1;
    p.checksum = k % 2 == 0;
    p.content_size = k % 3 != 0;
    const Bytes frame = zstd_compress(input.bytes, p);
    stream.insert(stream.end(), frame.begin(), frame.end());
    expected.insert(expected.end(), input.bytes.begin(), input.bytes.end());
    if (k % 4 == 1) {  // a skippable frame with 0..20 bytes of payload
      const uint32_t magic = 0x184D2A50u + static_cast<uint32_t>(k % 16);
      const uint32_t size = static_cast<uint32_t>(k % 21);
      for (int i = 0; i < 4; ++i) stream.push_back(static_cast<unsigned char>(magic >> (8 * i)));
      for (int i = 0; i < 4; ++i) stream.push_back(static_cast<unsigned char>(size >> (8 * i)));
      for (uint32_t i = 0; i < size; ++i) stream.push_back(static_cast<unsigned char>(0xA0 + i));
    }
    ++k;
  }
  const Decoded d = decode(stream, expected.size());
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
  EXPECT_TRUE(d.block_parallel);
  EXPECT_TRUE(d.out == expected);
  // Only skippable frames: a valid empty input; nothing at all is not.
  const Bytes skippable = {0x5F, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 9, 9};
  const Decoded empty = decode(skippable, 200000);
  EXPECT_EQ(empty.result.status, DeviceChunkStatus::ok);
  EXPECT_EQ(empty.result.size, 0u);
  EXPECT_TRUE(empty.block_parallel);
  EXPECT_EQ(decode({}, 200000).result.status, DeviceChunkStatus::corrupt_input);
}

TEST(ZstdBlockParallel, ManyTinyFramesFallBackToTheSerialDecoder) {
  // 300 frames of 500 bytes: more frames than the budget of a 150000-byte chunk.
  Bytes stream, expected;
  for (int i = 0; i < 300; ++i) {
    const Bytes input = test::runs_input(500, static_cast<uint32_t>(i));
    Params p;
    const Bytes frame = zstd_compress(input, p);
    stream.insert(stream.end(), frame.begin(), frame.end());
    expected.insert(expected.end(), input.begin(), input.end());
  }
  const Decoded d = decode(stream, expected.size());
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
  EXPECT_FALSE(d.block_parallel);
  EXPECT_TRUE(d.out == expected);
}

TEST(ZstdBlockParallel, RareModesAndTableReuseAcrossBlocks) {
  // RLE literals, a 3-byte sequence count, RLE code tables, a bitstream of no bits.
  const Bytes rle = {0x28, 0xB5, 0x2F, 0xFD, 0xA0, 0x00, 0xFC, 0x01, 0x00, 0x65, 0x00, 0x00,
                     0x0D, 0xF0, 0x07, 'a',  0xFF, 0x00, 0x00, 0x54, 0x01, 0x00, 0x00, 0x01};
  Decoded d = decode(rle, 200000);
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
  EXPECT_TRUE(d.block_parallel);
  EXPECT_EQ(d.out, Bytes(130048, 'a'));
  // Direct 4-bit Huffman weights, then a treeless block reusing the table.
  const Bytes direct = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x0C, 0x44, 0x00, 0x00,
                        0x82, 0x00, 0x01, 0x80, 0x10, 0x69, 0x01, 0x00, 0x2D,
                        0x00, 0x00, 0x43, 0x40, 0x00, 0x1E, 0x00};
  d = decode(direct, 200000);
  ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
  EXPECT_EQ(d.out, Bytes({0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 0}));
  // Treeless literals without an earlier tree in the frame.
  const Bytes orphan = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x04, 0x2D,
                        0x00, 0x00, 0x43, 0x40, 0x00, 0x1E, 0x00};
  EXPECT_EQ(decode(orphan, 200000).result.status, DeviceChunkStatus::corrupt_input);
  // A frame with a tree, then the orphan as a second frame (tables do not carry over).
  const Bytes with_tree = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x08, 0x45, 0x00, 0x00,
                           0x82, 0x00, 0x01, 0x80, 0x10, 0x69, 0x01, 0x00};
  Bytes split(with_tree.size() + orphan.size());
  std::copy(with_tree.begin(), with_tree.end(), split.begin());
  std::copy(orphan.begin(), orphan.end(),
            split.begin() + static_cast<std::ptrdiff_t>(with_tree.size()));
  EXPECT_EQ(decode(split, 200000).result.status, DeviceChunkStatus::corrupt_input);
  // libzstd reuses Huffman and FSE tables ("treeless" / "repeat") across the blocks of large
  // frames at high levels; these decode through the table descriptions of earlier blocks.
  Params p;
  p.level = 19;
  p.checksum = true;
  expect_roundtrip(test::smooth_float32_input(size_t{3} << 20, 3), p, "float32/3MiB level 19");
}

TEST(ZstdBlockParallel, PlanPointsTreelessAndRepeatBlocksAtEarlierDescriptions) {
  Params p;
  p.level = 19;
  const Bytes input = test::smooth_float32_input(size_t{3} << 20, 3);
  const Bytes frame = zstd_compress(input, p);
  gpu::ZstdHostSlot storage(input.size());
  const gpu::ZstdSlot& slot = storage.slot;
  gpu::zstd_bp_plan(frame.data(), frame.size(), input.size(), slot);
  ASSERT_EQ(slot.plan->header_status, DeviceChunkStatus::ok);
  ASSERT_EQ(slot.plan->block_parallel, 1u);
  ASSERT_EQ(slot.plan->frame_count, 1u);
  EXPECT_GE(slot.plan->block_count, 24u);  // 3 MiB in blocks of at most 128 KiB
  int treeless = 0, repeated = 0;
  for (uint32_t b = 0; b < slot.plan->block_count; ++b) {
    const gpu::ZstdBlockRecord& rec = slot.blocks[b];
    if (rec.type != 2) continue;
    if (rec.literal_type == 3) {
      ++treeless;
      EXPECT_LT(rec.huffman_tree, rec.in_offset);
    }
    for (const auto& table : rec.tables) {
      if (table.mode != 0 && table.offset < rec.in_offset) ++repeated;
    }
  }
  EXPECT_GT(treeless + repeated, 0);
}

/// The plan of `frame` in its three parts, the blocks' section headers read in reverse order (the
/// GPU reads them a thread per block, in any order).
void plan_sections_in_reverse(const Bytes& frame, size_t capacity, const gpu::ZstdSlot& slot) {
  gpu::zstd_bp_plan_headers(frame.data(), frame.size(), capacity, slot);
  for (uint32_t b = slot.plan->block_count; b-- > 0;) {
    gpu::zstd_bp_plan_sections(frame.data(), slot.blocks[b]);
  }
  gpu::zstd_bp_plan_link(capacity, slot);
}

void expect_same_plan(const gpu::ZstdSlot& a, const gpu::ZstdSlot& b, const std::string& what) {
  ASSERT_EQ(a.plan->header_status, b.plan->header_status) << what;
  ASSERT_EQ(a.plan->block_parallel, b.plan->block_parallel) << what;
  if (!a.plan->block_parallel) return;
  ASSERT_EQ(a.plan->block_count, b.plan->block_count) << what;
  ASSERT_EQ(a.plan->frame_count, b.plan->frame_count) << what;
  EXPECT_EQ(a.plan->literal_bytes, b.plan->literal_bytes) << what;
  EXPECT_EQ(a.plan->sequence_count, b.plan->sequence_count) << what;
  for (uint32_t k = 0; k < a.plan->block_count; ++k) {
    const gpu::ZstdBlockRecord &x = a.blocks[k], &y = b.blocks[k];
    ASSERT_EQ(x.in_offset, y.in_offset) << what << " block " << k;
    ASSERT_EQ(x.type, y.type) << what << " block " << k;
    EXPECT_EQ(x.literal_type, y.literal_type) << what << " block " << k;
    EXPECT_EQ(x.literal_offset, y.literal_offset) << what << " block " << k;
    EXPECT_EQ(x.literal_payload, y.literal_payload) << what << " block " << k;
    EXPECT_EQ(x.huffman_tree, y.huffman_tree) << what << " block " << k;
    EXPECT_EQ(x.sequence_offset, y.sequence_offset) << what << " block " << k;
    EXPECT_EQ(x.sequence_count, y.sequence_count) << what << " block " << k;
    EXPECT_EQ(x.bitstream, y.bitstream) << what << " block " << k;
    for (int t = 0; t < 3; ++t) {
      EXPECT_EQ(x.tables[t].offset, y.tables[t].offset) << what << " block " << k;
      EXPECT_EQ(x.tables[t].mode, y.tables[t].mode) << what << " block " << k;
    }
  }
  for (uint32_t f = 0; f < a.plan->frame_count; ++f) {
    EXPECT_EQ(a.frames[f].first_block, b.frames[f].first_block) << what << " frame " << f;
    EXPECT_EQ(a.frames[f].block_count, b.frames[f].block_count) << what << " frame " << f;
    EXPECT_EQ(a.frames[f].complete, b.frames[f].complete) << what << " frame " << f;
  }
}

TEST(ZstdBlockParallel, PlanReadsEachBlocksSectionsIndependently) {
  // Level 19 reuses Huffman and FSE tables across blocks; damaged copies stop the plan at
  // different blocks and steps. In every case the plan is the same whichever order the blocks'
  // section headers are read in.
  struct Case {
    Bytes input;
    int level;
  };
  const std::vector<Case> cases = {{test::smooth_float32_input(size_t{3} << 20, 3), 19},
                                   {test::smooth_uint16_input(size_t{1} << 20, 5), 3}};
  int stopped_early = 0;
  for (const Case& c : cases) {
    Params p;
    p.level = c.level;
    p.checksum = true;
    const Bytes frame = zstd_compress(c.input, p);
    gpu::ZstdHostSlot serial(c.input.size()), reversed(c.input.size());
    const gpu::ZstdSlot &a = serial.slot, &b = reversed.slot;
    // The blocks' section headers, where damage stops the plan (elsewhere it reaches the
    // entropy passes).
    gpu::zstd_bp_plan(frame.data(), frame.size(), c.input.size(), a);
    std::vector<uint64_t> headers;
    for (uint32_t k = 0; k < a.plan->block_count; ++k) headers.push_back(a.blocks[k].in_offset);
    ASSERT_GE(headers.size(), 8u);
    std::mt19937 rng(static_cast<uint32_t>(c.level));
    for (int trial = 0; trial < 60; ++trial) {
      Bytes damaged = frame;
      for (int h = 0; trial > 0 && h < 2; ++h) {
        const uint64_t at = headers[rng() % headers.size()] + rng() % 24;
        damaged[at] = static_cast<unsigned char>(rng());
      }
      const std::string what =
          "level " + std::to_string(c.level) + " trial " + std::to_string(trial);
      gpu::zstd_bp_plan(damaged.data(), damaged.size(), c.input.size(), a);
      plan_sections_in_reverse(damaged, c.input.size(), b);
      expect_same_plan(a, b, what);
      if (HasFatalFailure()) return;
      if (trial == 0) {
        ASSERT_EQ(a.plan->header_status, DeviceChunkStatus::ok) << what;
        ASSERT_EQ(a.plan->block_parallel, 1u) << what;
      } else if (a.plan->block_parallel && a.plan->header_status != DeviceChunkStatus::ok) {
        ++stopped_early;
      }
    }
  }
  EXPECT_GT(stopped_early, 10);
}

TEST(ZstdBlockParallel, PlanStopsAtTheFirstBlockWhoseTableDescriptionIsBad) {
  // A bad accuracy log (RFC 8878, 4.1.1: at most 9 for literal lengths and match lengths, 8 for
  // offsets) in the first FSE description of a block in the middle of the frame: the plan stops
  // at that block, as the serial walk did, and the chunk fails as the serial decoder fails.
  Params p;
  p.level = 3;
  const Bytes input = test::smooth_uint16_input(size_t{2} << 20, 9);
  const Bytes frame = zstd_compress(input, p);
  gpu::ZstdHostSlot storage(input.size());
  const gpu::ZstdSlot& slot = storage.slot;
  gpu::zstd_bp_plan(frame.data(), frame.size(), input.size(), slot);
  ASSERT_EQ(slot.plan->header_status, DeviceChunkStatus::ok);
  uint64_t description = 0;
  uint32_t block = 0;
  for (uint32_t b = slot.plan->block_count / 2; b < slot.plan->block_count && !description; ++b) {
    for (const auto& table : slot.blocks[b].tables) {
      if (table.mode == 2 && table.offset > slot.blocks[b].in_offset) {
        description = table.offset;
        block = b;
        break;
      }
    }
  }
  ASSERT_NE(description, 0u) << "no block in the second half has its own FSE description";
  Bytes damaged = frame;
  damaged[description] = static_cast<unsigned char>(damaged[description] | 0x0F);  // log 20
  gpu::zstd_bp_plan(damaged.data(), damaged.size(), input.size(), slot);
  EXPECT_NE(slot.plan->header_status, DeviceChunkStatus::ok);
  EXPECT_EQ(slot.plan->block_parallel, 1u);
  EXPECT_EQ(slot.plan->block_count, block);
  EXPECT_EQ(slot.frames[0].complete, 0u);
  Bytes serial_out;
  const gpu::DecodeResult serial = decode_serial(damaged, input.size(), serial_out);
  const Decoded d = decode(damaged, input.size());
  EXPECT_NE(serial.status, DeviceChunkStatus::ok);
  EXPECT_EQ(d.result.status, serial.status);
  EXPECT_TRUE(d.block_parallel);
}

TEST(ZstdBlockParallel, ReportsOutputTooSmallAndChecksums) {
  const Bytes input = test::smooth_float32_input(600000, 4);
  for (bool content_size : {false, true}) {
    Params p;
    p.content_size = content_size;
    p.checksum = true;
    Bytes frame = zstd_compress(input, p);
    for (size_t capacity : {size_t{140000}, input.size() / 2, input.size() - 1}) {
      EXPECT_EQ(decode(frame, capacity).result.status, DeviceChunkStatus::output_too_small)
          << capacity;
    }
    const Decoded d = decode(frame, input.size() + 100);
    ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
    EXPECT_TRUE(d.out == input);
    frame[frame.size() - 2] ^= 0x10;
    EXPECT_EQ(decode(frame, input.size()).result.status, DeviceChunkStatus::checksum_mismatch);
    const Decoded unchecked = decode(frame, input.size(), /*verify=*/false);
    ASSERT_EQ(unchecked.result.status, DeviceChunkStatus::ok);
    EXPECT_TRUE(unchecked.out == input);
  }
}

/// A hostile input must fail exactly when the serial decoder fails, and decode the same bytes
/// when it does not.
void expect_like_serial(const Bytes& frame, size_t capacity, const std::string& what,
                        int& failures) {
  const Decoded d = decode(frame, capacity);
  Bytes ref;
  const auto r = decode_serial(frame, capacity, ref);
  ASSERT_EQ(d.result.status == DeviceChunkStatus::ok, r.status == DeviceChunkStatus::ok)
      << what << ": " << static_cast<int>(d.result.status) << " vs " << static_cast<int>(r.status);
  if (r.status == DeviceChunkStatus::ok) {
    ref.resize(r.size);
    ASSERT_TRUE(d.out == ref) << what;
  } else {
    ++failures;
  }
}

TEST(ZstdBlockParallel, RejectsEveryTruncation) {
  const auto inputs = test::input_families({150000, 400000});
  int level = -2, failures = 0;
  for (const auto& input : inputs) {
    Params p;
    p.level = level;
    level = level >= 15 ? -2 : level + 3;
    p.checksum = input.bytes.size() % 2 == 0;
    const Bytes frame = zstd_compress(input.bytes, p);
    const size_t step = frame.size() > 600 ? frame.size() / 300 : 1;
    for (size_t cut = 0; cut < frame.size(); cut += step) {
      const Bytes part(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(cut));
      const Decoded d = decode(part, input.bytes.size());
      EXPECT_NE(d.result.status, DeviceChunkStatus::ok)
          << input.name << " cut at " << cut << " of " << frame.size();
      ++failures;
    }
  }
  EXPECT_GT(failures, 1000);
}

TEST(ZstdBlockParallel, DamagedFramesNeverOverrunAndFailLikeTheSerialDecoder) {
  const auto inputs = test::input_families({140000, 300000});
  int failures = 0;
  for (const auto& input : inputs) {
    for (int level : {-5, 1, 3, 19}) {
      if (level == 19 && input.bytes.size() > 200000) continue;
      Params p;
      p.level = level;
      p.checksum = level != 3;
      p.window_log = level == 1 ? 12 : 0;
      const Bytes frame = zstd_compress(input.bytes, p);
      std::mt19937 rng(static_cast<uint32_t>(frame.size() * 31 + static_cast<size_t>(level + 7)));
      for (int trial = 0; trial < 40; ++trial) {
        Bytes damaged = frame;
        const int hits = 1 + static_cast<int>(rng() % 3);
        for (int h = 0; h < hits; ++h) {
          const size_t at = rng() % damaged.size();
          damaged[at] =
              static_cast<unsigned char>(trial % 2 ? rng() : damaged[at] ^ (1u << (rng() % 8)));
        }
        const size_t capacity = input.bytes.size() + (trial % 3 == 0 ? 1000 : 0);
        expect_like_serial(
            damaged, capacity,
            input.name + " level " + std::to_string(level) + " trial " + std::to_string(trial),
            failures);
        if (HasFatalFailure()) return;
      }
    }
  }
  EXPECT_GT(failures, 500);
}

TEST(ZstdBlockParallel, RandomBytesNeverOverrun) {
  std::mt19937 rng(321);
  int failures = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    // A valid magic number and descriptor, then noise: reaches the block and entropy parsers.
    Bytes junk = test::random_input(5 + rng() % 600, static_cast<uint32_t>(trial));
    junk[0] = 0x28;
    junk[1] = 0xB5;
    junk[2] = 0x2F;
    junk[3] = 0xFD;
    junk[4] &= 0xF4;  // no dictionary, reserved bit clear
    expect_like_serial(junk, 131073 + rng() % 100000, "trial " + std::to_string(trial), failures);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(failures, 1000);
}

TEST(ZstdBlockParallel, ExternalMatchBytesCountTheFirstPeriodBeforeTheBlock) {
  // A block from 1000; matches at 1010.
  EXPECT_EQ(gpu::zstd_bp_external_match_bytes(1010, 20, 5, 1000), 0u);    // source 1005
  EXPECT_EQ(gpu::zstd_bp_external_match_bytes(1010, 20, 10, 1000), 0u);   // source 1000
  EXPECT_EQ(gpu::zstd_bp_external_match_bytes(1010, 20, 30, 1000), 20u);  // wholly before
  EXPECT_EQ(gpu::zstd_bp_external_match_bytes(1010, 20, 15, 1000), 5u);   // 995..999
  EXPECT_EQ(gpu::zstd_bp_external_match_bytes(1010, 20, 25, 1000), 15u);  // 985..999
  // Overlapping its own output: a period of 12 bytes, 2 of them before the block, repeated.
  EXPECT_EQ(gpu::zstd_bp_external_match_bytes(1010, 100, 12, 1000), 2u);
  EXPECT_EQ(gpu::zstd_bp_external_match_bytes(1010, 100, 60, 1000), 50u);
  EXPECT_EQ(gpu::zstd_bp_external_match_bytes(1010, 100, 200, 1000), 100u);
}

TEST(ZstdBlockParallel, InOrderTakesFramesWithManyExternalBytes) {
  EXPECT_TRUE(gpu::zstd_bp_in_order(400, 1000, 400));
  EXPECT_FALSE(gpu::zstd_bp_in_order(399, 1000, 400));
  EXPECT_TRUE(gpu::zstd_bp_in_order(0, 1000, 0));  // 0: every frame
  EXPECT_TRUE(gpu::zstd_bp_in_order(1000, 1000, 1000));
  EXPECT_FALSE(gpu::zstd_bp_in_order(1000, 1000, 1001));  // above 1000: none
  EXPECT_FALSE(gpu::zstd_bp_in_order(uint64_t{1} << 40, uint64_t{1} << 40, UINT32_MAX));
}

TEST(ZstdBlockParallel, StretchesCutFramesAtMultiplesOfTheirLength) {
  const uint64_t block = uint64_t{128} << 10;
  // The automatic length: whole frames in rounds of kZstdInOrderMinChunks chunks or more, else
  // every block its own stretch.
  EXPECT_EQ(gpu::zstd_bp_auto_stretch(gpu::kZstdInOrderMinChunks), gpu::kZstdStretchWhole);
  EXPECT_EQ(gpu::zstd_bp_auto_stretch(1 << 20), gpu::kZstdStretchWhole);
  EXPECT_EQ(gpu::zstd_bp_auto_stretch(gpu::kZstdInOrderMinChunks - 1), 1u);
  EXPECT_EQ(gpu::zstd_bp_auto_stretch(1), 1u);
  // Heads of a frame of 128 KiB blocks (and one short block) in stretches of 512 KiB.
  const uint64_t stretch = 4 * block;
  std::vector<uint64_t> offsets;
  for (uint64_t b = 0; b < 10; ++b) offsets.push_back(b * block);
  offsets.push_back(10 * block - 1000);  // a short block before it
  std::sort(offsets.begin(), offsets.end());
  std::vector<size_t> heads;
  for (size_t k = 0; k < offsets.size(); ++k) {
    if (gpu::zstd_bp_stretch_head(k == 0, k == 0 ? 0 : offsets[k - 1], offsets[k], stretch)) {
      heads.push_back(k);
    }
  }
  EXPECT_EQ(heads, (std::vector<size_t>{0, 4, 8}));
  // Whole frames: the first block only; stretches of 1 byte: every block.
  EXPECT_FALSE(gpu::zstd_bp_stretch_head(false, 0, 9 * block, gpu::kZstdStretchWhole));
  EXPECT_TRUE(gpu::zstd_bp_stretch_head(true, 0, 0, gpu::kZstdStretchWhole));
  for (size_t k = 1; k < offsets.size(); ++k) {
    EXPECT_TRUE(gpu::zstd_bp_stretch_head(false, offsets[k - 1], offsets[k], 1)) << k;
  }
}

/// Per block of `slot` (its output offsets), the match bytes of the serial decoder's steps on
/// `frame` whose source lies before the block, counted byte by byte over each match's first
/// period.
std::vector<uint64_t> external_bytes_by_steps(const Bytes& frame, size_t size,
                                              const gpu::ZstdSlot& slot) {
  std::vector<uint64_t> starts;
  for (uint32_t b = 0; b < slot.plan->executed_blocks; ++b)
    starts.push_back(slot.blocks[b].output_offset);
  std::vector<uint64_t> external(starts.size(), 0);
  Bytes out(size);
  auto workspace = std::make_unique<gpu::ZstdWorkspace>();
  gpu::ZstdFrameDecoder decoder;
  decoder.init(frame.data(), frame.size(), out.data(), size, workspace.get(), false);
  for (;;) {
    gpu::ZstdStep step;
    bool done = false;
    const DeviceChunkStatus status = decoder.next(step, done);
    EXPECT_EQ(status, DeviceChunkStatus::ok);
    if (done || status != DeviceChunkStatus::ok) break;
    for (unsigned k = 0; k < step.huffman_streams; ++k)
      EXPECT_EQ(gpu::zstd_decode_literal_stream(workspace->literals, k), DeviceChunkStatus::ok);
    if (step.huffman_streams > 0) continue;
    const uint64_t at = step.op + step.literal_length;
    if (step.match_length > 0) {
      const size_t b = static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), at) -
                                           starts.begin() - 1);
      const uint64_t period = std::min<uint64_t>(step.match_length, step.match_distance);
      for (uint64_t t = 0; t < period; ++t)
        external[b] += gpu::match_source(at, step.match_distance, t) < starts[b] ? 1 : 0;
    }
    gpu::zstd_execute_step_serial(step, out.data());
  }
  return external;
}

TEST(ZstdBlockParallel, LiteralsPassCountsEachBlocksExternalMatchBytes) {
  // A delta-encoded float32 field: libzstd's matches read earlier blocks for about a quarter of
  // the output, so its frames run their matches in order even in small rounds; the smooth uint16
  // field's hardly do; a label volume's only for the first bytes of long runs (its chains are
  // long instead: counted only).
  const size_t size = size_t{2} << 20;
  struct Case {
    const char* name;
    Bytes input;
    int in_order;  // -1: either
  };
  for (const Case& c : {Case{"delta float32", test::delta_float32_input(size, 4), 1},
                        Case{"smooth uint16", test::smooth_uint16_input(size, 4), 0},
                        Case{"label volume", test::label_volume_input(size), -1}}) {
    SCOPED_TRACE(c.name);
    Params p;
    p.level = 3;
    const Bytes frame = zstd_compress(c.input, p);
    gpu::ZstdHostSlot storage(size);
    const gpu::ZstdSlot& slot = storage.slot;
    gpu::zstd_bp_plan(frame.data(), frame.size(), size, slot);
    ASSERT_EQ(slot.plan->block_parallel, 1u);
    Bytes out(size);
    const gpu::DecodeResult r = gpu::zstd_bp_run_passes_host(frame.data(), out.data(), size, slot);
    ASSERT_EQ(r.status, DeviceChunkStatus::ok);
    ASSERT_TRUE(out == c.input);
    const std::vector<uint64_t> expected = external_bytes_by_steps(frame, size, slot);
    ASSERT_EQ(expected.size(), slot.plan->block_count);
    uint64_t external = 0;
    for (uint32_t b = 0; b < slot.plan->block_count; ++b) {
      EXPECT_EQ(slot.blocks[b].external_bytes, expected[b]) << "block " << b;
      external += expected[b];
    }
    if (c.in_order >= 0) {
      EXPECT_EQ(gpu::zstd_bp_in_order(external, size, gpu::kZstdInOrderMatchesPermille),
                c.in_order == 1)
          << external << " of " << size << " bytes";
    }
  }
}

/// Compresses `input` at level 3 and runs the host passes over it in `slot` (sized for it; its
/// records stay for the caller): block-parallel, and the output equals the input.
void run_host_passes_at_level_3(const Bytes& input, const gpu::ZstdSlot& slot) {
  Params p;
  p.level = 3;
  const Bytes frame = zstd_compress(input, p);
  gpu::zstd_bp_plan(frame.data(), frame.size(), input.size(), slot);
  ASSERT_EQ(slot.plan->block_parallel, 1u);
  Bytes out(input.size());
  ASSERT_EQ(gpu::zstd_bp_run_passes_host(frame.data(), out.data(), input.size(), slot).status,
            DeviceChunkStatus::ok);
  ASSERT_TRUE(out == input);
}

/// Checks the chase's lookups (zstd_bp_block_at, zstd_bp_sequence_at) against linear searches at
/// every 7th position of the frame.
void expect_lookups_exact(const gpu::ZstdSlot& slot, uint64_t size, const std::string& what) {
  SCOPED_TRACE(what);
  const uint32_t blocks = slot.plan->executed_blocks;
  uint32_t mismatches = 0;
  for (uint64_t q = 0; q < size && mismatches < 5; q += 7) {
    uint32_t k = 0;
    while (k + 1 < blocks && slot.blocks[k + 1].output_offset <= q) ++k;
    const uint32_t found = gpu::zstd_bp_block_at(slot, 0, blocks, q);
    if (found != k) {
      ++mismatches;
      ADD_FAILURE() << "block of " << q << ": " << found << ", expected " << k;
    }
    const gpu::ZstdBlockRecord& rec = slot.blocks[k];
    const uint32_t count = rec.type == 2 && rec.sequence_tables ? rec.sequence_count : 0;
    const gpu::ZstdSeqRecord* seqs = slot.sequences + rec.sequence_offset;
    const uint64_t local = q - rec.output_offset;
    if (count == 0 || local < seqs[0].match_at) continue;
    uint32_t i = 0;
    while (i + 1 < count && seqs[i + 1].match_at <= local) ++i;
    const uint32_t at = gpu::zstd_bp_sequence_at(slot, k, count, local);
    if (at != i) {
      ++mismatches;
      ADD_FAILURE() << "sequence of " << q << " in block " << k << ": " << at << ", expected " << i;
    }
  }
}

TEST(ZstdBlockParallel, ChaseLookupsAreExactWhateverThePositionIndexHolds) {
  // The index only shortens the searches: as the literals pass writes it, shuffled (entries of
  // other blocks and positions), and random, the lookups give what a linear search gives.
  const size_t size = size_t{3} << 20;
  gpu::ZstdHostSlot storage(size);
  const gpu::ZstdSlot& slot = storage.slot;
  run_host_passes_at_level_3(test::smooth_uint16_input(size, 4), slot);
  if (HasFatalFailure()) return;
  ASSERT_GE(slot.plan->executed_blocks, 24u);
  const uint64_t entries = gpu::zstd_bp_index_entries(size);
  // As written: every entry inside the output names the block that holds its position.
  for (uint64_t e = 0; e * gpu::kZstdIndexBytes < size; ++e) {
    const gpu::ZstdIndexEntry& x = slot.index[e];
    ASSERT_LT(x.block, slot.plan->executed_blocks) << "entry " << e;
    const gpu::ZstdBlockRecord& rec = slot.blocks[x.block];
    ASSERT_LE(rec.output_offset, e * gpu::kZstdIndexBytes) << "entry " << e;
    ASSERT_GT(rec.output_offset + rec.decoded_size, e * gpu::kZstdIndexBytes) << "entry " << e;
  }
  expect_lookups_exact(slot, size, "as written");
  std::mt19937_64 rng(7);
  std::shuffle(slot.index, slot.index + entries, rng);
  expect_lookups_exact(slot, size, "shuffled");
  for (uint64_t e = 0; e < entries; ++e) {
    const uint64_t v = rng();
    // Small values too, so that some point at real blocks and sequences.
    slot.index[e] =
        gpu::ZstdIndexEntry{static_cast<uint32_t>(e % 3 == 0 ? v % 64 : v),
                            static_cast<uint32_t>(e % 2 == 0 ? (v >> 32) % 4096 : v >> 32)};
  }
  expect_lookups_exact(slot, size, "random");
}

TEST(ZstdBlockParallel, PiecesAreBoundedAndListedInBlockOrder) {
  // At least kZstdPieceSequences sequences a piece, at most kZstdMaxPieces pieces a block, for
  // every count a block's section header can give (up to 0x7F00 + 0xFFFF, RFC 8878, 3.1.1.3.2.1).
  for (uint32_t count = 1; count <= 0x7F00 + 0xFFFF; count += count < 5000 ? 1 : 97) {
    for (uint32_t asked : {0u, 1u, 1024u, 3000u}) {
      const uint32_t per = gpu::zstd_bp_piece_sequences(count, asked);
      ASSERT_GE(per, asked == 0 ? gpu::kZstdPieceSequences : asked) << count;
      ASSERT_LE((count + per - 1) / per, gpu::kZstdMaxPieces) << count;
    }
  }
  // A round cuts as finely as its warps need, never below kZstdPieceSequences.
  EXPECT_EQ(gpu::zstd_bp_round_piece_sequences(0, 2640), gpu::kZstdPieceSequences);
  EXPECT_EQ(gpu::zstd_bp_round_piece_sequences(3'800'000, 2640), 1440u);
  EXPECT_EQ(gpu::zstd_bp_round_piece_sequences(30'000'000, 2640), 11364u);
  EXPECT_EQ(gpu::zstd_bp_round_piece_sequences(1000, 0), gpu::kZstdPieceSequences);
  // A 2 MiB delta-encoded field at level 3 (about 8-byte sequences): its blocks hold several
  // pieces; the scan lists every block's pieces after those of the blocks before it.
  const size_t size = size_t{2} << 20;
  gpu::ZstdHostSlot storage(size);
  const gpu::ZstdSlot& slot = storage.slot;
  run_host_passes_at_level_3(test::delta_float32_input(size, 4), slot);
  if (HasFatalFailure()) return;
  uint32_t pieces = 0, split = 0;
  for (uint32_t b = 0; b < slot.plan->executed_blocks; ++b) {
    const gpu::ZstdBlockRecord& rec = slot.blocks[b];
    EXPECT_EQ(rec.piece_first, pieces) << "block " << b;
    // The pieces cover the block's sequences, each holding `per` but the last.
    const uint32_t n = gpu::zstd_bp_pieces(rec, slot.plan->piece_sequences);
    const uint32_t count = gpu::zstd_bp_executed_sequences(rec);
    const uint32_t per = gpu::zstd_bp_piece_sequences(count, slot.plan->piece_sequences);
    EXPECT_GE(n, 1u) << "block " << b;
    EXPECT_LE(n, gpu::kZstdMaxPieces) << "block " << b;
    if (count > 0) {
      EXPECT_LT(uint64_t{n - 1} * per, count) << "block " << b;
      EXPECT_GE(uint64_t{n} * per, count) << "block " << b;
    } else {
      EXPECT_EQ(n, 1u) << "block " << b;
    }
    split += n > 1 ? 1 : 0;
    pieces += n;
  }
  EXPECT_EQ(slot.plan->executed_pieces, pieces);
  EXPECT_GT(split, 0u) << "no block of this input holds more than one piece";
}

TEST(ZstdBlockParallel, MatchesInPiecesOfAnyLengthDecodeAlike) {
  // The host passes run each block's pieces last first, so every match byte whose source is a
  // match of an earlier piece of its own block is chased there (pieces as short as the cap of
  // kZstdMaxPieces a block allows: one sequence in blocks of up to 32).
  const size_t size = size_t{1} << 20;
  struct Case {
    const char* name;
    Bytes input;
  };
  for (const Case& c : {Case{"delta float32", test::delta_float32_input(size, 4)},
                        Case{"smooth uint16", test::smooth_uint16_input(size, 5)},
                        Case{"label volume", test::label_volume_input(size)},
                        Case{"runs", test::runs_input(size, 6)},
                        Case{"repeated pattern", repeated_pattern(size, 300, 7)}}) {
    for (int level : {1, 3, 19}) {
      Params p;
      p.level = level;
      const Bytes frame = zstd_compress(c.input, p);
      for (uint32_t per : {1u, 7u, 64u, 0u}) {
        SCOPED_TRACE(std::string(c.name) + " level " + std::to_string(level) + ", pieces of " +
                     std::to_string(per));
        gpu::ZstdHostSlot storage(size);
        const gpu::ZstdSlot& slot = storage.slot;
        gpu::zstd_bp_plan(frame.data(), frame.size(), size, slot);
        ASSERT_EQ(slot.plan->block_parallel, 1u);
        Bytes out(size, 0xA5);
        const gpu::DecodeResult r =
            gpu::zstd_bp_run_passes_host(frame.data(), out.data(), size, slot, true, per);
        ASSERT_EQ(r.status, DeviceChunkStatus::ok);
        ASSERT_TRUE(out == c.input);
      }
    }
  }
}

}  // namespace
}  // namespace cuzarr
