// The GPU zstd decoder against libzstd and the serial CPU decoder, byte for byte: libzstd frames
// of every input family at several levels (with and without checksum and content size, small
// windows, frames back to back); hostile chunks (truncated, damaged, lying, a dictionary id)
// must give the serial decoder's status and never fault (run under compute-sanitizer to check
// the bounds). With the batch's largest capacity given, chunks above 128 KiB take the
// block-parallel path: large chunks and batches mixing small and large chunks must match
// libzstd, and hostile large chunks the statuses of zstd_decode_block_parallel_host, whether a
// frame's matches run a warp per block or in order by one warp.
#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "codec/cuda/zstd_block_parallel_host.hpp"
#include "codec/cuda/zstd_frame_format.hpp"
#include "codec/cuda/zstd_kernels.hpp"
#include "gpu_batch_support.hpp"
#include "gpu_codec_inputs.hpp"

namespace cuzarr {
namespace {

using gpu::DeviceChunkStatus;
using test::DeviceBatch;
using Bytes = std::vector<unsigned char>;
using Chunks = std::vector<Bytes>;

class GpuZstd : public test::GpuCodecTest {};

Bytes zstd_compress(const Bytes& in, int level, bool checksum, bool content_size,
                    int window_log = 0) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, content_size ? 1 : 0);
  if (window_log > 0) ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, window_log);
  Bytes out(ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), in.data(), in.size());
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

struct Decoded {
  std::vector<DeviceChunkStatus> statuses;
  std::vector<uint64_t> sizes;
  Chunks outputs;
};

Decoded gpu_decode(const Chunks& frames, const std::vector<uint64_t>& capacities,
                   size_t misalign = 0) {
  DeviceBatch batch(frames, capacities, misalign);
  test::DeviceMemory temp(gpu::zstd_decode_temp_bytes(frames.size()));
  gpu::zstd_decode_batch(batch.batch(), temp.get(), Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  Decoded d{batch.statuses(), batch.output_sizes(), {}};
  for (size_t i = 0; i < frames.size(); ++i) d.outputs.push_back(batch.output(i));
  return d;
}

/// The block-parallel path: the batch's largest capacity is passed as max_output.
Decoded gpu_decode_block_parallel(const Chunks& frames, const std::vector<uint64_t>& capacities,
                                  size_t misalign = 0, bool verify = true,
                                  uint64_t from = gpu::kZstdBlockParallelMinCapacity,
                                  uint32_t in_order_permille = gpu::kZstdInOrderMatchesPermille,
                                  uint64_t stretch = gpu::kZstdStretchAuto) {
  DeviceBatch batch(frames, capacities, misalign);
  const uint64_t max_output = *std::max_element(capacities.begin(), capacities.end());
  test::DeviceMemory temp(gpu::zstd_decode_temp_bytes(frames.size(), max_output, from));
  gpu::zstd_decode_batch(batch.batch(), verify, max_output, temp.get(), Stream(), from,
                         in_order_permille, stretch);
  test::cuda_ok(cudaDeviceSynchronize());
  Decoded d{batch.statuses(), batch.output_sizes(), {}};
  for (size_t i = 0; i < frames.size(); ++i) d.outputs.push_back(batch.output(i));
  return d;
}

void expect_decoded(const Decoded& d, const Chunks& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_EQ(d.statuses[i], DeviceChunkStatus::ok) << i;
    ASSERT_EQ(d.sizes[i], inputs[i].size()) << i;
    ASSERT_TRUE(d.outputs[i] == inputs[i]) << "chunk " << i << " (" << inputs[i].size() << ")";
  }
}

TEST_F(GpuZstd, BlockParallelDecodesLargeChunks) {
  Chunks inputs, frames;
  int k = 0;
  for (size_t size : {size_t{131073}, size_t{1} << 20, size_t{4} << 20}) {
    for (auto& input : test::input_families({size})) {
      for (int level : {-5, 1, 3, 9, 19}) {
        if (size > (1 << 20) && (level > 3 || level < 0)) continue;
        frames.push_back(zstd_compress(input.bytes, level, k % 2 == 0, k % 3 != 0));
        inputs.push_back(input.bytes);
        ++k;
      }
    }
  }
  for (size_t misalign : {size_t{0}, size_t{3}}) {
    expect_decoded(gpu_decode_block_parallel(frames, test::sizes_of(inputs), misalign), inputs);
  }
}

TEST_F(GpuZstd, BlockParallelDecodes32MiBChunks) {
  Chunks inputs, frames;
  for (int i = 0; i < 3; ++i) {
    inputs.push_back(i == 2
                         ? test::smooth_float32_input(size_t{32} << 20, 7)
                         : test::smooth_uint16_input(size_t{32} << 20, static_cast<uint32_t>(i)));
    frames.push_back(zstd_compress(inputs.back(), i == 1 ? 3 : 1, i != 0, true));
  }
  expect_decoded(gpu_decode_block_parallel(frames, test::sizes_of(inputs)), inputs);
}

TEST_F(GpuZstd, BlockParallelFollowsLongMatchChainsAndWaits) {
  // A random 300-byte pattern repeated: with 1 KiB windows every block is one match of the
  // previous one, so source chains run through every earlier block (past the chase's 16 steps:
  // the lanes wait for the block that writes the byte).
  Chunks inputs, frames;
  for (size_t size : {size_t{1} << 20, size_t{4} << 20}) {
    for (int window_log : {10, 0}) {
      const Bytes pattern = test::random_input(300, static_cast<uint32_t>(size));
      Bytes input(size);
      for (size_t i = 0; i < size; ++i) input[i] = pattern[i % 300];
      frames.push_back(zstd_compress(input, 3, window_log == 10, true, window_log));
      inputs.push_back(input);
    }
  }
  expect_decoded(gpu_decode_block_parallel(frames, test::sizes_of(inputs)), inputs);
}

TEST_F(GpuZstd, MatchesRunInOrderInStretchesOrByBlockAlike) {
  // Frames whose matches mostly read earlier blocks (a delta-encoded float32 field, a label
  // volume) beside ordinary ones (the uint16 field, every input family), their matches run in
  // order by one warp per frame (permille 0), a warp per block (1001, stretches of 1 byte), in
  // stretches of 256 KiB and 1 MiB (1001: no frame whole), and as the default picks (a round of
  // fewer than kZstdInOrderMinChunks chunks: frames whole by their external share, the others a
  // warp per block).
  Chunks inputs, frames;
  int k = 0;
  for (size_t size : {size_t{1} << 20, size_t{4} << 20}) {
    std::vector<Bytes> data = {test::delta_float32_input(size, 1), test::label_volume_input(size),
                               test::smooth_uint16_input(size, 2)};
    for (auto& family : test::input_families({size_t{300000}})) data.push_back(family.bytes);
    for (const Bytes& input : data) {
      for (int level : {1, 3, 19}) {
        if (size > (1 << 20) && level == 19) continue;
        frames.push_back(zstd_compress(input, level, k % 2 == 0, k % 3 != 0));
        inputs.push_back(input);
        ++k;
      }
    }
  }
  struct Schedule {
    uint32_t permille;
    uint64_t stretch;
  };
  for (const Schedule s : {Schedule{0, gpu::kZstdStretchAuto}, Schedule{1001, 1},
                           Schedule{1001, uint64_t{256} << 10}, Schedule{1001, uint64_t{1} << 20},
                           Schedule{gpu::kZstdInOrderMatchesPermille, gpu::kZstdStretchAuto}}) {
    SCOPED_TRACE("in order from " + std::to_string(s.permille) + " per mille, stretches of " +
                 std::to_string(s.stretch));
    expect_decoded(
        gpu_decode_block_parallel(frames, test::sizes_of(inputs), 0, true,
                                  gpu::kZstdBlockParallelMinCapacity, s.permille, s.stretch),
        inputs);
  }
}

TEST_F(GpuZstd, BlockParallelMixesSmallAndLargeChunksAndSmallWindows) {
  Chunks inputs, frames;
  int k = 0;
  for (auto& input : test::input_families({100, 65536, 131072, 200000, size_t{2} << 20})) {
    const int window_log = k % 3 == 0 ? 10 : k % 3 == 1 ? 14 : 0;
    frames.push_back(zstd_compress(input.bytes, 1 + k % 4, k % 2 == 0, k % 5 != 0, window_log));
    inputs.push_back(input.bytes);
    ++k;
  }
  // Frames and skippable frames back to back in one chunk.
  Bytes joined, expected;
  for (size_t i = 0; i < frames.size(); ++i) {
    joined.insert(joined.end(), frames[i].begin(), frames[i].end());
    expected.insert(expected.end(), inputs[i].begin(), inputs[i].end());
    const Bytes skippable = {0x51, 0x2A, 0x4D, 0x18, 1, 0, 0, 0, 7};
    joined.insert(joined.end(), skippable.begin(), skippable.end());
  }
  frames.push_back(joined);
  inputs.push_back(expected);
  expect_decoded(gpu_decode_block_parallel(frames, test::sizes_of(inputs)), inputs);
  // More chunks than one round's slots hold (6 GiB of slots: two of 512 MiB chunks).
  Chunks few_inputs(inputs.begin() + 10, inputs.begin() + 20);
  Chunks few_frames(frames.begin() + 10, frames.begin() + 20);
  std::vector<uint64_t> capacities = test::sizes_of(few_inputs);
  capacities[0] = uint64_t{512} << 20;
  const Decoded d = gpu_decode_block_parallel(few_frames, capacities);
  expect_decoded(d, few_inputs);
}

TEST_F(GpuZstd, BlockParallelDecodesSmallChunksWhenAskedTo) {
  Chunks inputs, frames;
  int k = 0;
  for (auto& input : test::input_families(test::small_sizes())) {
    for (int level : {-5, 3, 19}) {
      frames.push_back(zstd_compress(input.bytes, level, k % 2 == 0, k % 3 != 0));
      inputs.push_back(input.bytes);
      ++k;
    }
  }
  // Hostile small chunks too: the host driver's statuses with the same threshold.
  std::mt19937 rng(5);
  std::vector<uint64_t> capacities = test::sizes_of(inputs);
  const size_t valid = frames.size();
  for (size_t i = 0; i < valid; i += 3) {
    Bytes damaged = frames[i];
    if (damaged.empty()) continue;
    damaged[rng() % damaged.size()] ^= static_cast<unsigned char>(1 + rng() % 255);
    if (i % 2) damaged.resize(rng() % damaged.size());
    frames.push_back(damaged);
    capacities.push_back(capacities[i]);
  }
  for (size_t misalign : {size_t{0}, size_t{5}}) {
    const Decoded d = gpu_decode_block_parallel(frames, capacities, misalign, true, 0);
    for (size_t i = 0; i < frames.size(); ++i) {
      Bytes expected(capacities[i]);
      const auto r = gpu::zstd_decode_block_parallel_host(
          frames[i].data(), frames[i].size(), expected.data(), capacities[i], true, nullptr, 0);
      ASSERT_EQ(d.statuses[i], r.status) << i;
      if (i < valid) {
        ASSERT_EQ(r.status, DeviceChunkStatus::ok) << i;
      }
      if (r.status == DeviceChunkStatus::ok) {
        ASSERT_EQ(d.sizes[i], r.size) << i;
        expected.resize(r.size);
        ASSERT_TRUE(d.outputs[i] == expected) << i;
        if (i < valid) {
          ASSERT_TRUE(expected == inputs[i]) << i;
        }
      }
    }
  }
}

TEST_F(GpuZstd, LargeBatchesOfSmallChunksDecodeBlockParallelByDefault) {
  // kZstdBlockParallelBatch chunks of up to one block: the default threshold sends all of them
  // through the block path (zstd_block_parallel_from), which must match libzstd.
  Chunks pool_inputs, pool_frames;
  int k = 0;
  for (auto& input : test::input_families(test::small_sizes())) {
    for (int level : {1, 3, 19}) {
      pool_frames.push_back(zstd_compress(input.bytes, level, k % 2 == 0, true));
      pool_inputs.push_back(input.bytes);
      ++k;
    }
  }
  Chunks inputs, frames;
  for (size_t i = 0; i < gpu::kZstdBlockParallelBatch; ++i) {
    inputs.push_back(pool_inputs[i % pool_inputs.size()]);
    frames.push_back(pool_frames[i % pool_frames.size()]);
  }
  ASSERT_EQ(gpu::zstd_block_parallel_from(frames.size(), gpu::kZstdBlockParallelAuto), 0u);
  const Decoded d = gpu_decode_block_parallel(frames, test::sizes_of(inputs), 0, true,
                                              gpu::kZstdBlockParallelAuto);
  expect_decoded(d, inputs);
}

TEST_F(GpuZstd, RoundsOfManyBlocksDecodeLongSequenceChainsAWarpEach) {
  // A round of kZstdBlockParallelBatch blocks decodes its sequences a thread per block, but the
  // blocks of kZstdWarpSequencesFrom sequences or more a warp each beside it. Half the chunks
  // are random 4-byte words from a vocabulary of 16 (a sequence every few bytes), half a smooth
  // field (few sequences): both kinds in one round, each byte-exact.
  constexpr size_t kSize = size_t{64} << 10;
  Chunks pool_inputs, pool_frames;
  for (uint32_t seed = 0; seed < 8; ++seed) {
    Bytes input;
    if (seed % 2 == 0) {
      const Bytes words = test::random_input(64, seed);
      std::mt19937 rng(seed);
      input.resize(kSize);
      for (size_t i = 0; i < kSize; i += 4) std::memcpy(&input[i], &words[4 * (rng() % 16)], 4);
    } else {
      input = test::smooth_uint16_input(kSize, seed);
    }
    pool_frames.push_back(zstd_compress(input, seed % 4 == 0 ? 1 : 3, seed % 3 == 0, true));
    pool_inputs.push_back(std::move(input));
    // The plan's count of the chunk's (single) block's sequences: long chains for the words.
    const gpu::ZstdHostSlot storage(kSize);
    const gpu::ZstdSlot& slot = storage.slot;
    gpu::zstd_bp_plan(pool_frames.back().data(), pool_frames.back().size(), kSize, slot, 0);
    ASSERT_EQ(slot.plan->block_count, 1u);
    if (seed % 2 == 0) {
      EXPECT_GE(slot.blocks[0].sequence_count, gpu::kZstdWarpSequencesFrom) << "seed " << seed;
    } else {
      EXPECT_LT(slot.blocks[0].sequence_count, gpu::kZstdWarpSequencesFrom) << "seed " << seed;
    }
  }
  Chunks inputs, frames;
  for (size_t i = 0; i < gpu::kZstdBlockParallelBatch; ++i) {
    inputs.push_back(pool_inputs[i % pool_inputs.size()]);
    frames.push_back(pool_frames[i % pool_frames.size()]);
  }
  expect_decoded(gpu_decode_block_parallel(frames, test::sizes_of(inputs), 0, true,
                                           gpu::kZstdBlockParallelAuto),
                 inputs);
}

TEST_F(GpuZstd, BlocksOfManySequencesRunTheirMatchesInPiecesAWarpEach) {
  // A round of few large chunks runs a warp per block; blocks of more sequences than the round's
  // piece length (zstd_round_piece_sequences: its sequences over the GPU's warps, at least
  // kZstdPieceSequences) run a warp per piece. The delta-encoded field (about 8-byte sequences,
  // most match bytes read earlier bytes) forced out of order chases and waits across pieces
  // everywhere; the words (a sequence every few bytes) and the smooth field beside it, at levels
  // 1, 3 and 19.
  constexpr size_t kSize = size_t{2} << 20;
  Bytes words_input(kSize);
  const Bytes words = test::random_input(64, 3);
  std::mt19937 rng(3);
  for (size_t i = 0; i < kSize; i += 4) std::memcpy(&words_input[i], &words[4 * (rng() % 16)], 4);
  Chunks inputs, frames;
  std::vector<std::vector<gpu::ZstdBlockRecord>> blocks;
  uint64_t sequences = 0;
  for (const Bytes& input :
       {test::delta_float32_input(kSize, 2), words_input, test::smooth_uint16_input(kSize, 3)}) {
    for (int level : {1, 3, 19}) {
      frames.push_back(zstd_compress(input, level, level != 3, true));
      inputs.push_back(input);
      const gpu::ZstdHostSlot storage(kSize);
      const gpu::ZstdSlot& slot = storage.slot;
      gpu::zstd_bp_plan(frames.back().data(), frames.back().size(), kSize, slot);
      Bytes out(kSize);
      ASSERT_EQ(gpu::zstd_bp_run_passes_host(frames.back().data(), out.data(), kSize, slot).status,
                DeviceChunkStatus::ok);
      sequences += slot.plan->sequence_count;
      blocks.emplace_back(slot.blocks, slot.blocks + slot.plan->executed_blocks);
    }
  }
  // The blocks this round cuts (about 60 even on a GPU of one warp an SM).
  const uint32_t per = gpu::zstd_round_piece_sequences(sequences);
  uint32_t split_blocks = 0;
  for (const auto& chunk_blocks : blocks) {
    for (const gpu::ZstdBlockRecord& rec : chunk_blocks)
      split_blocks += gpu::zstd_bp_pieces(rec, per) > 1 ? 1 : 0;
  }
  EXPECT_GT(split_blocks, 10u) << "pieces of " << per << " of " << sequences << " sequences";
  for (const uint32_t permille : {1001u, gpu::kZstdInOrderMatchesPermille}) {
    SCOPED_TRACE("in order from " + std::to_string(permille) + " per mille");
    expect_decoded(gpu_decode_block_parallel(frames, test::sizes_of(inputs), 0, true,
                                             gpu::kZstdBlockParallelMinCapacity, permille, 1),
                   inputs);
  }
}

TEST_F(GpuZstd, BlockParallelVerifiesChecksumsUnlessAskedNotTo) {
  Chunks inputs, frames;
  for (size_t size : {size_t{200000}, size_t{3} << 20}) {
    inputs.push_back(test::smooth_float32_input(size, 3));
    frames.push_back(zstd_compress(inputs.back(), 3, true, true));
    inputs.push_back(inputs.back());
    frames.push_back(frames.back());
    frames.back()[frames.back().size() - 3] ^= 0x40;  // the stored checksum
  }
  const Decoded d = gpu_decode_block_parallel(frames, test::sizes_of(inputs));
  EXPECT_EQ(d.statuses[0], DeviceChunkStatus::ok);
  EXPECT_EQ(d.statuses[1], DeviceChunkStatus::checksum_mismatch);
  EXPECT_EQ(d.statuses[2], DeviceChunkStatus::ok);
  EXPECT_EQ(d.statuses[3], DeviceChunkStatus::checksum_mismatch);
  expect_decoded(gpu_decode_block_parallel(frames, test::sizes_of(inputs), 0, /*verify=*/false),
                 inputs);
}

TEST_F(GpuZstd, BlockParallelHostileChunksGetTheHostDriversStatus) {
  std::mt19937 rng(12);
  Chunks frames;
  std::vector<uint64_t> capacities;
  int k = 0;
  for (const auto& input : test::input_families({140000, 400000})) {
    const Bytes frame =
        zstd_compress(input.bytes, (k % 4) * 5 - 1, k % 2 == 0, k % 3 != 0, k % 2 ? 12 : 0);
    ++k;
    for (int trial = 0; trial < 40; ++trial) {
      Bytes damaged = frame;
      if (trial % 3 == 0) {
        damaged.resize(rng() % damaged.size());
      } else {
        for (int h = 0; h <= trial % 4; ++h)
          damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
      }
      frames.push_back(damaged);
      capacities.push_back(input.bytes.size() - (trial % 5 == 0 ? rng() % 10 : 0));
    }
  }
  for (int trial = 0; trial < 200; ++trial) {  // noise after a frame header
    Bytes junk = test::random_input(5 + rng() % 600, static_cast<uint32_t>(trial));
    junk[0] = 0x28;
    junk[1] = 0xB5;
    junk[2] = 0x2F;
    junk[3] = 0xFD;
    junk[4] &= 0xF4;
    frames.push_back(junk);
    capacities.push_back(131073 + rng() % 100000);
  }
  frames.push_back({});
  capacities.push_back(200000);
  // Once as it is (a round of fewer than 4096 blocks: sequences a warp per block), once three
  // times over (sequences a thread per block, matches in order).
  for (size_t copies : {size_t{1}, size_t{3}}) {
    SCOPED_TRACE("copies " + std::to_string(copies));
    Chunks batch;
    std::vector<uint64_t> batch_capacities;
    for (size_t c = 0; c < copies; ++c) {
      batch.insert(batch.end(), frames.begin(), frames.end());
      batch_capacities.insert(batch_capacities.end(), capacities.begin(), capacities.end());
    }
    // The second time with every frame's matches in order.
    const Decoded d = gpu_decode_block_parallel(batch, batch_capacities, 0, true,
                                                gpu::kZstdBlockParallelMinCapacity,
                                                copies == 1 ? gpu::kZstdInOrderMatchesPermille : 0);
    for (size_t i = 0; i < batch.size(); ++i) {
      Bytes expected(batch_capacities[i]);
      const auto r = gpu::zstd_decode_block_parallel_host(batch[i].data(), batch[i].size(),
                                                          expected.data(), batch_capacities[i]);
      ASSERT_EQ(d.statuses[i], r.status) << i;
      if (r.status == DeviceChunkStatus::ok) {
        ASSERT_EQ(d.sizes[i], r.size) << i;
        expected.resize(r.size);
        ASSERT_TRUE(d.outputs[i] == expected) << i;
      }
    }
    EXPECT_EQ(d.statuses.back(), DeviceChunkStatus::corrupt_input);
  }
}

TEST_F(GpuZstd, DecodesLibzstdFramesOfEveryFamily) {
  auto sizes = test::small_sizes();
  sizes.push_back(4 << 20);
  Chunks inputs, frames;
  int k = 0;
  for (auto& input : test::input_families(sizes)) {
    for (int level : {-5, 1, 3, 9, 19}) {
      if (input.bytes.size() > (1 << 20) && level > 3) continue;
      frames.push_back(zstd_compress(input.bytes, level, k % 2 == 0, k % 3 != 0));
      inputs.push_back(input.bytes);
      ++k;
    }
  }
  for (size_t misalign : {size_t{0}, size_t{3}}) {
    const Decoded d = gpu_decode(frames, test::sizes_of(inputs), misalign);
    for (size_t i = 0; i < inputs.size(); ++i) {
      ASSERT_EQ(d.statuses[i], DeviceChunkStatus::ok) << i;
      ASSERT_EQ(d.sizes[i], inputs[i].size()) << i;
      ASSERT_TRUE(d.outputs[i] == inputs[i]) << "chunk " << i << " (" << inputs[i].size() << ")";
    }
  }
}

TEST_F(GpuZstd, DecodesSmallWindowsAndFramesBackToBack) {
  Chunks inputs, frames;
  for (auto& input : test::input_families({size_t{1} << 20})) {
    frames.push_back(zstd_compress(input.bytes, 3, true, true, 10));
    inputs.push_back(input.bytes);
  }
  Bytes joined, expected;
  for (size_t i = 0; i < frames.size(); ++i) {
    joined.insert(joined.end(), frames[i].begin(), frames[i].end());
    expected.insert(expected.end(), inputs[i].begin(), inputs[i].end());
    const Bytes skippable = {0x51, 0x2A, 0x4D, 0x18, 1, 0, 0, 0, 7};
    joined.insert(joined.end(), skippable.begin(), skippable.end());
  }
  frames.push_back(joined);
  inputs.push_back(expected);
  const Decoded d = gpu_decode(frames, test::sizes_of(inputs));
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_EQ(d.statuses[i], DeviceChunkStatus::ok) << i;
    ASSERT_TRUE(d.outputs[i] == inputs[i]) << i;
  }
}

TEST_F(GpuZstd, HostileFramesGetTheSerialDecodersStatus) {
  std::mt19937 rng(11);
  Chunks frames;
  std::vector<uint64_t> capacities;
  int k = 0;
  for (const auto& input : test::input_families({100, 3000, 70000})) {
    const Bytes frame = zstd_compress(input.bytes, (k % 4) * 5 - 1, k % 2 == 0, true);
    ++k;
    for (int trial = 0; trial < 40; ++trial) {
      Bytes damaged = frame;
      if (trial % 3 == 0) {
        damaged.resize(rng() % damaged.size());
      } else {
        for (int h = 0; h <= trial % 4; ++h)
          damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
      }
      frames.push_back(damaged);
      capacities.push_back(input.bytes.size() - (trial % 5 == 0 ? rng() % 10 : 0));
    }
  }
  Bytes dict = zstd_compress(test::runs_input(1000, 1), 3, false, true);
  dict[4] |= 1;  // a dictionary id follows the window descriptor
  dict.insert(dict.begin() + ((dict[4] & 0x20) ? 5 : 6), 9);
  frames.push_back(dict);
  capacities.push_back(1000);
  frames.push_back({});
  capacities.push_back(10);
  const Decoded d = gpu_decode(frames, capacities);
  auto workspace = std::make_unique<gpu::ZstdWorkspace>();
  for (size_t i = 0; i < frames.size(); ++i) {
    Bytes expected(capacities[i]);
    const auto r = gpu::zstd_decode_serial(frames[i].data(), frames[i].size(), expected.data(),
                                           capacities[i], *workspace);
    ASSERT_EQ(d.statuses[i], r.status) << i;
    if (r.status == DeviceChunkStatus::ok) {
      ASSERT_EQ(d.sizes[i], r.size) << i;
      expected.resize(r.size);
      ASSERT_TRUE(d.outputs[i] == expected) << i;
    }
  }
  EXPECT_EQ(d.statuses[frames.size() - 2], DeviceChunkStatus::unsupported);
  EXPECT_EQ(d.statuses.back(), DeviceChunkStatus::corrupt_input);
}

}  // namespace
}  // namespace cuzarr
