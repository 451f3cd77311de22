// The warp decoding of a block's sequences (zstd_warp_sequences.cuh, the GPU's sequences pass) run
// on the CPU with emulated warps, block by block against zstd_bp_decode_sequences (the serial
// pass that the block-parallel CPU tests check against libzstd): the same status, and when it is
// ok the same records, decoded size and repeat offsets; on valid frames of every level and on
// damaged ones.
#include "warp_emulator.hpp"
// The emulator must come before the device headers.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/cuda/zstd_block_parallel_host.hpp"
#include "codec/cuda/zstd_warp_sequences.cuh"
#include "gpu_codec_inputs.hpp"
#include "zstd_test_frames.hpp"

namespace cuzarr::gpu {
namespace {

using Bytes = std::vector<unsigned char>;
using test::warp_emulation::kLanes;
using test::warp_emulation::run_warp;

bool same_record(const ZstdSeqRecord& a, const ZstdSeqRecord& b) {
  return a.literal_length == b.literal_length && a.match_length == b.match_length &&
         a.offset == b.offset && a.match_at == b.match_at;
}

bool same_slot(const ZstdRepSlot& a, const ZstdRepSlot& b) {
  return a.value == b.value && a.source == b.source;
}

/// Plans `frame` (every chunk block-parallel) and decodes every planned block's sequences both
/// ways; counts the blocks that decoded, those that failed, and the sequences compared.
void compare_blocks(const Bytes& frame, size_t capacity, int& decoded, int& failures,
                    size_t& sequences) {
  const ZstdHostSlot storage(capacity);
  const ZstdSlot& slot = storage.slot;
  zstd_bp_plan(frame.data(), frame.size(), capacity, slot, 0);
  if (!slot.plan->block_parallel) return;
  auto serial_tables = std::make_unique<ZstdSequenceTables>();
  auto warp_tables = std::make_unique<ZstdSequenceTables>();
  for (uint32_t b = 0; b < slot.plan->block_count; ++b) {
    SCOPED_TRACE("block " + std::to_string(b));
    ZstdBlockRecord serial_rec = slot.blocks[b], warp_rec = slot.blocks[b];
    const size_t records = serial_rec.sequence_offset + serial_rec.sequence_count;
    std::vector<ZstdSeqRecord> serial_seqs(records, ZstdSeqRecord{1, 2, 3, 4});
    std::vector<ZstdSeqRecord> warp_seqs(records, ZstdSeqRecord{1, 2, 3, 4});
    const DeviceChunkStatus serial =
        zstd_bp_decode_sequences(frame.data(), serial_rec, *serial_tables, serial_seqs.data());
    ZstdSequenceCodes codes[kLanes];
    DeviceChunkStatus lanes[kLanes];
    run_warp([&](unsigned lane) {
      lanes[lane] = detail::warp_zstd_bp_decode_sequences(frame.data(), warp_rec, *warp_tables,
                                                          warp_seqs.data(), codes, lane);
    });
    for (unsigned lane = 1; lane < kLanes; ++lane) ASSERT_EQ(lanes[lane], lanes[0]);
    ASSERT_EQ(lanes[0], serial);
    if (serial != DeviceChunkStatus::ok) {
      ++failures;
      continue;
    }
    ++decoded;
    sequences += serial_rec.sequence_tables ? serial_rec.sequence_count : 0;
    EXPECT_EQ(warp_rec.decoded_size, serial_rec.decoded_size);
    for (int k = 0; k < 3; ++k) EXPECT_TRUE(same_slot(warp_rec.reps[k], serial_rec.reps[k]));
    for (size_t i = 0; i < records; ++i) {
      ASSERT_TRUE(same_record(warp_seqs[i], serial_seqs[i])) << "sequence record " << i;
    }
  }
}

TEST(ZstdWarpSequences, MatchTheSerialPassAtEveryLevel) {
  std::vector<test::NamedInput> inputs = test::input_families({140000});
  inputs.push_back({"words/140000", test::words_input(140000, 7)});
  size_t sequences = 0;
  for (const auto& [name, data] : inputs) {
    for (int level : {-7, 1, 3, 9, 19}) {
      if (level == 19 && name.rfind("random", 0) != 0) continue;  // slow to compress
      SCOPED_TRACE(name + " level " + std::to_string(level));
      test::ZstdFrameParams params;
      params.level = level;
      const Bytes frame = test::zstd_compress(data, params);
      int decoded = 0, failures = 0;
      compare_blocks(frame, data.size(), decoded, failures, sequences);
      EXPECT_EQ(failures, 0);
      EXPECT_GE(decoded, 2);  // 140000 bytes are at least two blocks
    }
  }
  EXPECT_GT(sequences, 20000u);
}

TEST(ZstdWarpSequences, DamagedBlocksFailLikeTheSerialPass) {
  std::mt19937 rng(20261123);
  const Bytes field = test::smooth_uint16_input(140000, 5), words = test::words_input(140000, 6);
  int failures = 0, decoded = 0;
  size_t sequences = 0;
  for (int round = 0; round < 16; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const Bytes& data = round % 2 == 0 ? field : words;
    test::ZstdFrameParams params;
    params.level = 1 + round % 7;
    Bytes frame = test::zstd_compress(data, params);
    for (int k = 0; k < 1 + round % 4; ++k) frame[rng() % frame.size()] ^= 1u << (rng() % 8);
    compare_blocks(frame, data.size(), decoded, failures, sequences);
  }
  EXPECT_GT(failures, 4);  // damage reaches some blocks' sequences
  EXPECT_GT(decoded, 16);
}

}  // namespace
}  // namespace cuzarr::gpu
