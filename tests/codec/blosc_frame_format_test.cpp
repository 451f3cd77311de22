// The c-blosc 1.x chunk logic the GPU kernels run, checked on the CPU against c-blosc itself:
// decoding what blosc_compress writes (lz4, lz4hc, blosclz; no / byte / bit shuffle; many type
// sizes, levels and block sizes; split and unsplit blocks), the block size c-blosc chooses, our
// encoder's output read back by blosc_decompress, the "unsupported" status for other compressors,
// and damaged chunks (an error, never an access outside the given buffers; run under ASan too).
#include "codec/cuda/blosc_frame_format.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gpu_codec_inputs.hpp"

#if CUZARR_HAVE_BLOSC
#include <blosc.h>
#endif

namespace cuzarr {
namespace {

using gpu::DeviceChunkStatus;
using Bytes = std::vector<unsigned char>;

struct Decoded {
  DeviceChunkStatus status;
  Bytes bytes;
};

// Decodes with exactly-sized heap buffers, so that ASan sees any overrun.
Decoded decode(const Bytes& chunk, size_t capacity) {
  auto in = std::make_unique<unsigned char[]>(chunk.size() + 1);
  if (!chunk.empty()) std::memcpy(in.get(), chunk.data(), chunk.size());
  Bytes out(capacity);
  gpu::BloscHeader h;
  uint64_t tmp_size = 0;
  if (gpu::blosc_parse_header(in.get(), chunk.size(), capacity, h) == DeviceChunkStatus::ok)
    tmp_size = h.blocksize;
  Bytes tmp(tmp_size);
  uint64_t produced = 0;
  const auto status =
      gpu::blosc_decode_serial(in.get(), chunk.size(), out.data(), capacity, tmp.data(), produced);
  EXPECT_LE(produced, capacity);
  out.resize(produced);
  return {status, out};
}

Bytes encode(const Bytes& input, const gpu::BloscEncodeParams& p) {
  Bytes out(gpu::blosc_max_encoded_size(input.size()));
  const auto layout = gpu::blosc_encode_layout(p, input.size());
  Bytes tmp(layout.blocksize);
  std::vector<uint32_t> table(gpu::kLz4HashEntries);
  const uint64_t n = gpu::blosc_encode_serial(input.data(), input.size(), p, out.data(), out.size(),
                                              tmp.data(), table.data());
  EXPECT_GT(n, 0u);
  out.resize(n);
  return out;
}

TEST(BloscFrameFormat, DecodesOurOwnEncoderOutput) {
  for (const auto& input : test::input_families({0, 1, 100, 128, 1000, 65536 + 41, 300000})) {
    for (uint32_t typesize : {1u, 2u, 4u, 8u, 17u}) {
      for (auto shuffle :
           {gpu::BloscShuffle::none, gpu::BloscShuffle::byte, gpu::BloscShuffle::bit}) {
        const Bytes chunk = encode(input.bytes, {5, typesize, shuffle, 0});
        const auto d = decode(chunk, input.bytes.size());
        ASSERT_EQ(d.status, DeviceChunkStatus::ok) << input.name;
        ASSERT_EQ(d.bytes, input.bytes) << input.name << " typesize " << typesize;
      }
    }
  }
}

#if CUZARR_HAVE_BLOSC

Bytes blosc_compress_bytes(const Bytes& in, int clevel, int shuffle, size_t typesize,
                           const char* compressor, size_t blocksize) {
  Bytes out(in.size() + BLOSC_MAX_OVERHEAD);
  const int n = blosc_compress_ctx(clevel, shuffle, typesize, in.size(), in.data(), out.data(),
                                   out.size(), compressor, blocksize, 1);
  EXPECT_GT(n, 0) << compressor;
  out.resize(static_cast<size_t>(n));
  return out;
}

TEST(BloscFrameFormat, DecodesCBloscOutput) {
  for (const auto& input : test::input_families({0, 1, 100, 127, 128, 1000, 65536 + 41, 300000})) {
    for (const char* compressor : {"lz4", "lz4hc", "blosclz"}) {
      for (int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
        for (size_t typesize :
             {size_t{1}, size_t{2}, size_t{4}, size_t{8}, size_t{16}, size_t{24}}) {
          for (int clevel : {1, 5, 9}) {
            const Bytes chunk =
                blosc_compress_bytes(input.bytes, clevel, shuffle, typesize, compressor, 0);
            const auto d = decode(chunk, input.bytes.size());
            ASSERT_EQ(d.status, DeviceChunkStatus::ok)
                << input.name << " " << compressor << " shuffle " << shuffle << " typesize "
                << typesize << " clevel " << clevel;
            ASSERT_EQ(d.bytes, input.bytes)
                << input.name << " " << compressor << " shuffle " << shuffle << " typesize "
                << typesize << " clevel " << clevel;
          }
        }
      }
    }
  }
}

TEST(BloscFrameFormat, DecodesForcedBlockSizesAndOddTypeSizes) {
  const Bytes input = test::smooth_float32_input(1 << 20, 5);
  for (size_t blocksize :
       {size_t{128}, size_t{1000}, size_t{4096}, size_t{65536}, size_t{300000}}) {
    for (size_t typesize : {size_t{3}, size_t{4}, size_t{7}, size_t{255}}) {
      for (int shuffle : {BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
        for (const char* compressor : {"lz4", "blosclz"}) {
          const Bytes chunk =
              blosc_compress_bytes(input, 5, shuffle, typesize, compressor, blocksize);
          const auto d = decode(chunk, input.size());
          ASSERT_EQ(d.status, DeviceChunkStatus::ok) << blocksize << " " << typesize;
          ASSERT_EQ(d.bytes, input) << blocksize << " typesize " << typesize << " " << compressor;
        }
      }
    }
  }
}

TEST(BloscFrameFormat, Decodes16MiBChunks) {
  const Bytes input = test::smooth_uint16_input(16 << 20, 6);
  for (int shuffle : {BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
    const Bytes chunk = blosc_compress_bytes(input, 5, shuffle, 2, "lz4", 0);
    const auto d = decode(chunk, input.size());
    ASSERT_EQ(d.status, DeviceChunkStatus::ok);
    EXPECT_EQ(d.bytes, input);
  }
}

TEST(BloscFrameFormat, BlockSizeIsTheOneCBloscChooses) {
  for (size_t nbytes : {size_t{128}, size_t{1000}, size_t{32768}, size_t{100000}, size_t{1 << 20},
                        size_t{4000037}}) {
    for (size_t typesize :
         {size_t{1}, size_t{2}, size_t{4}, size_t{8}, size_t{16}, size_t{17}, size_t{100}}) {
      for (int clevel : {1, 2, 3, 5, 6, 9}) {
        for (size_t forced : {size_t{0}, size_t{100}, size_t{262144}}) {
          const Bytes input = test::runs_input(nbytes, 1);
          const Bytes chunk =
              blosc_compress_bytes(input, clevel, BLOSC_SHUFFLE, typesize, "lz4", forced);
          ASSERT_GE(chunk.size(), 16u);
          const uint64_t theirs = gpu::load_le32(chunk.data() + 8);
          EXPECT_EQ(
              gpu::blosc_compute_blocksize(clevel, static_cast<uint32_t>(typesize), nbytes, forced),
              theirs)
              << nbytes << " bytes, typesize " << typesize << ", clevel " << clevel << ", forced "
              << forced;
          // Our encoder's split flag agrees too.
          const auto layout = gpu::blosc_encode_layout(
              {clevel, static_cast<uint32_t>(typesize), gpu::BloscShuffle::byte, forced}, nbytes);
          EXPECT_EQ(layout.flags & gpu::kBloscFlagDontSplit, chunk[2] & gpu::kBloscFlagDontSplit);
        }
      }
    }
  }
}

TEST(BloscFrameFormat, CBloscReadsOurEncoderOutput) {
  auto sizes = std::vector<size_t>{0, 1, 100, 127, 128, 1000, 65536 + 41, 1 << 20};
  for (const auto& input : test::input_families(sizes)) {
    for (uint32_t typesize : {1u, 2u, 4u, 8u, 16u, 24u}) {
      for (auto shuffle :
           {gpu::BloscShuffle::none, gpu::BloscShuffle::byte, gpu::BloscShuffle::bit}) {
        for (int clevel : {0, 1, 5, 9}) {
          for (uint64_t forced : {uint64_t{0}, uint64_t{4096}}) {
            // The full grid on small chunks; one setting per layout on the 1 MiB ones.
            if (input.bytes.size() > 100000 && (clevel != 5 || forced != 0)) continue;
            const Bytes chunk = encode(input.bytes, {clevel, typesize, shuffle, forced});
            size_t nbytes = 0, cbytes = 0, blocksize = 0;
            blosc_cbuffer_sizes(chunk.data(), &nbytes, &cbytes, &blocksize);
            ASSERT_EQ(nbytes, input.bytes.size());
            ASSERT_EQ(cbytes, chunk.size());
            Bytes out(input.bytes.size() + 1);
            const int n = blosc_decompress_ctx(chunk.data(), out.data(), out.size(), 1);
            ASSERT_EQ(n, static_cast<int>(input.bytes.size()))
                << input.name << " typesize " << typesize << " clevel " << clevel;
            out.resize(input.bytes.size());
            ASSERT_EQ(out, input.bytes) << input.name << " typesize " << typesize << " clevel "
                                        << clevel << " shuffle " << static_cast<int>(shuffle);
          }
        }
      }
    }
  }
}

// The encoder's layout (block size, split streams, the memcpyed form) is c-blosc's, and its lz4
// streams are LZ4_compress_fast's at c-blosc's acceleration (10 - clevel): its chunks are
// c-blosc's, byte for byte, given the destination numcodecs gives c-blosc (nbytes + 16).
TEST(BloscFrameFormat, OurEncoderWritesCBloscsChunks) {
  for (const auto& input : test::input_families({0, 1, 100, 1000, 65536 + 41, 300000, 1 << 20})) {
    for (uint32_t typesize : {1u, 2u, 4u, 8u}) {
      for (const int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
        const auto ours_shuffle = shuffle == BLOSC_NOSHUFFLE ? gpu::BloscShuffle::none
                                  : shuffle == BLOSC_SHUFFLE ? gpu::BloscShuffle::byte
                                                             : gpu::BloscShuffle::bit;
        for (int clevel : {0, 1, 3, 5, 9}) {
          for (uint64_t forced : {uint64_t{0}, uint64_t{4096}}) {
            // The full grid up to 300 000 bytes; one setting per layout on the 1 MiB ones.
            if (input.bytes.size() > 300000 && (clevel != 5 || forced != 0)) continue;
            const Bytes theirs =
                blosc_compress_bytes(input.bytes, clevel, shuffle, typesize, "lz4", forced);
            ASSERT_EQ(encode(input.bytes, {clevel, typesize, ours_shuffle, forced}), theirs)
                << input.name << " typesize " << typesize << " shuffle " << shuffle << " clevel "
                << clevel << " block size " << forced;
          }
        }
      }
    }
  }
}

TEST(BloscFrameFormat, OurEncoderCompressesSmoothData) {
  const Bytes input = test::smooth_uint16_input(1 << 20, 8);
  const Bytes ours = encode(input, {5, 2, gpu::BloscShuffle::byte, 0});
  const Bytes theirs = blosc_compress_bytes(input, 5, BLOSC_SHUFFLE, 2, "lz4", 0);
  EXPECT_LT(ours.size(), input.size());
  EXPECT_LT(ours.size(), theirs.size() * 3 / 2)
      << "ours " << ours.size() << ", c-blosc " << theirs.size();
}

TEST(BloscFrameFormat, OtherCompressorsAreUnsupported) {
  const Bytes input = test::smooth_uint16_input(100000, 9);
  const std::pair<const char*, int> compressors[] = {{"snappy", 2}, {"zlib", 3}, {"zstd", 4}};
  int checked = 0;
  for (const auto& [compressor, code] : compressors) {
    Bytes out(input.size() + BLOSC_MAX_OVERHEAD);
    const int n = blosc_compress_ctx(5, BLOSC_SHUFFLE, 2, input.size(), input.data(), out.data(),
                                     out.size(), compressor, 0, 1);
    if (n <= 0) continue;  // this c-blosc build lacks it
    out.resize(static_cast<size_t>(n));
    // c-blosc may fall back to another compressor, or store the chunk uncompressed.
    if ((out[2] >> 5) != code || (out[2] & gpu::kBloscFlagMemcpyed)) continue;
    ++checked;
    EXPECT_EQ(decode(out, input.size()).status, DeviceChunkStatus::unsupported) << compressor;
  }
  EXPECT_GE(checked, 2);  // zlib and zstd are always in c-blosc builds
}

TEST(BloscFrameFormat, DamagedChunksNeverOverrun) {
  std::mt19937 rng(21);
  for (const auto& input : test::input_families({200, 5000, 70000})) {
    for (const char* compressor : {"lz4", "blosclz"}) {
      for (int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
        const Bytes chunk = blosc_compress_bytes(input.bytes, 5, shuffle, 4, compressor, 1024);
        for (int trial = 0; trial < 60; ++trial) {
          Bytes damaged = chunk;
          if (trial % 4 == 0) {
            damaged.resize(rng() % damaged.size());
          } else if (trial % 4 == 1) {
            // The header and the bstarts / stream sizes: the fields that steer the decoder.
            const size_t field_bytes = std::min<size_t>(damaged.size(), 16 + 4 * 80);
            damaged[rng() % field_bytes] = static_cast<unsigned char>(rng());
          } else {
            for (int k = 0; k < 3; ++k)
              damaged[rng() % damaged.size()] ^= static_cast<unsigned char>(1u << (rng() % 8));
          }
          const size_t capacity = input.bytes.size() - (trial % 7 == 0 ? 1 : 0);
          const auto d = decode(damaged, capacity);
          if (d.status == DeviceChunkStatus::ok) {
            EXPECT_LE(d.bytes.size(), capacity);
          }
        }
      }
    }
  }
}

#endif  // CUZARR_HAVE_BLOSC

TEST(BloscFrameFormat, RejectsBadHeaders) {
  Bytes chunk = encode(test::runs_input(10000, 4), {5, 4, gpu::BloscShuffle::byte, 0});
  auto with = [&](size_t offset, uint32_t value) {
    Bytes c = chunk;
    gpu::store_le32(c.data() + offset, value);
    return decode(c, 10000).status;
  };
  EXPECT_EQ(decode(Bytes(chunk.begin(), chunk.begin() + 15), 10000).status,
            DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(with(4, 0x80000000u), DeviceChunkStatus::corrupt_input);  // negative nbytes
  EXPECT_EQ(with(8, 0), DeviceChunkStatus::corrupt_input);            // zero blocksize
  EXPECT_EQ(with(12, static_cast<uint32_t>(chunk.size() + 1)), DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(with(16, 3), DeviceChunkStatus::corrupt_input);  // bstart inside the header
  EXPECT_EQ(decode(chunk, 9999).status, DeviceChunkStatus::output_too_small);
  Bytes reserved = chunk;
  reserved[2] |= gpu::kBloscFlagReserved;
  EXPECT_EQ(decode(reserved, 10000).status, DeviceChunkStatus::corrupt_input);
  Bytes version = chunk;
  version[0] = 3;
  EXPECT_EQ(decode(version, 10000).status, DeviceChunkStatus::unsupported);
  Bytes memcpyed = chunk;
  memcpyed[2] |= gpu::kBloscFlagMemcpyed;  // cbytes is not nbytes + 16
  EXPECT_EQ(decode(memcpyed, 10000).status, DeviceChunkStatus::corrupt_input);
}

}  // namespace
}  // namespace cuzarr
