// The split LZ4 decoder (lz4_decode_batch_split; lz4_split_decode.hpp) against liblz4's input and
// the serial decoder: large blocks of several families, levels and sizes (2 to 8 MiB, 2 to 8
// parts), the numcodecs.lz4 framing on unaligned buffers, raw blocks with room to spare in their
// capacity, batches mixing small chunks, and damaged blocks, which must get the serial decoder's
// status (run under compute-sanitizer to check the bounds). The split's own verdict (handled) is
// checked too: the compressible blocks it was built for must be decoded by it, not left to the
// team decoder.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_kernels.hpp"
#include "codec/cuda/lz4_split_decode.hpp"
#include "gpu_batch_support.hpp"
#include "gpu_codec_inputs.hpp"
#include "liblz4_blocks.hpp"
#include "quantized_field_inputs.hpp"

namespace cuzarr {
namespace {

using gpu::DeviceChunkStatus;
using test::DeviceBatch;
using test::DeviceMemory;
using Bytes = std::vector<unsigned char>;
using Chunks = std::vector<Bytes>;

class GpuLz4SplitDecode : public test::GpuCodecTest {};

uint64_t max_of(const std::vector<uint64_t>& v) { return *std::max_element(v.begin(), v.end()); }

/// The forced split (lz4_decode_batch_split): split where it can, the team decoder for the rest.
void decode_split(const DeviceBatch& batch, const std::vector<uint64_t>& capacities,
                  bool numcodecs) {
  const uint64_t max_output = max_of(capacities);
  DeviceMemory temp(gpu::lz4_decode_split_temp_bytes(capacities.size(), max_output));
  if (numcodecs) {
    gpu::numcodecs_lz4_decode_batch_split(batch.batch(), max_output, temp.get(), Stream());
  } else {
    gpu::lz4_decode_batch_split(batch.batch(), max_output, temp.get(), Stream());
  }
  test::cuda_ok(cudaDeviceSynchronize());
}

/// The split alone: which chunks it decoded (their statuses and outputs are written).
std::vector<uint32_t> split_only(const DeviceBatch& batch, const std::vector<uint64_t>& capacities,
                                 bool numcodecs) {
  const uint64_t max_output = max_of(capacities);
  DeviceMemory temp(gpu::detail::lz4_split_temp_bytes(capacities.size(), max_output));
  const uint32_t* handled = gpu::detail::lz4_split_decode_batch(batch.batch(), numcodecs,
                                                                max_output, temp.get(), Stream());
  std::vector<uint32_t> h(capacities.size());
  test::cuda_ok(cudaMemcpy(h.data(), handled, h.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  return h;
}

struct Case {
  std::string name;
  Bytes input;
  bool compressible;  // the split must take it
};

std::vector<Case> large_cases(size_t size) {
  std::vector<Case> cases;
  cases.push_back({"quantized_uint16", test::quantized_uint16_input(size, 7), true});
  for (unsigned cleared : {8u, 11u, 13u}) {
    cases.push_back({"quantized_float32/" + std::to_string(cleared),
                     test::quantized_float32_input(size, cleared, cleared), false});
  }
  for (auto& family : test::input_families({size})) {
    cases.push_back({family.name, std::move(family.bytes), false});
  }
  return cases;
}

TEST_F(GpuLz4SplitDecode, DecodesLargeBlocksInPartsByteExact) {
  std::vector<Case> cases;
  for (size_t size : {size_t{2} << 20, (size_t{3} << 20) + 5, size_t{4} << 20}) {
    for (auto& c : large_cases(size)) cases.push_back(std::move(c));
  }
  cases.push_back(
      {"quantized_uint16/8MiB", test::quantized_uint16_input(size_t{8} << 20, 3), true});
  for (int level : {0, 9}) {
    Chunks blocks;
    Chunks inputs;
    for (const auto& c : cases) {
      blocks.push_back(test::liblz4_compress(c.input, 1, level));
      inputs.push_back(c.input);
    }
    const auto capacities = test::sizes_of(inputs);
    DeviceBatch split(blocks, capacities);
    const std::vector<uint32_t> handled = split_only(split, capacities, false);
    const auto statuses = split.statuses();
    int taken = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string what = cases[i].name + " level " + std::to_string(level);
      // liblz4's default blocks of the quantized field must be split. Its level-9 (HC) blocks
      // match further back: their taint reaches past a part's zone, and they may be left to the
      // team decoder.
      if (cases[i].compressible && level == 0) {
        EXPECT_EQ(handled[i], 1u) << what << ": the split did not take it";
      }
      if (handled[i] == 0) continue;
      ++taken;
      ASSERT_EQ(statuses[i], DeviceChunkStatus::ok) << what;
      ASSERT_TRUE(split.output(i) == inputs[i]) << what;
    }
    EXPECT_GT(taken, 3) << "level " << level;
    // The launcher: every chunk, split or not.
    DeviceBatch all(blocks, capacities);
    decode_split(all, capacities, false);
    for (size_t i = 0; i < cases.size(); ++i) {
      ASSERT_EQ(all.statuses()[i], DeviceChunkStatus::ok) << cases[i].name << " level " << level;
      ASSERT_TRUE(all.output(i) == inputs[i]) << cases[i].name << " level " << level;
    }
  }
}

TEST_F(GpuLz4SplitDecode, NumcodecsFramingUnalignedAndMixedBatches) {
  Chunks inputs;
  for (size_t size : test::small_sizes()) inputs.push_back(test::smooth_uint16_input(size, 5));
  const size_t first_large = inputs.size();
  inputs.push_back(test::quantized_uint16_input(size_t{4} << 20, 11));
  inputs.push_back(test::quantized_uint16_input((size_t{5} << 20) + 3, 12));
  inputs.push_back(test::quantized_float32_input(size_t{4} << 20, 12, 2));
  Chunks framed;
  for (const auto& in : inputs)
    framed.push_back(test::numcodecs_frame(in, test::liblz4_compress(in, 1, 0)));
  const auto capacities = test::sizes_of(inputs, 16);  // room past each header's size
  DeviceBatch split(framed, capacities, 3);
  const std::vector<uint32_t> handled = split_only(split, capacities, true);
  for (size_t i = 0; i < first_large; ++i) EXPECT_EQ(handled[i], 0u) << "small chunk " << i;
  EXPECT_EQ(handled[first_large], 1u);
  EXPECT_EQ(handled[first_large + 1], 1u);
  for (size_t i = first_large; i < inputs.size(); ++i) {
    if (handled[i] == 0) continue;
    ASSERT_EQ(split.statuses()[i], DeviceChunkStatus::ok) << i;
    ASSERT_TRUE(split.output(i) == inputs[i]) << i;
  }
  DeviceBatch all(framed, capacities, 3);
  decode_split(all, capacities, true);
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_EQ(all.statuses()[i], DeviceChunkStatus::ok) << i;
    ASSERT_TRUE(all.output(i) == inputs[i]) << i;
  }
}

TEST_F(GpuLz4SplitDecode, RawBlocksShorterThanTheirCapacityAreSplitToTheirOwnSize) {
  // A raw block's size is known only once decoded: with room to spare in its capacity the split
  // still takes it, and its output size is the block's.
  const Bytes field = test::quantized_uint16_input(size_t{4} << 20, 17);
  const Bytes block = test::liblz4_compress(field, 1, 0);
  const Chunks blocks = {block, block, block};
  const std::vector<uint64_t> capacities = {field.size(), field.size() + 1, field.size() + 70000};
  DeviceBatch split(blocks, capacities);
  const std::vector<uint32_t> handled = split_only(split, capacities, false);
  for (size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(handled[i], 1u) << i;
    ASSERT_EQ(split.statuses()[i], DeviceChunkStatus::ok) << i;
    ASSERT_EQ(split.output_sizes()[i], field.size()) << i;
    ASSERT_TRUE(split.output(i) == field) << i;
  }
}

TEST_F(GpuLz4SplitDecode, TheLauncherWithScratchSplitsFewLargeChunksOnly) {
  // A few 4 or 2 MiB chunks: split by lz4_decode_batch with scratch (lz4_split_pays); chunks below
  // kLz4SplitAutoFrom are not, nor is a batch with the block-parallel path asked for.
  const uint64_t four = uint64_t{4} << 20, two = uint64_t{2} << 20;
  EXPECT_TRUE(gpu::detail::lz4_split_pays(8, four));
  EXPECT_EQ(gpu::lz4_decode_temp_bytes(8, four), gpu::detail::lz4_split_temp_bytes(8, four));
  EXPECT_TRUE(gpu::detail::lz4_split_pays(8, two));
  EXPECT_EQ(gpu::lz4_decode_temp_bytes(8, two), gpu::detail::lz4_split_temp_bytes(8, two));
  EXPECT_FALSE(gpu::detail::lz4_split_pays(8, gpu::detail::kLz4SplitAutoFrom - 1));
  EXPECT_EQ(gpu::lz4_decode_temp_bytes(8, gpu::detail::kLz4SplitAutoFrom - 1), 0u);
  EXPECT_FALSE(gpu::detail::lz4_split_pays(1u << 20, four));  // more parts than fit at once
  for (const uint64_t size : {four, two}) {
    // Six chunks of `size` to a little more, each large enough for the split.
    constexpr uint32_t kStep = 4099;
    const uint64_t max_output = size + 5 * kStep;
    Chunks inputs, blocks;
    for (uint32_t seed = 0; seed < 6; ++seed) {
      inputs.push_back(test::quantized_uint16_input(size + seed * kStep, seed));
      blocks.push_back(test::liblz4_compress(inputs.back(), 1, 0));
    }
    inputs.push_back(test::random_input(1 << 20, 9));  // incompressible: the team decoder
    blocks.push_back(test::liblz4_compress(inputs.back(), 1, 0));
    const auto capacities = test::sizes_of(inputs);
    DeviceBatch batch(blocks, capacities);
    const size_t temp_bytes = gpu::lz4_decode_temp_bytes(inputs.size(), max_output);
    EXPECT_EQ(temp_bytes, gpu::detail::lz4_split_temp_bytes(inputs.size(), max_output));
    DeviceMemory temp(temp_bytes);
    gpu::lz4_decode_batch(batch.batch(), max_output, temp.get(), Stream());
    test::cuda_ok(cudaDeviceSynchronize());
    for (size_t i = 0; i < inputs.size(); ++i) {
      ASSERT_EQ(batch.statuses()[i], DeviceChunkStatus::ok) << size << " " << i;
      ASSERT_TRUE(batch.output(i) == inputs[i]) << size << " " << i;
    }
  }
}

TEST_F(GpuLz4SplitDecode, DamagedBlocksGetTheSerialDecodersStatus) {
  std::mt19937 rng(23);
  Chunks blocks;
  std::vector<uint64_t> capacities;
  const Bytes field = test::quantized_uint16_input(size_t{4} << 20, 5);
  const Bytes block = test::liblz4_compress(field, 1, 0);
  for (int trial = 0; trial < 40; ++trial) {
    Bytes damaged = block;
    if (trial % 5 == 0) {
      damaged.resize(damaged.size() / 2 + rng() % (damaged.size() / 2));
    } else if (trial % 5 == 1) {
      for (int k = 0; k <= trial % 4; ++k)
        damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
    } else if (trial % 5 == 2) {  // near a part's cut, where the starts are looked for
      const unsigned parts = gpu::detail::lz4_split_parts(field.size());
      const size_t cut = gpu::detail::lz4_split_cut(static_cast<uint32_t>(damaged.size()),
                                                    1 + rng() % (parts - 1), parts);
      for (size_t k = cut; k < cut + 64; ++k) damaged[k] = static_cast<unsigned char>(rng());
    } else if (trial % 5 == 3) {
      for (int k = 0; k < 3; ++k)
        damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng() % 2 ? 0xFF : 0);
    } else {
      const size_t at = rng() % damaged.size();
      for (size_t k = at; k < damaged.size() && k < at + 300; ++k)
        damaged[k] = static_cast<unsigned char>(rng());
    }
    blocks.push_back(damaged);
    // Some capacities a little short of the output, some with room to spare.
    capacities.push_back(field.size() - (trial % 7 == 0 ? 1 + rng() % 1000 : 0) +
                         (trial % 11 == 0 ? 1000 : 0));
  }
  DeviceBatch batch(blocks, capacities);
  decode_split(batch, capacities, false);
  const auto statuses = batch.statuses();
  const auto sizes = batch.output_sizes();
  int ok = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    Bytes expected(capacities[i]);
    const auto r = gpu::lz4_decode_block_serial(blocks[i].data(), blocks[i].size(), expected.data(),
                                                capacities[i]);
    ASSERT_EQ(statuses[i], r.status) << "trial " << i;
    if (r.status != DeviceChunkStatus::ok) {
      EXPECT_EQ(sizes[i], 0u) << i;
      continue;
    }
    ++ok;
    ASSERT_EQ(sizes[i], r.size) << i;
    expected.resize(r.size);
    ASSERT_TRUE(batch.output(i) == expected) << "trial " << i;
  }
  EXPECT_GT(ok, 0);  // some damage leaves a valid block (a changed literal)
}

}  // namespace
}  // namespace cuzarr
