// The LZ4 block logic the GPU kernels run, checked on the CPU: decoding liblz4's output (fast and
// HC), encoding what LZ4_decompress_safe reads back, the numcodecs.lz4 framing against the
// NumcodecsLz4Codec class, and corrupt / truncated / hostile blocks (an error, never an access
// outside the given buffers: these tests also run under AddressSanitizer).
#include "codec/cuda/lz4_block_format.hpp"

#include <gtest/gtest.h>
#include <lz4.h>

#include <cstring>
#include <random>
#include <vector>

#include "codec_test_calls.hpp"
#include "cuzarr/codec/numcodecs_lz4_codec.hpp"
#include "gpu_codec_inputs.hpp"
#include "liblz4_blocks.hpp"

namespace cuzarr {
namespace {

using gpu::DeviceChunkStatus;
using Bytes = std::vector<unsigned char>;

using test::liblz4_compress;

// Decodes into a buffer of exactly `capacity` bytes (heap-allocated, so ASan sees overruns).
gpu::DecodeResult decode(const Bytes& block, size_t capacity, Bytes& out) {
  out.assign(capacity, 0xEE);
  auto in = std::make_unique<unsigned char[]>(block.size() + 1);  // +1: non-null for size 0
  if (!block.empty()) std::memcpy(in.get(), block.data(), block.size());
  return gpu::lz4_decode_block_serial(in.get(), block.size(), out.data(), capacity);
}

Bytes encode(const Bytes& in, uint32_t acceleration = 1) {
  Bytes out(gpu::lz4_encode_bound(in.size()));
  std::vector<uint32_t> table(gpu::kLz4HashEntries);
  const uint64_t n = gpu::lz4_encode_block(in.data(), in.size(), out.data(), out.size(),
                                           table.data(), acceleration);
  EXPECT_GT(n, 0u);
  out.resize(n);
  return out;
}

TEST(Lz4BlockFormat, DecodesLiblz4OutputOfEveryFamily) {
  for (const auto& input : test::input_families(test::small_sizes())) {
    for (int variant = 0; variant < 3; ++variant) {
      const Bytes block = variant == 0   ? liblz4_compress(input.bytes, 1)
                          : variant == 1 ? liblz4_compress(input.bytes, 20)
                                         : liblz4_compress(input.bytes, 1, 12);
      Bytes out;
      const auto r = decode(block, input.bytes.size(), out);
      ASSERT_EQ(r.status, DeviceChunkStatus::ok) << input.name << " variant " << variant;
      ASSERT_EQ(r.size, input.bytes.size());
      ASSERT_EQ(out, input.bytes) << input.name << " variant " << variant;
    }
  }
}

TEST(Lz4BlockFormat, DecodesA16MiBBlock) {
  const Bytes input = test::smooth_uint16_input(16 << 20, 77);
  Bytes out;
  const auto r = decode(liblz4_compress(input, 1), input.size(), out);
  ASSERT_EQ(r.status, DeviceChunkStatus::ok);
  EXPECT_EQ(out, input);
}

TEST(Lz4BlockFormat, EncoderOutputDecodesWithLiblz4) {
  auto sizes = test::small_sizes();
  sizes.push_back(16 << 20);
  for (const auto& input : test::input_families(sizes)) {
    const Bytes block = encode(input.bytes);
    ASSERT_LE(block.size(), gpu::lz4_encode_bound(input.bytes.size()));
    Bytes out(input.bytes.size() + 1);
    const int n = LZ4_decompress_safe(
        reinterpret_cast<const char*>(block.data()), reinterpret_cast<char*>(out.data()),
        static_cast<int>(block.size()), static_cast<int>(input.bytes.size()));
    ASSERT_EQ(n, static_cast<int>(input.bytes.size())) << input.name;
    out.resize(input.bytes.size());
    ASSERT_EQ(out, input.bytes) << input.name;
    if (input.name.rfind("zeros", 0) == 0 && input.bytes.size() >= 65536) {
      EXPECT_LT(block.size() * 100, input.bytes.size()) << input.name;  // compresses well
    }
  }
}

// The encoder searches as LZ4_compress_default does: the same blocks, byte for byte, on both
// sides of its small-block limit (64 KiB + 11: a 4-byte hash into 2^13 entries below it, a 5-byte
// hash into 2^12 above it), so that chunks written on the GPU are those the CPU writes.
TEST(Lz4BlockFormat, EncoderWritesWhatLiblz4Writes) {
  auto sizes = test::small_sizes();
  for (size_t size : {size_t{65535}, size_t{65546}, size_t{65547}, size_t{65548}, size_t{200000},
                      size_t{4} << 20}) {
    sizes.push_back(size);
  }
  for (const auto& input : test::input_families(sizes)) {
    ASSERT_EQ(encode(input.bytes), liblz4_compress(input.bytes)) << input.name;
  }
  // And LZ4_compress_fast's with its acceleration (c-blosc's lz4 streams: 10 - clevel).
  for (const auto& input : test::input_families({1000, 65546, 65548, 300000})) {
    for (const uint32_t acceleration : {0u, 2u, 5u, 9u, 100u}) {
      ASSERT_EQ(encode(input.bytes, acceleration),
                liblz4_compress(input.bytes, static_cast<int>(acceleration)))
          << input.name << " acceleration " << acceleration;
    }
  }
}

TEST(Lz4BlockFormat, EncoderReportsWhatDoesNotFit) {
  const Bytes input = test::random_input(10000, 3);
  Bytes out(9000);
  std::vector<uint32_t> table(gpu::kLz4HashEntries);
  EXPECT_EQ(gpu::lz4_encode_block(input.data(), input.size(), out.data(), out.size(), table.data()),
            0u);
}

TEST(Lz4BlockFormat, MatchesOverlappingTheirOutputRepeatWithTheirDistance) {
  // Literals "abc", then a match of 10 bytes at distance 3 (overlapping), then literal "Z".
  const Bytes block = {0x36, 'a', 'b', 'c', 0x03, 0x00, 0x10, 'Z'};
  Bytes out;
  const auto r = decode(block, 14, out);
  ASSERT_EQ(r.status, DeviceChunkStatus::ok);
  EXPECT_EQ(std::string(out.begin(), out.end()), "abcabcabcabcaZ");
}

TEST(Lz4BlockFormat, RejectsHostileBlocks) {
  Bytes out;
  EXPECT_EQ(decode({}, 10, out).status, DeviceChunkStatus::corrupt_input);  // empty
  EXPECT_EQ(decode({0x10, 'a', 0, 0}, 10, out).status,
            DeviceChunkStatus::corrupt_input);  // offset 0
  EXPECT_EQ(decode({0x10, 'a', 2, 0, 0x00}, 10, out).status,
            DeviceChunkStatus::corrupt_input);  // offset before the output start
  EXPECT_EQ(decode({0x10, 'a', 1}, 10, out).status,
            DeviceChunkStatus::corrupt_input);  // 1-byte offset
  EXPECT_EQ(decode({0xF0, 255, 255}, 10, out).status,
            DeviceChunkStatus::corrupt_input);  // length runs out
  EXPECT_EQ(decode({0x50, 'a', 'b'}, 10, out).status,
            DeviceChunkStatus::corrupt_input);  // short literals
  EXPECT_EQ(decode({0x30, 'a', 'b', 'c'}, 2, out).status, DeviceChunkStatus::output_too_small);
  EXPECT_EQ(decode({0x1F, 'a', 1, 0, 255, 255, 10, 0x00}, 100, out).status,
            DeviceChunkStatus::output_too_small);  // match longer than the output
}

// Truncations and random corruptions of real blocks: never out of bounds (ASan), and whenever
// both decoders accept the block, the same bytes.
TEST(Lz4BlockFormat, CorruptedBlocksNeverOverrunAndAgreeWithLiblz4) {
  std::mt19937 rng(11);
  int both_accepted = 0;
  for (const auto& input : test::input_families({100, 1000, 70000})) {
    const Bytes block = liblz4_compress(input.bytes, 1);
    for (int trial = 0; trial < 200; ++trial) {
      Bytes damaged = block;
      if (trial % 3 == 0) {
        damaged.resize(rng() % damaged.size());
      } else {
        for (int k = 0; k <= trial % 4; ++k)
          damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
      }
      const size_t capacity = input.bytes.size() - (trial % 5 == 0 ? rng() % 10 : 0);
      Bytes out;
      const auto r = decode(damaged, capacity, out);
      ASSERT_LE(r.size, capacity);
      Bytes expected(capacity + 1);
      const int n = LZ4_decompress_safe(
          reinterpret_cast<const char*>(damaged.data()), reinterpret_cast<char*>(expected.data()),
          static_cast<int>(damaged.size()), static_cast<int>(capacity));
      // liblz4 also accepts offset 0, which the block format calls invalid and we reject, so
      // only blocks both accept must agree.
      if (n >= 0 && r.status == DeviceChunkStatus::ok) {
        ++both_accepted;
        ASSERT_EQ(r.size, static_cast<uint64_t>(n)) << input.name << " trial " << trial;
        ASSERT_TRUE(std::equal(out.begin(), out.begin() + n, expected.begin()));
      }
    }
  }
  EXPECT_GT(both_accepted, 50);  // the comparison saw real cases
}

TEST(Lz4BlockFormat, NumcodecsFramingMatchesTheCpuCodec) {
  NumcodecsLz4Codec codec(1);
  for (const auto& input : test::input_families({0, 1, 100, 65536, 1 << 20})) {
    Buffer buffer = Buffer::allocate(input.bytes.size());
    if (!input.bytes.empty()) std::memcpy(buffer.data(), input.bytes.data(), input.bytes.size());
    const auto encoded = test::encode_one(codec, buffer, {});
    ASSERT_TRUE(encoded.status.ok);
    Bytes framed(encoded.bytes.size());
    std::memcpy(framed.data(), encoded.bytes.data(), framed.size());
    Bytes out(input.bytes.size());
    const auto r =
        gpu::numcodecs_lz4_decode_serial(framed.data(), framed.size(), out.data(), out.size());
    ASSERT_EQ(r.status, DeviceChunkStatus::ok) << input.name;
    EXPECT_EQ(out, input.bytes) << input.name;
    // Our framing (header + our block) decodes with the CPU codec.
    Bytes ours(4);
    gpu::store_le32(ours.data(), static_cast<uint32_t>(input.bytes.size()));
    const Bytes block = encode(input.bytes);
    ours.insert(ours.end(), block.begin(), block.end());
    Buffer ours_buffer = Buffer::allocate(ours.size());
    std::memcpy(ours_buffer.data(), ours.data(), ours.size());
    const auto decoded = test::decode_one(codec, ours_buffer, {});
    ASSERT_TRUE(decoded.status.ok) << decoded.status.message;
    ASSERT_EQ(decoded.bytes.size(), input.bytes.size());
    EXPECT_TRUE(input.bytes.empty() ||
                std::memcmp(decoded.bytes.data(), input.bytes.data(), input.bytes.size()) == 0);
  }
}

TEST(Lz4BlockFormat, NumcodecsFramingRejectsDisagreeingHeaders) {
  const Bytes input = test::runs_input(1000, 2);
  const Bytes block = encode(input);
  Bytes framed(4);
  gpu::store_le32(framed.data(), 999);  // one byte less than the block holds
  framed.insert(framed.end(), block.begin(), block.end());
  Bytes out(2000);
  EXPECT_EQ(
      gpu::numcodecs_lz4_decode_serial(framed.data(), framed.size(), out.data(), out.size()).status,
      DeviceChunkStatus::corrupt_input);
  gpu::store_le32(framed.data(), 1001);
  EXPECT_EQ(
      gpu::numcodecs_lz4_decode_serial(framed.data(), framed.size(), out.data(), out.size()).status,
      DeviceChunkStatus::corrupt_input);
  gpu::store_le32(framed.data(), 1000);
  EXPECT_EQ(gpu::numcodecs_lz4_decode_serial(framed.data(), framed.size(), out.data(), 999).status,
            DeviceChunkStatus::output_too_small);
  EXPECT_EQ(gpu::numcodecs_lz4_decode_serial(framed.data(), 3, out.data(), out.size()).status,
            DeviceChunkStatus::corrupt_input);
}

}  // namespace
}  // namespace cuzarr
