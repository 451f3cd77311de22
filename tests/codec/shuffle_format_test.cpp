// The byte- and bit-shuffle logic the GPU kernels run, checked on the CPU: byte shuffle against the
// numcodecs.shuffle codec, bit shuffle against an independent bit-by-bit model of c-blosc's
// layout (and, through the blosc decoder tests, against c-blosc itself), and both round trips.
#include "codec/cuda/shuffle_format.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "codec/cuda/bitshuffle_format.hpp"
#include "codec_test_calls.hpp"
#include "cuzarr/codec/numcodecs_shuffle_codec.hpp"
#include "gpu_codec_inputs.hpp"

namespace cuzarr {
namespace {

using gpu::bitshuffle_bytes;
using gpu::bitunshuffle_bytes;
using gpu::shuffle_bytes;
using gpu::unshuffle_bytes;

std::vector<unsigned char> shuffled(const std::vector<unsigned char>& in, uint32_t typesize) {
  std::vector<unsigned char> out(in.size());
  shuffle_bytes(in.data(), out.data(), in.size(), typesize);
  return out;
}

TEST(ShuffleFormat, MatchesNumcodecsShuffleForEveryTypeSize) {
  for (uint32_t typesize : {1u, 2u, 3u, 4u, 5u, 8u, 16u, 17u, 255u}) {
    NumcodecsShuffleCodec codec(typesize);
    for (size_t elements : {size_t{0}, size_t{1}, size_t{7}, size_t{129}, size_t{4000}}) {
      const auto input = test::random_input(elements * typesize, typesize * 31 + elements);
      Buffer buffer = Buffer::allocate(input.size());
      if (!input.empty()) std::memcpy(buffer.data(), input.data(), input.size());
      const auto expected = test::encode_one(codec, buffer, {});
      ASSERT_TRUE(expected.status.ok);
      const auto got = shuffled(input, typesize);
      ASSERT_EQ(got.size(), expected.bytes.size());
      EXPECT_TRUE(got.empty() || std::memcmp(got.data(), expected.bytes.data(), got.size()) == 0)
          << "typesize " << typesize << ", " << elements << " elements";
    }
  }
}

TEST(ShuffleFormat, LeftoverBytesStayInPlace) {
  // 3 elements of 4 bytes plus 3 leftover bytes: c-blosc shuffles 12 bytes and copies 3.
  std::vector<unsigned char> in(15);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i);
  const std::vector<unsigned char> expected = {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11, 12, 13, 14};
  EXPECT_EQ(shuffled(in, 4), expected);
}

TEST(ShuffleFormat, RoundTripsEveryFamilyAndTypeSize) {
  for (const auto& input : test::input_families(test::small_sizes())) {
    for (uint32_t typesize : {1u, 2u, 4u, 7u, 8u, 16u}) {
      const auto s = shuffled(input.bytes, typesize);
      std::vector<unsigned char> back(s.size());
      unshuffle_bytes(s.data(), back.data(), s.size(), typesize);
      ASSERT_EQ(back, input.bytes) << input.name << " typesize " << typesize;
    }
  }
}

// Independent model: bit k of byte j of element i lands at bit i % 8 of byte
// (j * 8 + k) * (n / 8) + i / 8 (c-blosc's bitshuffle); non-multiples of 8 elements are copied.
std::vector<unsigned char> bitshuffle_model(const std::vector<unsigned char>& in,
                                            uint32_t typesize) {
  const size_t n = in.size() / typesize;
  std::vector<unsigned char> out = in;
  if (n % 8 != 0) return out;
  for (size_t b = 0; b < n * typesize; ++b) out[b] = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < typesize; ++j) {
      for (unsigned k = 0; k < 8; ++k) {
        const unsigned bit = (in[i * typesize + j] >> k) & 1u;
        out[(j * 8 + k) * (n / 8) + i / 8] |= static_cast<unsigned char>(bit << (i % 8));
      }
    }
  }
  return out;
}

TEST(BitshuffleFormat, MatchesTheBitLayoutModel) {
  for (uint32_t typesize : {1u, 2u, 3u, 4u, 8u, 12u, 16u}) {
    for (size_t elements : {size_t{0}, size_t{7}, size_t{8}, size_t{16}, size_t{24}, size_t{1000},
                            size_t{1024}, size_t{4096}}) {
      for (size_t extra : {size_t{0}, size_t{1}}) {
        if (extra >= typesize) continue;
        const auto in = test::random_input(elements * typesize + extra, 7 * typesize + elements);
        std::vector<unsigned char> got(in.size());
        bitshuffle_bytes(in.data(), got.data(), in.size(), typesize);
        ASSERT_EQ(got, bitshuffle_model(in, typesize))
            << "typesize " << typesize << ", " << elements << " elements + " << extra;
        std::vector<unsigned char> back(in.size());
        bitunshuffle_bytes(got.data(), back.data(), got.size(), typesize);
        ASSERT_EQ(back, in);
      }
    }
  }
}

TEST(BitshuffleFormat, OnlyMultiplesOfEightElementsAreTransposed) {
  EXPECT_TRUE(gpu::bitshuffle_transposes(64, 8));   // 8 elements
  EXPECT_TRUE(gpu::bitshuffle_transposes(67, 8));   // 8 elements + 3 leftover bytes
  EXPECT_FALSE(gpu::bitshuffle_transposes(56, 8));  // 7 elements: copied verbatim
  EXPECT_TRUE(gpu::bitshuffle_transposes(0, 4));
  const auto in = test::random_input(7 * 4, 5);
  std::vector<unsigned char> got(in.size());
  bitshuffle_bytes(in.data(), got.data(), in.size(), 4);
  EXPECT_EQ(got, in);
}

TEST(BitshuffleFormat, RoundTripsEveryFamily) {
  for (const auto& input : test::input_families(test::small_sizes())) {
    for (uint32_t typesize : {1u, 2u, 4u, 8u}) {
      std::vector<unsigned char> s(input.bytes.size()), back(input.bytes.size());
      bitshuffle_bytes(input.bytes.data(), s.data(), s.size(), typesize);
      bitunshuffle_bytes(s.data(), back.data(), s.size(), typesize);
      ASSERT_EQ(back, input.bytes) << input.name << " typesize " << typesize;
    }
  }
}

}  // namespace
}  // namespace cuzarr
