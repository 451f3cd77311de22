// The block-parallel GPU LZ4 decoder (lz4_decode_batch / numcodecs_lz4_decode_batch with temp)
// against liblz4 and its CPU reference (lz4_decode_block_parallel_host): large blocks of every
// family and level, batches mixing large and small chunks (the small ones take the warp decoder),
// the numcodecs.lz4 framing, unaligned buffers, and hostile blocks, which must get the CPU
// reference's status and never fault (run under compute-sanitizer to check the bounds).
#include <gtest/gtest.h>
#include <lz4.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_block_parallel_host.hpp"
#include "codec/cuda/lz4_kernels.hpp"
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

class GpuLz4BlockParallel : public test::GpuCodecTest {};

// hc_level 0: LZ4_compress_default.
Bytes liblz4_compress(const Bytes& in, int hc_level = 0) {
  return test::liblz4_compress(in, 1, hc_level);
}

uint64_t max_of(const std::vector<uint64_t>& v) {
  uint64_t m = 0;
  for (uint64_t x : v) m = std::max(m, x);
  return m;
}

// Runs the block-parallel launcher over `batch` (raw or numcodecs) with its temp.
void decode_parallel(const DeviceBatch& batch, const std::vector<uint64_t>& capacities,
                     bool numcodecs, uint64_t from = gpu::kLz4BpMinCapacity) {
  const uint64_t max_output = max_of(capacities);
  DeviceMemory temp(gpu::lz4_decode_temp_bytes(capacities.size(), max_output, from));
  if (numcodecs) {
    gpu::numcodecs_lz4_decode_batch(batch.batch(), max_output, temp.get(), Stream(), from);
  } else {
    gpu::lz4_decode_batch(batch.batch(), max_output, temp.get(), Stream(), from);
  }
  test::cuda_ok(cudaDeviceSynchronize());
}

Chunks large_inputs() {
  Chunks inputs;
  for (size_t size : {size_t{256} << 10, size_t{1} << 20, size_t{4} << 20, size_t{16} << 20}) {
    for (auto& input : test::input_families({size})) inputs.push_back(std::move(input.bytes));
    for (unsigned cleared : {8u, 11u, 13u})
      inputs.push_back(test::quantized_float32_input(size, cleared, cleared));
  }
  Bytes periodic(3 << 20);
  for (size_t i = 0; i < periodic.size(); ++i) periodic[i] = "abcdefg"[i % 7];
  inputs.push_back(periodic);
  return inputs;
}

TEST_F(GpuLz4BlockParallel, DecodesLargeLiblz4BlocksOfEveryFamilyAndLevel) {
  const Chunks inputs = large_inputs();
  for (int level : {0, 3, 9}) {
    Chunks blocks, framed;
    for (const auto& in : inputs) {
      blocks.push_back(liblz4_compress(in, level));
      framed.push_back(test::numcodecs_frame(in, blocks.back()));
    }
    const auto capacities = test::sizes_of(inputs);
    DeviceBatch raw(blocks, capacities);
    decode_parallel(raw, capacities, false);
    DeviceBatch numcodecs(framed, capacities, 3);  // unaligned too
    decode_parallel(numcodecs, capacities, true);
    for (size_t i = 0; i < inputs.size(); ++i) {
      ASSERT_EQ(raw.statuses()[i], DeviceChunkStatus::ok) << "level " << level << " chunk " << i;
      ASSERT_TRUE(raw.output(i) == inputs[i]) << "level " << level << " raw chunk " << i;
      ASSERT_EQ(numcodecs.statuses()[i], DeviceChunkStatus::ok) << i;
      ASSERT_TRUE(numcodecs.output(i) == inputs[i]) << "level " << level << " numcodecs " << i;
    }
  }
}

TEST_F(GpuLz4BlockParallel, MixedBatchesAndSmallThresholds) {
  auto sizes = test::small_sizes();
  sizes.push_back(300000);
  sizes.push_back(2 << 20);
  Chunks inputs;
  for (auto& input : test::input_families(sizes)) inputs.push_back(std::move(input.bytes));
  Chunks blocks;
  for (const auto& in : inputs) blocks.push_back(liblz4_compress(in, inputs.size() % 2 ? 9 : 0));
  const auto capacities = test::sizes_of(inputs);
  // Default threshold: large chunks block-parallel, small ones on the warp decoder. Threshold 1:
  // every non-empty chunk block-parallel (tiny blocks of one segment).
  for (uint64_t from : {gpu::kLz4BpMinCapacity, uint64_t{1}}) {
    DeviceBatch batch(blocks, capacities);
    decode_parallel(batch, capacities, false, from);
    for (size_t i = 0; i < inputs.size(); ++i) {
      ASSERT_EQ(batch.statuses()[i], DeviceChunkStatus::ok) << "from " << from << " chunk " << i;
      ASSERT_TRUE(batch.output(i) == inputs[i]) << "from " << from << " chunk " << i;
    }
  }
}

TEST_F(GpuLz4BlockParallel, HostileLargeBlocksGetTheCpuReferenceStatus) {
  std::mt19937 rng(17);
  Chunks blocks;
  std::vector<uint64_t> capacities;
  for (const auto& in :
       {test::quantized_float32_input(1 << 20, 8, 1), test::quantized_float32_input(600000, 12, 2),
        test::runs_input(1 << 20, 3), test::smooth_uint16_input(400000, 4)}) {
    const Bytes block = liblz4_compress(in, in.size() % 2 ? 0 : 9);
    for (int trial = 0; trial < 30; ++trial) {
      Bytes damaged = block;
      if (trial % 4 == 0) {
        damaged.resize(rng() % damaged.size());
      } else if (trial % 4 == 1) {
        for (int k = 0; k <= trial % 5; ++k)
          damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
      } else if (trial % 4 == 2) {
        for (int k = 0; k < 3; ++k)
          damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng() % 2 ? 0xFF : 0);
      } else {
        const size_t at = rng() % damaged.size();
        for (size_t k = at; k < damaged.size() && k < at + 300; ++k)
          damaged[k] = static_cast<unsigned char>(rng());
      }
      blocks.push_back(damaged);
      capacities.push_back(in.size() - (trial % 7 == 0 ? rng() % 10 : 0) +
                           (trial % 11 == 0 ? 1000 : 0));
    }
  }
  for (uint32_t seed = 0; seed < 8; ++seed) {  // garbage
    blocks.push_back(test::random_input(300000 + seed * 1000, seed));
    capacities.push_back(1 << 20);
  }
  // Below the default threshold (4 MiB), so that every damaged block takes the parallel path.
  constexpr uint64_t kFrom = uint64_t{256} << 10;
  DeviceBatch batch(blocks, capacities);
  decode_parallel(batch, capacities, false, kFrom);
  const auto statuses = batch.statuses();
  const auto sizes = batch.output_sizes();
  int parallel_ok = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    Bytes expected(capacities[i]);
    gpu::Lz4BpReport report;
    const auto r = gpu::lz4_decode_block_parallel_host(
        blocks[i].data(), blocks[i].size(), expected.data(), capacities[i], kFrom, &report);
    if (!blocks[i].empty()) {
      ASSERT_TRUE(report.parallel) << i;
    }
    ASSERT_EQ(statuses[i], r.status) << i;
    if (r.status == DeviceChunkStatus::ok) {
      ++parallel_ok;
      ASSERT_EQ(sizes[i], r.size) << i;
      expected.resize(r.size);
      ASSERT_TRUE(batch.output(i) == expected) << i;
    } else {
      EXPECT_EQ(sizes[i], 0u) << i;
    }
  }
  EXPECT_GT(parallel_ok, 0);  // some damage leaves a valid block
}

TEST_F(GpuLz4BlockParallel, NumcodecsHeadersThatDisagreeAreCorrupt) {
  const Bytes input = test::quantized_float32_input(1 << 20, 10, 5);
  const Bytes block = liblz4_compress(input);
  Chunks framed = {test::numcodecs_frame(input, block), test::numcodecs_frame(input, block),
                   test::numcodecs_frame(input, block)};
  gpu::store_le32(framed[1].data(), static_cast<uint32_t>(input.size() - 1));  // too small
  gpu::store_le32(framed[2].data(), static_cast<uint32_t>(input.size() + 8));  // too large
  const std::vector<uint64_t> capacities(3, input.size() + 8);
  DeviceBatch batch(framed, capacities);
  decode_parallel(batch, capacities, true);
  const auto statuses = batch.statuses();
  ASSERT_EQ(statuses[0], DeviceChunkStatus::ok);
  EXPECT_TRUE(batch.output(0) == input);
  EXPECT_EQ(statuses[1], DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(statuses[2], DeviceChunkStatus::corrupt_input);
}

}  // namespace
}  // namespace cuzarr
