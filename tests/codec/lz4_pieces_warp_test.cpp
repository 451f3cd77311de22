// The GPU's warp code of the block-parallel LZ4 decoder (lz4_pieces_warp.cuh: the scan's piece
// starts, pieces executed by a warp, external bytes resolved by a warp) run on the CPU with
// emulated warps, after passes 1 to 7 on the CPU: the serial scan's results, output byte-exact
// against the input of liblz4's blocks with the pieces and their resolves in reverse order,
// nothing written outside the output, and every lane reaching every warp intrinsic.
#include "warp_emulator.hpp"
// The emulator must come before the device headers.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "codec/cuda/lz4_block_parallel_host.hpp"
#include "codec/cuda/lz4_pieces_warp.cuh"
#include "gpu_codec_inputs.hpp"
#include "guarded_output.hpp"
#include "liblz4_blocks.hpp"
#include "quantized_field_inputs.hpp"

namespace cuzarr::gpu {
namespace {

using Bytes = std::vector<unsigned char>;
using test::expect_guard_intact;
using test::kGuard;
using test::kGuardByte;
using test::warp_emulation::run_warp;

/// What the pieces left to the resolve.
struct PieceCounts {
  uint32_t pieces = 0;
  uint64_t external = 0;  ///< bytes marked external by pass 8
};

/// Passes 1 to 7 on the CPU, then the emulated warps' passes 5 (again, checked against the
/// serial one), 8 and 9, last piece first. Returns the output (capacity + kGuard bytes).
Bytes decode_with_warp_pieces(const Bytes& block, uint64_t capacity, PieceCounts& counts) {
  const Lz4BpSlotLayout layout = lz4_bp_slot_layout(block.size(), capacity);
  std::vector<uint64_t> storage((layout.bytes + 7) / 8);
  const Lz4BpSlot slot = lz4_bp_slot(storage.data(), layout);
  lz4_bp_plan(block.size(), capacity, 1, block.size(), slot);
  EXPECT_EQ(slot.plan->parallel, 1u);
  const DecodeResult r = lz4_bp_check_passes_host(block.data(), block.size(), capacity, slot);
  EXPECT_EQ(r.status, DeviceChunkStatus::ok);
  EXPECT_EQ(r.size, capacity);
  // The warp's pass 5 gives the serial pass's offsets, size and piece starts.
  std::vector<std::pair<uint64_t, uint32_t>> serial_scan;
  for (uint32_t k = 0; k < slot.plan->segments; ++k) {
    serial_scan.emplace_back(slot.segments[k].out_offset, slot.segments[k].piece_start);
    slot.segments[k].out_offset = ~uint64_t{0};
    slot.segments[k].piece_start = 7;
  }
  slot.plan->output_size = 0;
  run_warp([&](unsigned lane) { detail::warp_lz4_scan_segments(slot, lane); });
  EXPECT_EQ(slot.plan->output_size, r.size);
  for (uint32_t k = 0; k < slot.plan->segments; ++k) {
    EXPECT_EQ(slot.segments[k].out_offset, serial_scan[k].first) << "segment " << k;
    EXPECT_EQ(slot.segments[k].piece_start, serial_scan[k].second) << "segment " << k;
  }
  Bytes out(capacity + kGuard, kGuardByte);
  std::vector<uint32_t> starts;
  for (uint32_t k = 0; k < slot.plan->segments; ++k) {
    if (slot.segments[k].piece_start) starts.push_back(k);
  }
  counts.pieces = static_cast<uint32_t>(starts.size());
  for (size_t p = starts.size(); p-- > 0;) {
    const uint32_t end = lz4_bp_piece_end(slot, starts[p]);
    run_warp([&](unsigned lane) {
      detail::warp_lz4_execute_piece(block.data(), block.size(), out.data(), slot, starts[p], end,
                                     lane);
    });
  }
  counts.external = 0;
  for (uint64_t p = 0; p < capacity; ++p) counts.external += slot.marks[p];
  for (size_t p = starts.size(); p-- > 0;) {
    const uint32_t end = lz4_bp_piece_end(slot, starts[p]);
    run_warp([&](unsigned lane) {
      detail::warp_lz4_resolve_piece(out.data(), slot, starts[p], end, lane);
    });
  }
  return out;
}

TEST(Lz4PiecesWarp, DecodeLiblz4BlocksByteExactInAnyPieceOrder) {
  Bytes periodic(200000);
  for (size_t i = 0; i < periodic.size(); ++i) periodic[i] = "abcdefg"[i % 7];
  const std::vector<std::pair<std::string, Bytes>> inputs = {
      {"quantized float32", test::quantized_float32_input(300000, 11, 3)},
      {"runs", test::runs_input(300000, 3)},
      {"periodic", periodic},
      {"smooth uint16", test::smooth_uint16_input(300000, 5)},
  };
  for (const auto& [name, input] : inputs) {
    for (int level : {0, 9}) {
      const Bytes block = test::liblz4_compress(input, 1, level);
      PieceCounts counts;
      const Bytes out = decode_with_warp_pieces(block, input.size(), counts);
      EXPECT_TRUE(Bytes(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(input.size())) ==
                  input)
          << name << ", level " << level << ", " << counts.pieces << " pieces, " << counts.external
          << " external bytes";
      if (name == "quantized float32") {
        EXPECT_GE(counts.pieces, 4u);
        EXPECT_GT(counts.external, 0u) << "level " << level;
      }
      expect_guard_intact(out, input.size());
    }
  }
}

// Matches long enough for the warp's one-by-one copies, overlapping ones (distance 1 to 7) and
// sources reaching several pieces back.
TEST(Lz4PiecesWarp, LongAndOverlappingMatchesAcrossPieces) {
  // Cycles of 40000 bytes: 5000 random ones; the 5000 random ones of the cycle before (a long
  // match 40000 bytes back, often into the piece before); a pattern of period 1 to 4 (one long
  // overlapping match).
  Bytes input(400000);
  std::mt19937 rng(17);
  for (size_t i = 0; i < input.size(); ++i) {
    const size_t part = (i / 5000) % 8;
    if (part == 0 || (part == 1 && i < 40000)) {
      input[i] = static_cast<unsigned char>(rng());
    } else if (part == 1) {
      input[i] = input[i - 40000 - 5000];
    } else {
      input[i] = static_cast<unsigned char>("xyzw"[i % ((i / 40000) % 4 + 1)]);
    }
  }
  PieceCounts counts;
  const Bytes out =
      decode_with_warp_pieces(test::liblz4_compress(input, 1, 12), input.size(), counts);
  EXPECT_GE(counts.pieces, 5u);
  EXPECT_GT(counts.external, 0u);
  EXPECT_TRUE(Bytes(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(input.size())) == input);
  expect_guard_intact(out, input.size());
}

}  // namespace
}  // namespace cuzarr::gpu
