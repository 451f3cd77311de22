// The lane logic of the fast GPU bit shuffle (bitshuffle_lanes.hpp), run on the CPU by a model of
// the kernel's warp steps (every lane, the shared staging area, the element-side copies) and
// compared byte for byte with the serial reference of bitshuffle_format.hpp.
#include "codec/cuda/bitshuffle_lanes.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

#include "codec/cuda/bitshuffle_format.hpp"
#include "gpu_codec_inputs.hpp"

namespace cuzarr {
namespace {

using Bytes = std::vector<unsigned char>;

TEST(BitshuffleLanes, TransposeMovesEveryBitToItsMirror) {
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 8; ++c) {
      const uint64_t one = uint64_t{1} << (8 * r + c);
      EXPECT_EQ(gpu::transpose_bits_8x8(one), uint64_t{1} << (8 * c + r)) << r << "," << c;
    }
  }
  const uint64_t x = 0x0123456789ABCDEFull;
  EXPECT_EQ(gpu::transpose_bits_8x8(gpu::transpose_bits_8x8(x)), x);
}

template <uint32_t TS>
void stage_index_is_one_to_one() {
  std::set<uint32_t> seen;
  for (uint32_t w = 0; w < 32 * 8 * TS; ++w) {
    const uint32_t at = gpu::bitshuffle_stage_index<TS>(w);
    EXPECT_LT(at, gpu::bitshuffle_stage_words<TS>());
    EXPECT_TRUE(seen.insert(at).second) << w;
  }
  // Lane l's word i (l = 0..31) falls in 32 different banks.
  for (uint32_t i = 0; i < 8 * TS; ++i) {
    std::set<uint32_t> banks;
    for (uint32_t l = 0; l < 32; ++l)
      banks.insert(gpu::bitshuffle_stage_index<TS>(l * 8 * TS + i) % 32);
    EXPECT_EQ(banks.size(), 32u) << "TS " << TS << " word " << i;
  }
}

TEST(BitshuffleLanes, StageIndexIsOneToOneAndFreeOfBankConflicts) {
  stage_index_is_one_to_one<1>();
  stage_index_is_one_to_one<2>();
  stage_index_is_one_to_one<4>();
  stage_index_is_one_to_one<8>();
}

// The kernel's warp steps, lane by lane (as warps_bitshuffle_staged in bitshuffle_device.cuh).
template <uint32_t TS, bool kForward>
void model_warp_steps(const unsigned char* src, unsigned char* dst, uint64_t size) {
  const uint64_t n = size / TS;
  const uint64_t row_bytes = n / 8;
  const uint64_t steps = (n + gpu::kBitshuffleStepElements - 1) / gpu::kBitshuffleStepElements;
  std::vector<uint32_t> stage(gpu::bitshuffle_stage_words<TS>(), 0xDEADBEEFu);
  for (uint64_t s = 0; s < steps; ++s) {
    const uint64_t first = s * gpu::kBitshuffleStepElements;
    const auto step_words =
        static_cast<uint32_t>(std::min<uint64_t>(gpu::kBitshuffleStepElements, n - first) * TS / 4);
    ASSERT_EQ(std::min<uint64_t>(gpu::kBitshuffleStepElements, n - first) * TS % 4, 0u);
    if (kForward) {
      for (uint32_t w = 0; w < step_words; ++w) {
        std::memcpy(&stage[gpu::bitshuffle_stage_index<TS>(w)], src + first * TS + 4 * w, 4);
      }
      for (unsigned lane = 0; lane < 32; ++lane) {
        uint32_t words[8 * TS];
        for (uint32_t i = 0; i < 8 * TS; ++i)
          words[i] = stage[gpu::bitshuffle_stage_index<TS>(lane * 8 * TS + i)];
        gpu::bitshuffle_lane<TS>(words, dst, row_bytes,
                                 gpu::bitshuffle_lane_span(row_bytes, s, lane), true);
      }
    } else {
      for (unsigned lane = 0; lane < 32; ++lane) {
        uint32_t words[8 * TS];
        gpu::bitunshuffle_lane<TS>(src, row_bytes, gpu::bitshuffle_lane_span(row_bytes, s, lane),
                                   true, words);
        for (uint32_t i = 0; i < 8 * TS; ++i)
          stage[gpu::bitshuffle_stage_index<TS>(lane * 8 * TS + i)] = words[i];
      }
      for (uint32_t w = 0; w < step_words; ++w) {
        std::memcpy(dst + first * TS + 4 * w, &stage[gpu::bitshuffle_stage_index<TS>(w)], 4);
      }
    }
  }
  for (uint64_t x = n * TS; x < size; ++x) dst[x] = src[x];
}

template <uint32_t TS>
void check_type_size() {
  std::vector<size_t> sizes = test::small_sizes();
  for (size_t extra : {size_t{8 * TS * 1023}, size_t{8 * TS * 1025}, size_t{8 * TS * 4100 + 3}})
    sizes.push_back(extra);
  for (const auto& input : test::input_families(sizes)) {
    const Bytes& in = input.bytes;
    if (!gpu::bitshuffle_transposes(in.size(), TS)) continue;  // the kernel copies these
    Bytes expected(in.size()), got(in.size(), 0xAB);
    gpu::bitshuffle_bytes(in.data(), expected.data(), in.size(), TS);
    model_warp_steps<TS, true>(in.data(), got.data(), in.size());
    ASSERT_EQ(got, expected) << "shuffle " << input.name << " TS " << TS;
    Bytes back(in.size(), 0xCD);
    gpu::bitunshuffle_bytes(in.data(), expected.data(), in.size(), TS);
    model_warp_steps<TS, false>(in.data(), back.data(), in.size());
    ASSERT_EQ(back, expected) << "unshuffle " << input.name << " TS " << TS;
  }
}

TEST(BitshuffleLanes, WarpStepsMatchTheReferenceForEveryFastTypeSize) {
  check_type_size<1>();
  check_type_size<2>();
  check_type_size<4>();
  check_type_size<8>();
}

TEST(BitshuffleLanes, LaneSpansCoverEveryRowByteOnce) {
  for (uint64_t row_bytes :
       {uint64_t{1}, uint64_t{3}, uint64_t{128}, uint64_t{129}, uint64_t{1000}}) {
    std::vector<int> hits(row_bytes, 0);
    const uint64_t steps = (row_bytes + 127) / 128;
    for (uint64_t s = 0; s < steps; ++s) {
      for (unsigned lane = 0; lane < 32; ++lane) {
        const auto span = gpu::bitshuffle_lane_span(row_bytes, s, lane);
        for (uint32_t c = 0; c < span.columns; ++c) ++hits[span.column + c];
      }
    }
    for (uint64_t c = 0; c < row_bytes; ++c) EXPECT_EQ(hits[c], 1) << row_bytes << " " << c;
  }
}

}  // namespace
}  // namespace cuzarr
