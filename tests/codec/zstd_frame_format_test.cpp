// The Zstandard frame decoder the GPU kernels run, checked on the CPU: byte-exact against
// libzstd's output at every level from -7 to 19, with and without checksum and content size,
// frames back to back, skippable frames, small windows, sizes from 0 bytes to 32 MiB; and
// truncated / damaged / lying frames (an error, never an access outside the given buffers: these
// tests also run under AddressSanitizer).
#include "codec/cuda/zstd_frame_format.hpp"

#include <gtest/gtest.h>
#include <zstd.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gpu_codec_inputs.hpp"
#include "zstd_test_frames.hpp"

namespace cuzarr {
namespace {

using gpu::DeviceChunkStatus;
using Bytes = std::vector<unsigned char>;

using Params = test::ZstdFrameParams;
using test::zstd_compress;

/// Decodes from an exact-size heap copy of `frame` into exactly `capacity` bytes (ASan sees any
/// access outside either).
gpu::DecodeResult decode(const Bytes& frame, size_t capacity, Bytes& out, bool verify = true) {
  static auto workspace = std::make_unique<gpu::ZstdWorkspace>();
  auto in = std::unique_ptr<unsigned char[]>(new unsigned char[frame.size()]);
  if (!frame.empty()) std::memcpy(in.get(), frame.data(), frame.size());
  out.assign(capacity, 0xEE);
  auto dst = std::unique_ptr<unsigned char[]>(new unsigned char[capacity]);
  const auto r =
      gpu::zstd_decode_serial(in.get(), frame.size(), dst.get(), capacity, *workspace, verify);
  if (r.status == DeviceChunkStatus::ok) {
    EXPECT_LE(r.size, capacity);
    out.assign(dst.get(), dst.get() + r.size);
  }
  return r;
}

void expect_roundtrip(const Bytes& input, const Params& p, const std::string& what) {
  const Bytes frame = zstd_compress(input, p);
  Bytes out;
  const auto r = decode(frame, input.size(), out);
  ASSERT_EQ(r.status, DeviceChunkStatus::ok) << what;
  ASSERT_EQ(r.size, input.size()) << what;
  ASSERT_TRUE(out == input) << what;
}

std::string describe(const std::string& name, const Params& p) {
  return name + " level " + std::to_string(p.level) + (p.checksum ? " checksum" : "") +
         (p.content_size ? " content-size" : "") +
         (p.window_log ? " windowLog " + std::to_string(p.window_log) : "");
}

TEST(Xxhash64, KnownValues) {
  EXPECT_EQ(gpu::xxh64(nullptr, 0), 0xEF46DB3751D8E999ull);
  // The content checksum of every libzstd frame below checks the other lengths.
}

// The packed, branch-free code tables against RFC 8878, 3.1.1.3.2.1.1, written out.
TEST(ZstdSequenceCodes, BaselinesAndExtraBitsFollowTheRfcTables) {
  const uint32_t ll_base[36] = {0,  1,  2,   3,   4,   5,    6,    7,    8,    9,     10,    11,
                                12, 13, 14,  15,  16,  18,   20,   22,   24,   28,    32,    40,
                                48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
  const uint32_t ll_bits[36] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  1,  1,
                                1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  for (uint32_t code = 0; code < 36; ++code) {
    uint32_t base = 0, bits = 0;
    gpu::zstd_literal_length_code(code, base, bits);
    EXPECT_EQ(base, ll_base[code]) << "literal length code " << code;
    EXPECT_EQ(bits, ll_bits[code]) << "literal length code " << code;
  }
  const uint32_t ml_base_high[21] = {35,  37,  39,  41,   43,   47,   51,   59,    67,    83,   99,
                                     131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539};
  const uint32_t ml_bits_high[21] = {1, 1, 1, 1,  2,  2,  3,  3,  4,  4, 5,
                                     7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  for (uint32_t code = 0; code < 53; ++code) {
    uint32_t base = 0, bits = 0;
    gpu::zstd_match_length_code(code, base, bits);
    EXPECT_EQ(base, code < 32 ? code + 3 : ml_base_high[code - 32]) << "match length code " << code;
    EXPECT_EQ(bits, code < 32 ? 0 : ml_bits_high[code - 32]) << "match length code " << code;
  }
}

TEST(ZstdFrameFormat, DecodesEveryLevelOfEveryFamily) {
  const std::vector<size_t> sizes = {0, 1, 2, 7, 17, 100, 255, 1000, 4099, 65541, 200000};
  const auto inputs = test::input_families(sizes);
  for (int level = -7; level <= 19; ++level) {
    for (const auto& input : inputs) {
      Params p;
      p.level = level;
      p.checksum = (level & 1) != 0;
      p.content_size = (level % 3) != 0;
      expect_roundtrip(input.bytes, p, describe(input.name, p));
      if (HasFatalFailure()) return;
    }
  }
}

TEST(ZstdFrameFormat, DecodesEveryFlagCombination) {
  const auto inputs = test::input_families({0, 5, 1000, 70000, 300000});
  for (int level : {-3, 1, 3, 7, 12, 19}) {
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

TEST(ZstdFrameFormat, DecodesLargeInputs) {
  for (size_t size : {size_t{1} << 20, size_t{5} << 20, size_t{32} << 20}) {
    for (int level : {1, 3}) {
      Params p;
      p.level = level;
      p.checksum = true;
      expect_roundtrip(test::smooth_uint16_input(size, 5), p,
                       describe("smooth_uint16/" + std::to_string(size), p));
      if (HasFatalFailure()) return;
    }
  }
  Params p;
  p.level = 9;
  p.content_size = false;
  expect_roundtrip(test::runs_input(size_t{8} << 20, 6), p, describe("runs/8MiB", p));
  expect_roundtrip(test::random_input(size_t{3} << 20, 7), p, describe("random/3MiB", p));
}

TEST(ZstdFrameFormat, SmallWindowsMakeMatchesCrossBlocks) {
  const auto inputs = test::input_families({size_t{1} << 20});
  for (int window_log : {10, 11, 14, 17}) {
    for (int level : {1, 3, 9, 19}) {
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

TEST(ZstdFrameFormat, DecodesFramesBackToBackAndSkipsSkippableFrames) {
  const auto inputs = test::input_families({0, 3, 5000, 150000});
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
  Bytes out;
  const auto r = decode(stream, expected.size(), out);
  ASSERT_EQ(r.status, DeviceChunkStatus::ok);
  EXPECT_TRUE(out == expected);
  // libzstd agrees on the whole stream.
  Bytes ref(expected.size() + 1);
  EXPECT_EQ(ZSTD_decompress(ref.data(), ref.size(), stream.data(), stream.size()), expected.size());
  // A skippable frame alone is a valid (empty) input; nothing at all is not.
  const Bytes skippable = {0x5F, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 9, 9};
  EXPECT_EQ(decode(skippable, 0, out).status, DeviceChunkStatus::ok);
  EXPECT_EQ(decode({}, 10, out).status, DeviceChunkStatus::corrupt_input);
  // A skippable frame whose size runs past the input.
  const Bytes lying = {0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 9, 9};
  EXPECT_EQ(decode(lying, 10, out).status, DeviceChunkStatus::corrupt_input);
}

/// Inserts a 1-byte dictionary id into a libzstd frame header.
Bytes with_dictionary_id(Bytes frame, unsigned char id) {
  const unsigned char descriptor = frame[4];
  EXPECT_EQ(descriptor & 3u, 0u);
  const size_t at = (descriptor & 0x20u) ? 5 : 6;  // after the window descriptor, if any
  frame[4] = static_cast<unsigned char>(descriptor | 1u);
  frame.insert(frame.begin() + static_cast<std::ptrdiff_t>(at), id);
  return frame;
}

/// libzstd's decoder on `frame` (the reference for hand-made frames).
Bytes libzstd_decode(const Bytes& frame, size_t capacity) {
  Bytes out(capacity + 1);
  const size_t n = ZSTD_decompress(out.data(), capacity, frame.data(), frame.size());
  EXPECT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

// Modes libzstd's encoder rarely picks, in hand-made frames that libzstd's decoder reads the same.
TEST(ZstdFrameFormat, DecodesRareModesLikeLibzstd) {
  // RLE literals (32512 x 'a'), a 3-byte sequence count (0x7F00 sequences), RLE code tables
  // (literal length code 1, offset code 0 = repeat offset 1, match length code 0 = 3 bytes) and
  // a bitstream of no bits: 32512 x (1 literal + a 3-byte match at distance 1).
  const Bytes rle = {0x28, 0xB5, 0x2F, 0xFD, 0xA0, 0x00, 0xFC, 0x01, 0x00,  // FCS 130048
                     0x65, 0x00, 0x00,                                      // compressed, 12 B
                     0x0D, 0xF0, 0x07, 'a',                                 // RLE literals
                     0xFF, 0x00, 0x00, 0x54, 0x01, 0x00, 0x00, 0x01};       // sequences
  Bytes out;
  auto r = decode(rle, 130048, out);
  ASSERT_EQ(r.status, DeviceChunkStatus::ok);
  EXPECT_EQ(out, Bytes(130048, 'a'));
  EXPECT_EQ(out, libzstd_decode(rle, 130048));
  // Huffman weights in the direct 4-bit representation (symbols 0 and 1, 1 bit each), one
  // stream; then a treeless block that reuses the table.
  const Bytes direct = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x0C,              // single segment, FCS 12
                        0x44, 0x00, 0x00,                                // compressed block, 8 B
                        0x82, 0x00, 0x01, 0x80, 0x10, 0x69, 0x01, 0x00,  // 8 literals, 0 seqs
                        0x2D, 0x00, 0x00,               // last compressed block, 5 B
                        0x43, 0x40, 0x00, 0x1E, 0x00};  // 4 treeless literals, 0 seqs
  const Bytes expected = {0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 0};
  r = decode(direct, 12, out);
  ASSERT_EQ(r.status, DeviceChunkStatus::ok);
  EXPECT_EQ(out, expected);
  EXPECT_EQ(out, libzstd_decode(direct, 12));
  // Treeless literals in a frame's first compressed block have no table to reuse.
  Bytes orphan = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x04, 0x2D,
                  0x00, 0x00, 0x43, 0x40, 0x00, 0x1E, 0x00};
  EXPECT_EQ(decode(orphan, 12, out).status, DeviceChunkStatus::corrupt_input);
  // Tables do not survive into the next frame: the same pair of blocks split over two frames.
  Bytes split = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x08, 0x45, 0x00, 0x00,
                 0x82, 0x00, 0x01, 0x80, 0x10, 0x69, 0x01, 0x00};
  split.insert(split.end(), orphan.begin(), orphan.end());
  EXPECT_EQ(decode(split, 12, out).status, DeviceChunkStatus::corrupt_input);
}

TEST(ZstdFrameFormat, RefusesFramesNamingADictionary) {
  const Bytes input = test::runs_input(50000, 3);
  for (bool content_size : {false, true}) {
    Params p;
    p.content_size = content_size;
    const Bytes frame = zstd_compress(input, p);
    Bytes out;
    EXPECT_EQ(decode(with_dictionary_id(frame, 42), input.size(), out).status,
              DeviceChunkStatus::unsupported);
    // Dictionary id 0 means "no dictionary".
    const auto r = decode(with_dictionary_id(frame, 0), input.size(), out);
    ASSERT_EQ(r.status, DeviceChunkStatus::ok);
    EXPECT_TRUE(out == input);
  }
}

TEST(ZstdFrameFormat, LeavesWindowsLargerThanLibzstdsToTheCpu) {
  const Bytes input = test::runs_input(50000, 5);
  Params p;
  p.content_size = false;  // a Window_Descriptor follows the frame header descriptor
  Bytes frame = zstd_compress(input, p);
  ASSERT_EQ(frame[4] & 0x20u, 0u);
  Bytes out;
  // Window_Log 31 (exponent 21): the largest libzstd decodes; the content needs far less.
  frame[5] = static_cast<unsigned char>(21u << 3);
  const auto ok = decode(frame, input.size(), out);
  ASSERT_EQ(ok.status, DeviceChunkStatus::ok);
  EXPECT_TRUE(out == input);
  EXPECT_EQ(libzstd_decode(frame, input.size()), input);
  // Window_Log 32 and more: libzstd refuses the frame; here it is unsupported (the CPU's call).
  for (unsigned exponent : {22u, 30u, 31u}) {
    frame[5] = static_cast<unsigned char>(exponent << 3 | 7u);
    EXPECT_EQ(decode(frame, input.size(), out).status, DeviceChunkStatus::unsupported);
    Bytes refused(input.size());
    EXPECT_TRUE(
        ZSTD_isError(ZSTD_decompress(refused.data(), refused.size(), frame.data(), frame.size())));
  }
}

TEST(ZstdFrameFormat, ReportsOutputTooSmall) {
  const Bytes input = test::smooth_float32_input(100000, 4);
  for (bool content_size : {false, true}) {
    Params p;
    p.content_size = content_size;
    const Bytes frame = zstd_compress(input, p);
    Bytes out;
    for (size_t capacity : {size_t{0}, size_t{1}, input.size() / 2, input.size() - 1}) {
      EXPECT_EQ(decode(frame, capacity, out).status, DeviceChunkStatus::output_too_small)
          << capacity;
    }
    EXPECT_EQ(decode(frame, input.size() + 100, out).status, DeviceChunkStatus::ok);
    EXPECT_TRUE(out == input);
  }
}

TEST(ZstdFrameFormat, VerifiesTheContentChecksumUnlessAskedNotTo) {
  const Bytes input = test::runs_input(70000, 8);
  Params p;
  p.checksum = true;
  Bytes frame = zstd_compress(input, p);
  frame[frame.size() - 2] ^= 0x10;
  Bytes out;
  EXPECT_EQ(decode(frame, input.size(), out).status, DeviceChunkStatus::checksum_mismatch);
  const auto r = decode(frame, input.size(), out, /*verify=*/false);
  ASSERT_EQ(r.status, DeviceChunkStatus::ok);
  EXPECT_TRUE(out == input);
}

TEST(ZstdFrameFormat, RejectsLyingHeaders) {
  const Bytes input = test::smooth_uint16_input(30000, 9);
  Params p;
  p.content_size = true;
  const Bytes frame = zstd_compress(input, p);
  Bytes out;
  // Frame_Content_Size (2 bytes here: value - 256) one more or less than the content.
  ASSERT_EQ(frame[4] >> 6, 1);
  const size_t fcs_at = (frame[4] & 0x20u) ? 5 : 6;
  for (int delta : {-1, 1}) {
    Bytes lie = frame;
    const int value = lie[fcs_at] | lie[fcs_at + 1] << 8;
    lie[fcs_at] = static_cast<unsigned char>(value + delta);
    lie[fcs_at + 1] = static_cast<unsigned char>((value + delta) >> 8);
    EXPECT_EQ(decode(lie, input.size() + 10, out).status, DeviceChunkStatus::corrupt_input);
  }
  // The reserved descriptor bit; a reserved block type; a bad magic number.
  Bytes lie = frame;
  lie[4] |= 0x08;
  EXPECT_EQ(decode(lie, input.size(), out).status, DeviceChunkStatus::corrupt_input);
  const size_t block_at = fcs_at + 2;
  lie = frame;
  lie[block_at] |= 0x06;
  EXPECT_EQ(decode(lie, input.size(), out).status, DeviceChunkStatus::corrupt_input);
  lie = frame;
  lie[0] ^= 1;
  EXPECT_EQ(decode(lie, input.size(), out).status, DeviceChunkStatus::corrupt_input);
  // A block size past the end of the input, and one above Block_Maximum_Size.
  for (uint32_t size : {uint32_t{100000}, uint32_t{(1u << 21) - 1}}) {
    lie = frame;
    const uint32_t header = (lie[block_at] & 7u) | (size << 3);
    lie[block_at] = static_cast<unsigned char>(header);
    lie[block_at + 1] = static_cast<unsigned char>(header >> 8);
    lie[block_at + 2] = static_cast<unsigned char>(header >> 16);
    EXPECT_EQ(decode(lie, input.size(), out).status, DeviceChunkStatus::corrupt_input);
  }
  // An RLE block larger than a small window's Block_Maximum_Size (window 1 KiB).
  const Bytes rle = {0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00, 0x03, 0x20, 0x00, 0x7A};  // 1024 B
  const auto ok = decode(rle, 5000, out);
  ASSERT_EQ(ok.status, DeviceChunkStatus::ok);
  EXPECT_EQ(out, Bytes(1024, 0x7A));
  Bytes big = rle;
  big[6] = 0x0B;  // 1025 bytes
  EXPECT_EQ(decode(big, 5000, out).status, DeviceChunkStatus::corrupt_input);
}

TEST(ZstdFrameFormat, RejectsEveryTruncation) {
  const auto inputs = test::input_families({1, 300, 5000, 100000});
  int level = -2;
  for (const auto& input : inputs) {
    Params p;
    p.level = level;
    level = level >= 15 ? -2 : level + 3;
    p.checksum = input.bytes.size() % 2 == 0;
    const Bytes frame = zstd_compress(input.bytes, p);
    const size_t step = frame.size() > 2000 ? frame.size() / 500 : 1;
    for (size_t cut = 0; cut < frame.size(); cut += step) {
      const Bytes part(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(cut));
      Bytes out;
      EXPECT_NE(decode(part, input.bytes.size(), out).status, DeviceChunkStatus::ok)
          << input.name << " cut at " << cut << " of " << frame.size();
    }
  }
}

TEST(ZstdFrameFormat, DamagedFramesNeverOverrunAndAgreeWithLibzstd) {
  const auto inputs = test::input_families({64, 3000, 40000});
  int both_ok = 0, rejected = 0;
  for (const auto& input : inputs) {
    for (int level : {-5, 1, 3, 19}) {
      Params p;
      p.level = level;
      p.checksum = level != 3;
      const Bytes frame = zstd_compress(input.bytes, p);
      std::mt19937 rng(static_cast<uint32_t>(frame.size() * 31 + static_cast<size_t>(level + 7)));
      for (int trial = 0; trial < 60; ++trial) {
        Bytes damaged = frame;
        const int hits = 1 + static_cast<int>(rng() % 3);
        for (int h = 0; h < hits; ++h) {
          const size_t at = rng() % damaged.size();
          damaged[at] =
              static_cast<unsigned char>(trial % 2 ? rng() : damaged[at] ^ (1u << (rng() % 8)));
        }
        const size_t capacity = input.bytes.size() + (trial % 3 == 0 ? 1000 : 0);
        Bytes out;
        const auto r = decode(damaged, capacity, out);
        Bytes ref(capacity + 1);
        const size_t n = ZSTD_decompress(ref.data(), capacity, damaged.data(), damaged.size());
        if (r.status == DeviceChunkStatus::ok && !ZSTD_isError(n)) {
          ++both_ok;
          ref.resize(n);
          EXPECT_TRUE(out == ref) << input.name << " level " << level << " trial " << trial;
        } else if (r.status != DeviceChunkStatus::ok) {
          ++rejected;
        }
      }
    }
  }
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(both_ok, 0);
}

TEST(ZstdFrameFormat, RandomBytesNeverOverrun) {
  std::mt19937 rng(123);
  for (int trial = 0; trial < 3000; ++trial) {
    // A valid magic number and descriptor, then noise: reaches the block and entropy parsers.
    Bytes junk = test::random_input(5 + rng() % 400, static_cast<uint32_t>(trial));
    junk[0] = 0x28;
    junk[1] = 0xB5;
    junk[2] = 0x2F;
    junk[3] = 0xFD;
    junk[4] &= 0xF4;  // no dictionary, reserved bit clear
    Bytes out;
    const auto r = decode(junk, 1 + rng() % 5000, out);
    if (r.status == DeviceChunkStatus::ok) {
      EXPECT_LE(r.size, 5000u);
    }
  }
}

}  // namespace
}  // namespace cuzarr
