// The GPU's warp-cooperative LZ4 and blosclz decoders (lz4_warp_decode.cuh, warp_copy_steps.cuh)
// and the group execution of copy steps they share with zstd, run on the CPU with emulated warps:
// the same code as the kernels, checked against liblz4's and c-blosc's input and the serial
// decoders, including the rule that every lane reaches every warp intrinsic.
#include "warp_emulator.hpp"
// The emulator must come before the device headers.
#include <gtest/gtest.h>
#include <lz4.h>
#if CUZARR_HAVE_BLOSC
#include <blosc.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "codec/cuda/blosc_frame_format.hpp"
#include "codec/cuda/blosclz_format.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_warp_decode.cuh"
#include "codec/cuda/lz4_warp_team_decode.cuh"
#include "codec/cuda/warp_copy_steps.cuh"
#include "guarded_output.hpp"

namespace cuzarr::gpu {
namespace {

using Bytes = std::vector<unsigned char>;
using test::warp_emulation::kLanes;
using test::warp_emulation::run_warp;
using test::warp_emulation::run_warps;

using test::expect_guard_intact;
using test::kGuard;
using test::kGuardByte;

struct WarpDecode {
  DecodeResult result;
  Bytes out;  // capacity + kGuard bytes
};

// kRoundBytes: the bytes of a lane's copy round (the decode kernel's kDecodeRoundBytes is 4).
template <int kRoundBytes = detail::kLaneRoundBytes>
WarpDecode warp_decode(const Bytes& in, uint64_t capacity) {
  WarpDecode d;
  d.out.assign(capacity + kGuard, kGuardByte);
  std::vector<DecodeResult> per_lane(kLanes);
  detail::Lz4StepQueue queue;  // the warp's shared memory
  run_warp([&](unsigned lane) {
    per_lane[lane] = detail::warp_lz4_decode<detail::kLz4QueueSlots, kRoundBytes>(
        in.data(), in.size(), d.out.data(), capacity, lane, queue);
  });
  for (unsigned lane = 1; lane < kLanes; ++lane) {
    EXPECT_EQ(per_lane[lane].status, per_lane[0].status) << "lane " << lane;
    EXPECT_EQ(per_lane[lane].size, per_lane[0].size) << "lane " << lane;
  }
  d.result = per_lane[0];
  return d;
}

Bytes lz4_compress(const Bytes& data) {
  Bytes block(LZ4_compressBound(static_cast<int>(data.size())));
  const int n = LZ4_compress_default(reinterpret_cast<const char*>(data.data()),
                                     reinterpret_cast<char*>(block.data()),
                                     static_cast<int>(data.size()), static_cast<int>(block.size()));
  block.resize(static_cast<size_t>(n));
  return block;
}

// Data whose LZ4 blocks exercise every path of the parser: short sequences (parsed 32 positions
// at a time), literal runs and matches with one or several extra length bytes (the scalar
// parser), overlapping matches of small distance, incompressible stretches.
Bytes make_data(int family, size_t size, std::mt19937_64& rng) {
  Bytes d(size);
  for (size_t i = 0; i < size; ++i) {
    switch (family) {
      case 0:  // quantized field: steps of 32, one sample in five off by a little
        d[i] = static_cast<unsigned char>((i / 5) % 7 * 32 + (rng() % 5 == 0 ? rng() % 4 : 0));
        break;
      case 1:  // repeats of recent bytes: short matches at small distances
        d[i] = i > 8 && rng() % 10 != 0 ? d[i - 1 - rng() % 8] : static_cast<unsigned char>(rng());
        break;
      case 2:  // long literal runs between long runs of one byte
        d[i] = i % 700 < 330 ? static_cast<unsigned char>(rng()) : 9;
        break;
      default:  // incompressible
        d[i] = static_cast<unsigned char>(rng());
    }
  }
  return d;
}

TEST(Lz4WarpDecode, DecodesLiblz4BlocksExactly) {
  std::mt19937_64 rng(2026);
  for (int family = 0; family < 4; ++family) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{13}, size_t{700}, size_t{5000}}) {
      const Bytes data = make_data(family, size, rng);
      const Bytes block = lz4_compress(data);
      for (const WarpDecode& d : {warp_decode(block, size), warp_decode<4>(block, size)}) {
        ASSERT_EQ(d.result.status, DeviceChunkStatus::ok) << family << " " << size;
        ASSERT_EQ(d.result.size, size) << family << " " << size;
        ASSERT_TRUE(std::equal(data.begin(), data.end(), d.out.begin())) << family << " " << size;
        expect_guard_intact(d.out, size);
      }
    }
  }
}

// Damage of kind `trial`: 0 truncates the block, 1 makes the capacity too small, others change 3
// random bytes.
void damage(int trial, Bytes& block, uint64_t& capacity, std::mt19937_64& rng) {
  if (trial == 0) {
    block.resize(rng() % block.size());  // truncated
  } else if (trial == 1) {
    capacity -= 1 + rng() % 500;  // too small
  } else {
    for (int k = 0; k < 3; ++k) block[rng() % block.size()] = static_cast<unsigned char>(rng());
  }
}

TEST(Lz4WarpDecode, DamagedBlocksGiveTheSerialDecodersVerdict) {
  std::mt19937_64 rng(7);
  for (int family = 0; family < 3; ++family) {
    const Bytes data = make_data(family, 4000, rng);
    const Bytes block = lz4_compress(data);
    for (int trial = 0; trial < 4; ++trial) {
      Bytes bad = block;
      uint64_t capacity = data.size();
      damage(trial, bad, capacity, rng);
      Bytes serial(capacity + kGuard, kGuardByte);
      const DecodeResult s =
          lz4_decode_block_serial(bad.data(), bad.size(), serial.data(), capacity);
      for (const WarpDecode& d : {warp_decode(bad, capacity), warp_decode<4>(bad, capacity)}) {
        ASSERT_EQ(d.result.status, s.status) << family << " " << trial;
        ASSERT_EQ(d.result.size, s.size) << family << " " << trial;
        if (s.status == DeviceChunkStatus::ok) {
          ASSERT_TRUE(std::equal(serial.begin(), serial.begin() + s.size, d.out.begin()));
        }
        expect_guard_intact(d.out, capacity);
      }
    }
  }
}

// The parser's staged input (Lz4StagedInput) gives every byte a window reads, at every alignment
// of the input, as the window moves on by steps of 1 to 40 bytes and now and then jumps up to
// 3000 bytes (a literal run parsed by the scalar parser).
TEST(Lz4StagedInput, GivesEveryByteAWindowReads) {
  std::mt19937_64 rng(31);
  for (size_t size :
       {size_t{1}, size_t{7}, size_t{300}, size_t{1029}, size_t{6000}, size_t{40000}}) {
    for (size_t shift = 0; shift < 8; ++shift) {
      Bytes buffer(shift + size);  // 16-byte aligned storage: the block starts `shift` bytes in
      for (auto& b : buffer) b = static_cast<unsigned char>(rng());
      const unsigned char* in = buffer.data() + shift;
      alignas(8) unsigned char ring[detail::Lz4StagedInput::kRingBytes];
      std::vector<size_t> wrong(kLanes, 0);
      run_warp([&](unsigned lane) {
        detail::Lz4StagedInput input(in, static_cast<uint32_t>(size), ring);
        std::mt19937_64 steps(static_cast<uint64_t>(size * 8 + shift));  // alike on every lane
        for (uint32_t ip = 0; ip < size;
             ip += 1 + static_cast<uint32_t>(steps() % 8 == 0 ? steps() % 3000 : steps() % 40)) {
          input.prepare(ip, lane);
          const uint32_t end =
              static_cast<uint32_t>(std::min<size_t>(size, size_t{ip} + detail::kLz4WindowReach));
          for (uint32_t pos = ip + lane; pos < end; pos += kLanes) {
            if (input.byte(pos) != in[pos]) ++wrong[lane];
          }
        }
      });
      for (unsigned lane = 0; lane < kLanes; ++lane) {
        ASSERT_EQ(wrong[lane], 0u) << "size " << size << " shift " << shift << " lane " << lane;
      }
    }
  }
}

// A team of warps (lz4_warp_team_decode.cuh): the parser, with kStaged its stager, and kExecutors
// executors run at once, as on the GPU. The result is the parser's. The block is read `offset`
// bytes into a 16-byte aligned buffer (the parser stages its input by aligned 8-byte words).
// kLongItemsOutOfLine: the executors' long copies as the split decoder's part kernel makes them.
template <unsigned kExecutors, bool kStaged, bool kLongItemsOutOfLine = false>
WarpDecode team_decode(const Bytes& block, uint64_t capacity, size_t offset) {
  Bytes buffer(offset + block.size());
  std::copy(block.begin(), block.end(), buffer.begin() + static_cast<std::ptrdiff_t>(offset));
  const unsigned char* in = buffer.data() + offset;
  WarpDecode d;
  d.out.assign(capacity + kGuard, kGuardByte);
  // The block's shared memory.
  auto shared = std::make_unique<detail::Lz4TeamShared<kExecutors, kStaged>>();
  detail::lz4_team_reset(*shared, 0);
  constexpr unsigned kFirstExecutor = kStaged ? 2 : 1;
  const auto size = static_cast<uint32_t>(block.size());
  run_warps(kFirstExecutor + kExecutors, [&](unsigned warp, unsigned lane) {
    if (warp == 0) {
      detail::warp_lz4_team_parse(in, size, capacity, lane, *shared);
    } else if (warp < kFirstExecutor) {
      if constexpr (kStaged) detail::warp_lz4_team_stage(in, size, lane, *shared);
    } else {
      detail::warp_lz4_team_execute<kExecutors, kStaged, detail::Lz4TeamNoExtra,
                                    kLongItemsOutOfLine>(in, d.out.data(), warp - kFirstExecutor,
                                                         lane, *shared);
    }
  });
  d.result = {shared->status, shared->parsed};
  return d;
}

template <bool kStaged>
WarpDecode team_decode(unsigned executors, const Bytes& block, uint64_t capacity, size_t offset) {
  switch (executors) {
    case 1:
      return team_decode<1, kStaged>(block, capacity, offset);
    case 2:
      return team_decode<2, kStaged>(block, capacity, offset);
    default:
      return team_decode<3, kStaged>(block, capacity, offset);
  }
}

// A team of `executors`, with a stager when `staged`.
WarpDecode team_decode(unsigned executors, bool staged, const Bytes& block, uint64_t capacity,
                       size_t offset = 0) {
  return staged ? team_decode<true>(executors, block, capacity, offset)
                : team_decode<false>(executors, block, capacity, offset);
}

// Data whose matches mostly read 60 to 260 bytes back: one or two groups of 32 short sequences
// before their own, which another executor of the team writes.
Bytes recent_repeats(size_t size, std::mt19937_64& rng) {
  Bytes d(size);
  for (size_t i = 0; i < size; ++i) {
    d[i] = i >= 260 && rng() % 12 != 0 ? d[i - 60 - rng() % 200]
                                       : static_cast<unsigned char>(rng() % 3);
  }
  return d;
}

TEST(Lz4WarpTeamDecode, EveryTeamSizeDecodesLiblz4BlocksExactly) {
  std::mt19937_64 rng(2027);
  for (const bool staged : {false, true}) {
    for (unsigned executors = 1; executors <= detail::kLz4TeamMaxExecutors; ++executors) {
      SCOPED_TRACE(std::string(staged ? "with stager, " : "") + std::to_string(executors));
      for (int family = 0; family < 5; ++family) {
        for (size_t size : {size_t{0}, size_t{13}, size_t{12000}}) {
          const Bytes data = family == 4 ? recent_repeats(size, rng) : make_data(family, size, rng);
          const Bytes block = lz4_compress(data);
          const size_t offset = (executors * 5 + static_cast<size_t>(family)) % 8;
          const WarpDecode d = team_decode(executors, staged, block, size, offset);
          ASSERT_EQ(d.result.status, DeviceChunkStatus::ok) << family << " " << size;
          ASSERT_EQ(d.result.size, size) << family << " " << size;
          ASSERT_TRUE(std::equal(data.begin(), data.end(), d.out.begin())) << family << " " << size;
          expect_guard_intact(d.out, size);
        }
      }
    }
  }
}

// The split decoder's team (two executors, no stager) with its long copies out of line
// (warp_copy_long_items_out_of_line): literal runs and matches longer than 64 bytes, overlapping
// ones too, at several input offsets.
TEST(Lz4WarpTeamDecode, LongCopiesOutOfLineDecodeLiblz4BlocksExactly) {
  std::mt19937_64 rng(2029);
  for (int family = 0; family < 5; ++family) {
    for (size_t size : {size_t{0}, size_t{13}, size_t{12000}}) {
      const Bytes data = family == 4 ? recent_repeats(size, rng) : make_data(family, size, rng);
      const Bytes block = lz4_compress(data);
      const size_t offset = (size + static_cast<size_t>(family)) % 8;
      const WarpDecode d = team_decode<2, false, true>(block, size, offset);
      ASSERT_EQ(d.result.status, DeviceChunkStatus::ok) << family << " " << size;
      ASSERT_EQ(d.result.size, size) << family << " " << size;
      ASSERT_TRUE(std::equal(data.begin(), data.end(), d.out.begin())) << family << " " << size;
      expect_guard_intact(d.out, size);
    }
  }
}

TEST(Lz4WarpTeamDecode, DamagedBlocksGiveTheSerialDecodersVerdict) {
  std::mt19937_64 rng(8);
  for (const bool staged : {false, true}) {
    for (unsigned executors = 1; executors <= detail::kLz4TeamMaxExecutors; ++executors) {
      SCOPED_TRACE(std::string(staged ? "with stager, " : "") + std::to_string(executors));
      for (int family = 0; family < 5; ++family) {
        const Bytes data = family == 4 ? recent_repeats(3000, rng) : make_data(family, 3000, rng);
        const Bytes block = lz4_compress(data);
        for (int trial = 0; trial < 3; ++trial) {
          Bytes bad = block;
          uint64_t capacity = data.size();
          damage(trial, bad, capacity, rng);
          const WarpDecode d =
              team_decode(executors, staged, bad, capacity, static_cast<size_t>(trial) * 3);
          Bytes serial(capacity + kGuard, kGuardByte);
          const DecodeResult s =
              lz4_decode_block_serial(bad.data(), bad.size(), serial.data(), capacity);
          ASSERT_EQ(d.result.status, s.status) << family << " " << trial;
          ASSERT_EQ(d.result.size, s.size) << family << " " << trial;
          // The bytes of the steps before the failing one are the serial decoder's.
          ASSERT_TRUE(std::equal(serial.begin(), serial.begin() + s.size, d.out.begin()))
              << family << " " << trial;
          expect_guard_intact(d.out, capacity);
        }
      }
    }
  }
}

// The warp decoder keeps input positions in 32 bits: larger blocks get a status before any byte
// is read.
TEST(Lz4WarpDecode, BlocksOfTwoGibibytesOrMoreAreUnsupported) {
  const Bytes block = lz4_compress(Bytes(100, 7));
  Bytes out(100 + kGuard, kGuardByte);
  std::vector<DecodeResult> per_lane(kLanes);
  detail::Lz4StepQueue queue;
  run_warp([&](unsigned lane) {
    per_lane[lane] = detail::warp_lz4_decode(block.data(), detail::kLz4WarpMaxInput, out.data(),
                                             100, lane, queue);
  });
  for (const DecodeResult& r : per_lane) {
    EXPECT_EQ(r.status, DeviceChunkStatus::unsupported);
    EXPECT_EQ(r.size, 0u);
  }
  expect_guard_intact(out, 0);
}

// A lane copy finds each byte's source index with a multiply and a shift: it must be the
// remainder for every period (clamped above kLaneModuloLimit, where no lane item wraps) and
// every index a round can reach.
TEST(WarpCopySteps, LaneModuloIsTheRemainder) {
  for (uint64_t period = 1; period <= 3 * detail::kLaneModuloLimit; ++period) {
    const detail::LaneItemModulo modulo(period);
    const uint64_t clamped = std::min<uint64_t>(period, detail::kLaneModuloLimit);
    ASSERT_EQ(modulo.period, clamped);
    for (uint32_t x = 0; x < detail::kLaneModuloLimit + detail::kLaneRoundBytes; ++x) {
      ASSERT_EQ(modulo(x), x % clamped) << "period " << period << " x " << x;
    }
  }
  // No parser lets a period of 0 through; it would be a plain copy.
  EXPECT_EQ(detail::LaneItemModulo(0).period, detail::kLaneModuloLimit);
}

// Lanes' items of every length a lane copies itself (none, 1 .. kLaneItemBytes, some longer,
// some lanes inactive), plain or repeating their source with a short period, copied by
// warp_copy_items<kRoundBytes, kLongItemsOutOfLine, kRounds>: every active item gets its bytes
// and nothing else is written (with LaneRounds::predicated a lane whose item has ended, or that
// has none, still runs the other lanes' rounds, every store predicated off).
template <int kRoundBytes, bool kLongItemsOutOfLine, detail::LaneRounds kRounds>
void expect_lane_items_copied(uint64_t seed) {
  constexpr size_t kSource = 64, kSlot = 512;  // a lane's repeated source, then its item
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 40; ++trial) {
    Bytes input(kLanes * kSlot), out(kLanes * kSlot + kGuard, kGuardByte);
    for (auto& b : input) b = static_cast<unsigned char>(rng());
    std::vector<uint64_t> length(kLanes), period(kLanes);
    std::vector<bool> active(kLanes);
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      const uint64_t pick = rng() % 10;
      length[lane] = pick == 0 ? 0 : pick == 1 ? 65 + rng() % 300 : 1 + rng() % 64;
      active[lane] = length[lane] > 0 && rng() % 8 != 0;
      // A repeating item reads the kSource bytes before it, written before the copy.
      period[lane] = trial % 2 == 0 && rng() % 2 == 0 ? 1 + rng() % kSource : UINT64_MAX;
      for (size_t t = 0; t < kSource; ++t) out[lane * kSlot + t] = input[lane * kSlot + t];
    }
    Bytes expected = out;
    for (unsigned lane = 0; lane < kLanes; ++lane) {
      if (!active[lane]) continue;
      const size_t at = lane * kSlot + kSource;
      for (uint64_t t = 0; t < length[lane]; ++t) {
        expected[at + t] =
            period[lane] == UINT64_MAX ? input[at + t] : out[at - period[lane] + t % period[lane]];
      }
    }
    run_warp([&](unsigned lane) {
      const size_t at = lane * kSlot + kSource;
      const bool repeats = period[lane] != UINT64_MAX;
      detail::warp_copy_items<kRoundBytes, kLongItemsOutOfLine, kRounds>(
          active[lane], out.data() + at,
          repeats ? out.data() + at - period[lane] : input.data() + at, length[lane], period[lane],
          lane);
    });
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), out.begin()))
        << "round bytes " << kRoundBytes << ", predicated "
        << (kRounds == detail::LaneRounds::predicated) << ", trial " << trial;
    expect_guard_intact(out, kLanes * kSlot);
  }
}

TEST(WarpCopySteps, BranchedAndPredicatedRoundsCopyOnlyTheItems) {
  using detail::LaneRounds;
  expect_lane_items_copied<4, false, LaneRounds::branched>(21);
  expect_lane_items_copied<8, false, LaneRounds::branched>(22);
  expect_lane_items_copied<4, false, LaneRounds::predicated>(23);
  expect_lane_items_copied<8, false, LaneRounds::predicated>(24);
  expect_lane_items_copied<4, true, LaneRounds::predicated>(25);  // the split's part kernel
}

// Groups of steps whose matches read the group's own literals and earlier matches (chains the
// waves must order), overlap their own output, or are long (copied by the whole warp): executed
// group by group, they must give the bytes of a serial execution.
TEST(WarpCopySteps, GroupsExecuteLikeTheSerialOrder) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 6; ++round) {
    Bytes literals(4096);
    for (auto& b : literals) b = static_cast<unsigned char>(rng());
    std::vector<CopyStep> steps;
    uint64_t total = 0, used = 0;
    while (steps.size() < 80) {
      CopyStep s;
      s.literal_length = rng() % 4 == 0 ? 70 + rng() % 100 : rng() % 6;
      s.literal_start = used;
      used += s.literal_length;
      if (used > literals.size()) break;
      const uint64_t at = total + s.literal_length;
      if (at > 0) {
        s.match_length = rng() % 5 == 0 ? 65 + rng() % 200 : 3 + rng() % 20;
        s.match_distance = 1 + rng() % std::min<uint64_t>(at, rng() % 2 == 0 ? 8 : 200);
      }
      total += s.literal_length + s.match_length;
      steps.push_back(s);
    }
    Bytes expected(total);
    uint64_t op = 0;
    for (const CopyStep& s : steps) {
      for (uint64_t t = 0; t < s.literal_length; ++t)
        expected[op + t] = literals[s.literal_start + t];
      op += s.literal_length;
      for (uint64_t t = 0; t < s.match_length; ++t)
        expected[op + t] = expected[match_source(op, s.match_distance, t)];
      op += s.match_length;
    }
    Bytes out(total + kGuard, kGuardByte);
    run_warp([&](unsigned lane) {
      uint64_t at = 0;
      for (size_t first = 0; first < steps.size(); first += kLanes) {
        detail::WarpStepGroup g;
        g.count = static_cast<unsigned>(std::min<size_t>(kLanes, steps.size() - first));
        if (lane < g.count) {
          const CopyStep& s = steps[first + lane];
          g.mine.literals = literals.data() + s.literal_start;
          g.mine.literal_length = s.literal_length;
          g.mine.match_distance = s.match_distance;
          g.mine.match_length = s.match_length;
        }
        at = detail::warp_execute_group(g, out.data(), at, lane);
      }
    });
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), out.begin())) << "round " << round;
    expect_guard_intact(out, total);
  }
}

#if CUZARR_HAVE_BLOSC

// blosclz streams (c-blosc, no shuffle, one stream per block), intact and damaged: the warp
// decoder gives the serial decoder's status, size and bytes.
TEST(BlosclzWarpDecode, MatchesTheSerialDecoder) {
  std::mt19937_64 rng(5);
  for (int family = 0; family < 3; ++family) {
    const Bytes data = make_data(family, 12000, rng);
    Bytes chunk(data.size() + BLOSC_MAX_OVERHEAD);
    const int n = blosc_compress_ctx(9, BLOSC_NOSHUFFLE, 1, data.size(), data.data(), chunk.data(),
                                     chunk.size(), "blosclz", 4096, 1);
    ASSERT_GT(n, 0);
    BloscHeader h;
    ASSERT_EQ(blosc_parse_header(chunk.data(), static_cast<uint64_t>(n), data.size(), h),
              DeviceChunkStatus::ok);
    int compressed_streams = 0;
    for (uint64_t j = 0; j < h.nblocks && !h.memcpyed(); ++j) {
      const BloscBlock b = blosc_block(h, j);
      uint64_t pos = 0, csize = 0;
      ASSERT_EQ(blosc_block_start(chunk.data(), h, b, j, pos), DeviceChunkStatus::ok);
      ASSERT_EQ(blosc_stream_size(chunk.data(), h, pos, csize), DeviceChunkStatus::ok);
      if (csize == b.stream_size) continue;  // stored, not blosclz
      ++compressed_streams;
      Bytes stream(chunk.begin() + static_cast<std::ptrdiff_t>(pos),
                   chunk.begin() + static_cast<std::ptrdiff_t>(pos + csize));
      for (int trial = 0; trial < 2; ++trial) {
        if (trial == 1) stream[rng() % stream.size()] = static_cast<unsigned char>(rng());
        const uint64_t capacity = b.stream_size;
        Bytes out(capacity + kGuard, kGuardByte), serial(capacity + kGuard, kGuardByte);
        std::vector<DecodeResult> per_lane(kLanes);
        run_warp([&](unsigned lane) {
          per_lane[lane] =
              detail::warp_blosclz_decode(stream.data(), stream.size(), out.data(), capacity, lane);
        });
        const DecodeResult s =
            blosclz_decode_serial(stream.data(), stream.size(), serial.data(), capacity);
        ASSERT_EQ(per_lane[0].status, s.status) << family << " " << j << " " << trial;
        ASSERT_EQ(per_lane[0].size, s.size) << family << " " << j << " " << trial;
        if (s.status == DeviceChunkStatus::ok) {
          ASSERT_TRUE(std::equal(serial.begin(), serial.begin() + s.size, out.begin()));
        }
        expect_guard_intact(out, capacity);
      }
    }
    EXPECT_GT(compressed_streams, 0) << "family " << family;
  }
}

#endif  // CUZARR_HAVE_BLOSC

}  // namespace
}  // namespace cuzarr::gpu
