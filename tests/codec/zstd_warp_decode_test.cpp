// The GPU's warp-cooperative Zstandard decoder run on the CPU with emulated warps: the warp-
// parallel Huffman literal decoding (zstd_warp_huffman.cuh) on valid and damaged streams
// against the serial stream decoder, and the whole warp-per-chunk decoder
// (zstd_warp_decode.cuh) byte-exact against libzstd, with the serial decoder's status on damaged
// frames and nothing written past the capacity.
#include "warp_emulator.hpp"
// The emulator must come before the device headers.
#include <gtest/gtest.h>
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "codec/cuda/zstd_warp_decode.cuh"
#include "codec/cuda/zstd_warp_huffman.cuh"
#include "gpu_codec_inputs.hpp"
#include "guarded_output.hpp"
#include "zstd_test_frames.hpp"

namespace cuzarr::gpu {
namespace {

using Bytes = std::vector<unsigned char>;
using test::warp_emulation::kLanes;
using test::warp_emulation::run_warp;

using test::expect_guard_intact;
using test::kGuard;
using test::kGuardByte;
using test::words_input;

// ---------------------------------------------------------------------------------------------
// Huffman streams built here: a random canonical table and symbols encoded with it.

/// A table from random weights (direct 4-bit representation, RFC 8878, 4.2.1.1): codes of up to
/// 11 bits, some symbols absent; the weights fill 2^max_bits so that the implied last weight is a
/// power of two.
ZstdHuffmanTable random_table(std::mt19937& rng) {
  for (;;) {
    const unsigned max_bits = 1 + rng() % kZstdMaxHuffmanBits;
    const unsigned wanted = 1 + rng() % 127;
    uint32_t left = 1u << max_bits;
    std::vector<unsigned> weights;
    while (weights.size() < wanted && left > 1) {
      if (rng() % 4 == 0) {
        weights.push_back(0);
        continue;
      }
      const unsigned w = 1 + rng() % (zstd_highbit(left / 2) + 1);  // 2^(w-1) <= left / 2
      weights.push_back(w);
      left -= 1u << (w - 1);
    }
    while ((left & (left - 1)) != 0 && weights.size() < 128) {
      const uint32_t low = left & (~left + 1);
      weights.push_back(zstd_highbit(low) + 1);
      left -= low;
    }
    if (weights.empty()) continue;
    Bytes description{static_cast<unsigned char>(127 + weights.size())};
    for (size_t i = 0; i < weights.size(); i += 2) {
      const unsigned low = i + 1 < weights.size() ? weights[i + 1] : 0;
      description.push_back(static_cast<unsigned char>(weights[i] << 4 | low));
    }
    ZstdHuffmanTable table;
    ZstdHuffmanScratch scratch;
    uint64_t used = 0;
    if (zstd_huffman_read_table(description.data(), description.size(), table, scratch, used) ==
        DeviceChunkStatus::ok) {
      return table;
    }
  }
}

/// Encodes `symbols` with `table` as a backward bitstream: written last symbol first, so that
/// reading from the end gives the first symbol first; then the end marker.
Bytes huffman_encode(const ZstdHuffmanTable& table, const Bytes& symbols) {
  const unsigned max_bits = table.max_bits;
  std::vector<uint32_t> code(256, 0), length(256, 0);
  for (uint32_t cell = (1u << max_bits); cell-- > 0;) {  // the first cell of each code wins
    const ZstdHuffmanCell c = table.cells[cell];
    code[c.symbol] = cell >> (max_bits - c.bits);
    length[c.symbol] = c.bits;
  }
  Bytes out;
  uint64_t buffer = 0;
  unsigned count = 0;
  const auto put = [&](uint32_t value, unsigned bits) {
    buffer |= uint64_t{value} << count;
    count += bits;
    while (count >= 8) {
      out.push_back(static_cast<unsigned char>(buffer));
      buffer >>= 8;
      count -= 8;
    }
  };
  for (size_t i = symbols.size(); i-- > 0;) put(code[symbols[i]], length[symbols[i]]);
  put(1, 1);
  if (count > 0) put(0, 8 - count);
  return out;
}

/// Symbols the table can encode, drawn from its codes.
Bytes random_symbols(std::mt19937& rng, const ZstdHuffmanTable& table, size_t n) {
  Bytes present;
  for (uint32_t cell = 0; cell < (1u << table.max_bits); ++cell) {
    present.push_back(table.cells[cell].symbol);  // shorter codes cover more cells
  }
  Bytes out(n);
  for (auto& s : out) s = present[rng() % present.size()];
  return out;
}

struct StreamSet {
  std::vector<std::unique_ptr<unsigned char[]>> storage;  // exact-size copies
  ZstdHuffmanStreams p{};
};

/// Streams as a block's literals section lays them out: stream k's literals at offset[k].
StreamSet make_streams(const std::vector<Bytes>& streams, const std::vector<uint64_t>& literals) {
  StreamSet s;
  s.p.count = static_cast<uint32_t>(streams.size());
  uint64_t offset = 0;
  for (size_t k = 0; k < streams.size(); ++k) {
    s.storage.emplace_back(new unsigned char[std::max<size_t>(1, streams[k].size())]);
    if (!streams[k].empty()) std::memcpy(s.storage[k].get(), streams[k].data(), streams[k].size());
    s.p.data[k] = s.storage[k].get();
    s.p.size[k] = streams[k].size();
    s.p.offset[k] = offset;
    s.p.literals[k] = literals[k];
    offset += literals[k];
  }
  return s;
}

struct HuffmanResult {
  DeviceChunkStatus status;
  Bytes out;  // the literals + kGuard bytes
};

HuffmanResult warp_huffman(const ZstdHuffmanTable& table, const StreamSet& s, uint64_t total) {
  HuffmanResult r{DeviceChunkStatus::ok, Bytes(total + kGuard, kGuardByte)};
  std::vector<DeviceChunkStatus> per_lane(kLanes);
  run_warp([&](unsigned lane) {
    per_lane[lane] = detail::warp_zstd_decode_huffman(table, s.p, r.out.data(), lane);
  });
  for (unsigned lane = 1; lane < kLanes; ++lane) EXPECT_EQ(per_lane[lane], per_lane[0]) << lane;
  r.status = per_lane[0];
  return r;
}

HuffmanResult serial_huffman(const ZstdHuffmanTable& table, const StreamSet& s, uint64_t total) {
  HuffmanResult r{DeviceChunkStatus::ok, Bytes(total + kGuard, kGuardByte)};
  for (unsigned k = 0; k < s.p.count; ++k) {
    const DeviceChunkStatus h = zstd_huffman_decode_stream(
        table, s.p.data[k], s.p.size[k], r.out.data() + s.p.offset[k], s.p.literals[k]);
    if (h != DeviceChunkStatus::ok) r.status = h;
  }
  return r;
}

TEST(ZstdWarpHuffman, DecodesValidStreamsOfEverySizeLikeTheSerialDecoder) {
  std::mt19937 rng(20261122);
  for (int round = 0; round < 160; ++round) {
    const ZstdHuffmanTable table = random_table(rng);
    const unsigned streams = round % 2 == 0 ? 1 : 4;
    const size_t n = round < 40 ? rng() % 64 : round < 100 ? rng() % 4000 : rng() % 40000;
    SCOPED_TRACE("round " + std::to_string(round) + ", " + std::to_string(streams) + " streams, " +
                 std::to_string(n) + " literals");
    const Bytes symbols = random_symbols(rng, table, n);
    std::vector<Bytes> encoded;
    std::vector<uint64_t> literals;
    // The four-stream split of RFC 8878, 3.1.1.3.1.6: three streams of (n + 3) / 4 literals.
    const size_t quarter = (n + 3) / 4;
    for (unsigned k = 0; k < streams; ++k) {
      const size_t from = streams == 1 ? 0 : std::min(n, k * quarter);
      const size_t to = streams == 1 || k == 3 ? n : std::min(n, (k + 1) * quarter);
      encoded.push_back(huffman_encode(table, Bytes(symbols.begin() + from, symbols.begin() + to)));
      literals.push_back(to - from);
    }
    const StreamSet s = make_streams(encoded, literals);
    const HuffmanResult warp = warp_huffman(table, s, n);
    ASSERT_EQ(warp.status, DeviceChunkStatus::ok);
    ASSERT_TRUE(std::equal(symbols.begin(), symbols.end(), warp.out.begin()));
    expect_guard_intact(warp.out, n);
  }
}

TEST(ZstdWarpHuffman, DamagedStreamsFailExactlyWhenTheSerialDecoderFails) {
  std::mt19937 rng(20261123);
  int failures = 0;
  for (int round = 0; round < 300; ++round) {
    const ZstdHuffmanTable table = random_table(rng);
    const unsigned streams = round % 2 == 0 ? 1 : 4;
    std::vector<Bytes> encoded;
    std::vector<uint64_t> literals;
    for (unsigned k = 0; k < streams; ++k) {
      const size_t n = rng() % 6000;
      encoded.push_back(huffman_encode(table, random_symbols(rng, table, n)));
      literals.push_back(n);
    }
    const unsigned k = rng() % streams;
    switch (round % 5) {
      case 0:  // bits flipped
        for (int f = 0; f < 1 + round % 4; ++f) {
          encoded[k][rng() % encoded[k].size()] ^= static_cast<unsigned char>(1u << (rng() % 8));
        }
        break;
      case 1:  // truncated at either end
        if (rng() % 2 == 0) {
          encoded[k].resize(rng() % encoded[k].size());
        } else {
          encoded[k].erase(encoded[k].begin(), encoded[k].begin() + rng() % encoded[k].size());
        }
        break;
      case 2:  // a literal count off by a little
        literals[k] = literals[k] + 1 - rng() % 3;
        break;
      case 3:  // random bytes
        for (auto& b : encoded[k]) b = static_cast<unsigned char>(rng());
        break;
      default:  // valid
        break;
    }
    uint64_t total = 0;
    for (uint64_t n : literals) total += n;
    SCOPED_TRACE("round " + std::to_string(round));
    const StreamSet s = make_streams(encoded, literals);
    const HuffmanResult serial = serial_huffman(table, s, total);
    const HuffmanResult warp = warp_huffman(table, s, total);
    ASSERT_EQ(warp.status, serial.status);
    if (warp.status == DeviceChunkStatus::ok) {
      ASSERT_TRUE(std::equal(serial.out.begin(), serial.out.begin() + total, warp.out.begin()));
    }
    expect_guard_intact(warp.out, total);
    failures += warp.status != DeviceChunkStatus::ok;
  }
  EXPECT_GT(failures, 150);  // most damage is detected
}

// ---------------------------------------------------------------------------------------------
// The whole warp-per-chunk decoder.

struct WarpZstd {
  DecodeResult result;
  Bytes out;  // capacity + kGuard bytes
};

WarpZstd warp_zstd(const Bytes& frame, uint64_t capacity, bool verify = true) {
  WarpZstd d{{DeviceChunkStatus::ok, 0}, Bytes(capacity + kGuard, kGuardByte)};
  auto in = std::unique_ptr<unsigned char[]>(new unsigned char[std::max<size_t>(1, frame.size())]);
  if (!frame.empty()) std::memcpy(in.get(), frame.data(), frame.size());
  auto workspace = std::make_unique<ZstdWorkspace>();
  std::vector<ZstdSequenceCodes> codes(kLanes);
  std::vector<DecodeResult> per_lane(kLanes);
  run_warp([&](unsigned lane) {
    per_lane[lane] = detail::warp_zstd_decode(in.get(), frame.size(), d.out.data(), capacity,
                                              workspace.get(), codes.data(), verify, lane);
  });
  for (unsigned lane = 1; lane < kLanes; ++lane) {
    EXPECT_EQ(per_lane[lane].status, per_lane[0].status) << "lane " << lane;
    EXPECT_EQ(per_lane[lane].size, per_lane[0].size) << "lane " << lane;
  }
  d.result = per_lane[0];
  return d;
}

DecodeResult serial_zstd(const Bytes& frame, uint64_t capacity, bool verify = true) {
  Bytes out(capacity);
  auto workspace = std::make_unique<ZstdWorkspace>();
  return zstd_decode_serial(frame.data(), frame.size(), out.data(), capacity, *workspace, verify);
}

TEST(ZstdWarpDecode, MatchesLibzstdForEveryFamilyAndLevel) {
  std::vector<test::NamedInput> inputs = test::input_families({1, 100, 4099, 70000});
  inputs.push_back({"words/70000", words_input(70000, 7)});
  for (const auto& [name, data] : inputs) {
    for (int level : {-7, 1, 3, 9, 19}) {
      if (data.size() > 4099 && level == 19) continue;  // slow to compress, nothing new
      SCOPED_TRACE(name + " level " + std::to_string(level));
      test::ZstdFrameParams params;
      params.level = level;
      params.checksum = level % 2 != 0;
      const Bytes frame = test::zstd_compress(data, params);
      const WarpZstd d = warp_zstd(frame, data.size());
      ASSERT_EQ(d.result.status, DeviceChunkStatus::ok);
      ASSERT_EQ(d.result.size, data.size());
      ASSERT_TRUE(std::equal(data.begin(), data.end(), d.out.begin()));
      expect_guard_intact(d.out, data.size());
    }
  }
}

TEST(ZstdWarpDecode, DamagedFramesGiveTheSerialDecodersStatus) {
  std::mt19937 rng(20261124);
  const Bytes words = words_input(20000, 31), field = test::smooth_uint16_input(20000, 32);
  int failures = 0;
  for (int round = 0; round < 40; ++round) {
    const Bytes& data = round % 2 == 0 ? words : field;
    test::ZstdFrameParams params;
    params.level = 1 + round % 9;
    params.checksum = round % 3 == 0;
    Bytes frame = test::zstd_compress(data, params);
    if (round % 4 == 3) {
      frame.resize(rng() % frame.size());  // truncated
    } else {
      for (int k = 0; k < 1 + round % 5; ++k) frame[rng() % frame.size()] ^= 1u << (rng() % 8);
    }
    SCOPED_TRACE("round " + std::to_string(round));
    const DecodeResult serial = serial_zstd(frame, data.size());
    const WarpZstd d = warp_zstd(frame, data.size());
    EXPECT_EQ(d.result.status, serial.status);
    EXPECT_EQ(d.result.size, serial.size);
    expect_guard_intact(d.out, data.size());
    failures += d.result.status != DeviceChunkStatus::ok;
  }
  EXPECT_GT(failures, 20);  // the damage is detected in most rounds
}

}  // namespace
}  // namespace cuzarr::gpu
