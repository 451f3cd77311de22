// The job logic of c-blosc chunks with zstd / zlib blocks (blosc_inner_jobs.hpp), checked on
// the CPU: the jobs planned from a header (count, stream sizes, split or not, leftover block,
// memcpyed and empty chunks), the serial reference decoder (the GPU's job walk with libzstd /
// zlib as inner decoders) against chunks made by c-blosc, and damaged chunks (a failing status,
// never an access outside the given buffers; run under ASan too).
#include "codec/cuda/blosc_inner_jobs.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "gpu_codec_inputs.hpp"

#if CUZARR_HAVE_BLOSC
#include "blosc_inner_test_chunks.hpp"
#endif

namespace cuzarr {
namespace {

using gpu::DeviceChunkStatus;
using Bytes = std::vector<unsigned char>;

// A header alone (flags: compressor, shuffle, split bits), with room for `nblocks` bstarts.
Bytes header(uint32_t flags, uint32_t typesize, uint32_t nbytes, uint32_t blocksize,
             uint32_t cbytes) {
  Bytes h(cbytes, 0);
  h[0] = gpu::kBloscFormatVersion;
  h[1] = 1;
  h[2] = static_cast<unsigned char>(flags);
  h[3] = static_cast<unsigned char>(typesize);
  gpu::store_le32(h.data() + 4, nbytes);
  gpu::store_le32(h.data() + 8, blocksize);
  gpu::store_le32(h.data() + 12, cbytes);
  return h;
}

constexpr uint32_t kZstd = static_cast<uint32_t>(gpu::BloscCompressor::zstd) << 5;
constexpr uint32_t kZlib = static_cast<uint32_t>(gpu::BloscCompressor::zlib) << 5;

TEST(BloscInnerJobs, SplitBlocksHaveOneJobPerByteOfTheType) {
  // 4 full blocks of 4096 bytes, typesize 4, split: 4 streams of 1024 bytes each; leftover 100.
  const Bytes h = header(kZstd | gpu::kBloscFlagShuffle, 4, 4 * 4096 + 100, 4096, 1000);
  const auto plan = gpu::blosc_inner_plan(h.data(), h.size(), 1 << 20);
  ASSERT_EQ(plan.status, DeviceChunkStatus::ok);
  EXPECT_EQ(plan.jobs.full_blocks, 4u);
  EXPECT_EQ(plan.jobs.streams, 4u);
  EXPECT_EQ(plan.jobs.stream_size, 1024u);
  EXPECT_EQ(plan.jobs.leftover, 100u);
  EXPECT_EQ(plan.jobs.count, 17u);
  EXPECT_EQ(plan.jobs.max_job_size(), 1024u);
  EXPECT_EQ(gpu::blosc_inner_job_index(plan.jobs, 2, 3), 11u);
  EXPECT_EQ(gpu::blosc_inner_job_index(plan.jobs, 4, 0), 16u);  // the leftover block's job
}

TEST(BloscInnerJobs, UnsplitBlocksHaveOneJobEach) {
  const Bytes h =
      header(kZlib | gpu::kBloscFlagDontSplit | gpu::kBloscFlagBitshuffle, 8, 3 * 65536, 65536, 64);
  const auto plan = gpu::blosc_inner_plan(h.data(), h.size(), 3 * 65536);
  ASSERT_EQ(plan.status, DeviceChunkStatus::ok);
  EXPECT_EQ(plan.jobs.full_blocks, 3u);
  EXPECT_EQ(plan.jobs.streams, 1u);
  EXPECT_EQ(plan.jobs.stream_size, 65536u);
  EXPECT_EQ(plan.jobs.leftover, 0u);
  EXPECT_EQ(plan.jobs.count, 3u);
  // Typesize above 16 or fewer than 128 elements per block: not split even without the flag.
  for (const auto& [typesize, blocksize] : {std::pair{17u, 65536u}, std::pair{8u, 1000u}}) {
    const Bytes g = header(kZstd, typesize, 2 * blocksize, blocksize, 64);
    const auto p = gpu::blosc_inner_plan(g.data(), g.size(), 2 * blocksize);
    ASSERT_EQ(p.status, DeviceChunkStatus::ok);
    EXPECT_EQ(p.jobs.streams, 1u) << typesize;
    EXPECT_EQ(p.jobs.count, 2u) << typesize;
  }
}

TEST(BloscInnerJobs, AChunkSmallerThanOneBlockIsOneLeftoverJob) {
  const Bytes h = header(kZstd, 4, 1000, 4096, 64);
  const auto plan = gpu::blosc_inner_plan(h.data(), h.size(), 1000);
  ASSERT_EQ(plan.status, DeviceChunkStatus::ok);
  EXPECT_EQ(plan.jobs.full_blocks, 0u);
  EXPECT_EQ(plan.jobs.count, 1u);
  EXPECT_EQ(plan.jobs.max_job_size(), 1000u);
}

TEST(BloscInnerJobs, OtherChunksAreNotInnerStreamChunks) {
  // memcpyed, empty, lz4 and blosclz chunks take the lz4-family kernel; snappy the CPU.
  const Bytes memcpyed = header(kZstd | gpu::kBloscFlagMemcpyed, 1, 100, 100, 116);
  const Bytes empty = header(kZstd, 1, 0, 0, 16);
  const Bytes lz4 =
      header(static_cast<uint32_t>(gpu::BloscCompressor::lz4) << 5, 1, 1000, 1000, 64);
  const Bytes snappy =
      header(static_cast<uint32_t>(gpu::BloscCompressor::snappy) << 5, 1, 1000, 1000, 64);
  for (const Bytes* h : {&memcpyed, &empty, &lz4, &snappy}) {
    EXPECT_EQ(gpu::blosc_inner_plan(h->data(), h->size(), 1000).status,
              DeviceChunkStatus::unsupported);
  }
  // The lz4-family parser still reports zstd and zlib chunks as unsupported.
  gpu::BloscHeader parsed;
  const Bytes zstd = header(kZstd, 1, 1000, 1000, 64);
  EXPECT_EQ(gpu::blosc_parse_header(zstd.data(), zstd.size(), 1000, parsed),
            DeviceChunkStatus::unsupported);
}

TEST(BloscInnerJobs, RejectsCorruptHeaders) {
  const auto status = [](const Bytes& h, uint64_t capacity) {
    return gpu::blosc_inner_plan(h.data(), h.size(), capacity).status;
  };
  Bytes h = header(kZstd, 4, 4096, 1024, 64);
  EXPECT_EQ(status(h, 4096), DeviceChunkStatus::ok);
  EXPECT_EQ(status(h, 4095), DeviceChunkStatus::output_too_small);
  EXPECT_EQ(gpu::blosc_inner_plan(h.data(), 15, 4096).status, DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(gpu::blosc_inner_plan(h.data(), 63, 4096).status, DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(status(header(kZstd, 4, 4096, 0, 64), 4096), DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(status(header(kZstd, 0, 4096, 1024, 64), 4096), DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(status(header(kZstd | gpu::kBloscFlagReserved, 4, 4096, 1024, 64), 4096),
            DeviceChunkStatus::corrupt_input);
  EXPECT_EQ(status(header(kZstd, 4, 0x80000000u, 1024, 64), UINT64_MAX),
            DeviceChunkStatus::corrupt_input);
  // More block starts than the chunk holds.
  EXPECT_EQ(status(header(kZstd, 4, 4096, 128, 64), 4096), DeviceChunkStatus::corrupt_input);
  // Compressor codes above 4.
  EXPECT_EQ(status(header(5u << 5, 4, 4096, 1024, 64), 4096), DeviceChunkStatus::corrupt_input);
  // Another format version.
  h[0] = 3;
  EXPECT_EQ(status(h, 4096), DeviceChunkStatus::unsupported);
}

TEST(BloscInnerJobs, ChunksOfTinyBlocksAreLeftToTheCpu) {
  // Blocks of 16 bytes: 1024 jobs for 16 KiB, above blosc_inner_max_jobs.
  const uint32_t nbytes = 16384, blocksize = 16, nblocks = nbytes / blocksize;
  const Bytes h = header(kZstd, 1, nbytes, blocksize, 16 + 8 * nblocks);
  EXPECT_GT(nblocks, gpu::blosc_inner_max_jobs(nbytes));
  EXPECT_EQ(gpu::blosc_inner_plan(h.data(), h.size(), nbytes).status,
            DeviceChunkStatus::unsupported);
}

#if CUZARR_HAVE_BLOSC

// Every stream of a chunk, walked as the GPU's fill kernel does: the jobs cover the decoded
// bytes exactly once, in job order.
void expect_jobs_cover_the_chunk(const Bytes& chunk, const std::string& name) {
  const auto plan = gpu::blosc_inner_plan(chunk.data(), chunk.size(), UINT64_MAX);
  ASSERT_EQ(plan.status, DeviceChunkStatus::ok) << name;
  const gpu::BloscHeader& h = plan.header;
  std::vector<int> covered(h.nbytes, 0);
  uint64_t walked = 0;
  for (uint64_t j = 0; j < h.nblocks; ++j) {
    uint32_t failed = 0;
    const auto status = gpu::blosc_for_each_stream(
        chunk.data(), h, j, failed, [&](uint32_t s, const gpu::BloscInnerStream& stream) {
          EXPECT_EQ(gpu::blosc_inner_job_index(plan.jobs, j, s), walked) << name;
          ++walked;
          EXPECT_LE(stream.in_offset + stream.in_size, h.cbytes) << name;
          EXPECT_EQ(stream.raw, stream.in_size == stream.size) << name;
          EXPECT_LE(stream.size, plan.jobs.max_job_size()) << name;
          for (uint64_t t = 0; t < stream.size; ++t) ++covered[stream.out_offset + t];
        });
    ASSERT_EQ(status, DeviceChunkStatus::ok) << name << " block " << j;
  }
  EXPECT_EQ(walked, plan.jobs.count) << name;
  for (uint64_t t = 0; t < h.nbytes; ++t) ASSERT_EQ(covered[t], 1) << name << " byte " << t;
}

// Whether c-blosc splits the blocks of `chunk` (blosc.c, split_block: in the forward compatible
// mode every compressor but zstd; then only for typesize <= 16 and blocks of >= 128 elements).
bool splits(const std::string& compressor, int mode, size_t typesize, const Bytes& chunk) {
  const uint64_t blocksize = gpu::load_le32(chunk.data() + 8);
  const bool wanted =
      mode == BLOSC_ALWAYS_SPLIT || (mode == BLOSC_FORWARD_COMPAT_SPLIT && compressor != "zstd");
  return wanted && typesize <= gpu::kBloscMaxSplits &&
         blocksize / typesize >= gpu::kBloscMinBufferSize;
}

TEST(BloscInnerJobs, DecodesCBloscChunksOfEveryLayout) {
  size_t inner_chunks = 0;
  for (const char* compressor : {"zstd", "zlib"}) {
    for (const auto& input : test::input_families({0, 1, 100, 128, 1000, 65536 + 41, 300000})) {
      for (int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
        for (size_t typesize : {size_t{1}, size_t{2}, size_t{4}, size_t{8}}) {
          const std::string name = std::string(compressor) + " " + input.name + " shuffle " +
                                   std::to_string(shuffle) + " typesize " +
                                   std::to_string(typesize);
          const Bytes chunk =
              test::blosc_inner_compress(input.bytes, compressor, 5, shuffle, typesize, 0);
          const auto plan = gpu::blosc_inner_plan(chunk.data(), chunk.size(), input.bytes.size());
          if (plan.status == DeviceChunkStatus::unsupported &&
              (plan.header.memcpyed() || plan.header.nbytes == 0)) {
            continue;  // c-blosc stores chunks memcpyed that do not compress: not inner streams
          }
          ASSERT_EQ(plan.status, DeviceChunkStatus::ok) << name;
          ++inner_chunks;
          EXPECT_EQ(plan.header.compressor, std::string(compressor) == "zstd"
                                                ? gpu::BloscCompressor::zstd
                                                : gpu::BloscCompressor::zlib);
          // c-blosc's default (forward compatible) mode splits zlib blocks, not zstd ones.
          EXPECT_EQ(plan.jobs.streams,
                    splits(compressor, BLOSC_FORWARD_COMPAT_SPLIT, typesize, chunk) ? typesize : 1)
              << name;
          expect_jobs_cover_the_chunk(chunk, name);
          const auto d = test::blosc_inner_decode(chunk, input.bytes.size());
          ASSERT_EQ(d.status, DeviceChunkStatus::ok) << name;
          ASSERT_EQ(d.bytes, input.bytes) << name;
        }
      }
    }
  }
  EXPECT_GT(inner_chunks, 200u);
}

TEST(BloscInnerJobs, DecodesSplitBlocksAndForcedBlockSizes) {
  size_t inner_chunks = 0;
  const Bytes input = test::smooth_float32_input((1 << 20) + 13, 7);
  for (int mode : {BLOSC_FORWARD_COMPAT_SPLIT, BLOSC_ALWAYS_SPLIT}) {
    test::BloscSplitMode split(mode);
    for (const char* compressor : {"zstd", "zlib"}) {
      for (size_t blocksize :
           {size_t{0}, size_t{128}, size_t{1000}, size_t{4096}, size_t{65536}, size_t{300000}}) {
        for (size_t typesize : {size_t{1}, size_t{2}, size_t{4}, size_t{8}}) {
          for (int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
            const std::string name = std::string(compressor) + " mode " + std::to_string(mode) +
                                     " blocksize " + std::to_string(blocksize) + " typesize " +
                                     std::to_string(typesize) + " shuffle " +
                                     std::to_string(shuffle);
            const Bytes chunk =
                test::blosc_inner_compress(input, compressor, 3, shuffle, typesize, blocksize);
            const auto plan = gpu::blosc_inner_plan(chunk.data(), chunk.size(), input.size());
            if (plan.header.memcpyed()) continue;  // tiny blocks that did not pay
            ASSERT_EQ(plan.status, DeviceChunkStatus::ok) << name;
            ++inner_chunks;
            const uint64_t stored_blocksize = gpu::load_le32(chunk.data() + 8);
            EXPECT_EQ(plan.jobs.streams, splits(compressor, mode, typesize, chunk) ? typesize : 1)
                << name;
            EXPECT_EQ(plan.jobs.leftover, input.size() % stored_blocksize) << name;
            expect_jobs_cover_the_chunk(chunk, name);
            const auto d = test::blosc_inner_decode(chunk, input.size());
            ASSERT_EQ(d.status, DeviceChunkStatus::ok) << name;
            ASSERT_EQ(d.bytes, input) << name;
          }
        }
      }
    }
  }
  EXPECT_GT(inner_chunks, 250u);
}

TEST(BloscInnerJobs, StoredStreamsAreCopied) {
  // Random bytes do not compress: with a forced small block size some streams are stored raw
  // while others (the zeros) are compressed, in one chunk.
  Bytes input = test::random_input(1 << 16, 3);
  std::fill(input.begin(), input.begin() + 4096, 0);
  // Unsplit, so that c-blosc keeps the forced block size for zlib too.
  test::BloscSplitMode never_split(BLOSC_NEVER_SPLIT);
  for (const char* compressor : {"zstd", "zlib"}) {
    const Bytes chunk = test::blosc_inner_compress(input, compressor, 5, BLOSC_NOSHUFFLE, 1, 1024);
    const auto plan = gpu::blosc_inner_plan(chunk.data(), chunk.size(), input.size());
    ASSERT_EQ(plan.status, DeviceChunkStatus::ok) << compressor;
    size_t raw = 0, compressed = 0;
    for (uint64_t j = 0; j < plan.header.nblocks; ++j) {
      uint32_t failed = 0;
      gpu::blosc_for_each_stream(
          chunk.data(), plan.header, j, failed,
          [&](uint32_t, const gpu::BloscInnerStream& s) { (s.raw ? raw : compressed) += 1; });
    }
    EXPECT_GT(raw, 0u) << compressor;
    EXPECT_GT(compressed, 0u) << compressor;
    const auto d = test::blosc_inner_decode(chunk, input.size());
    ASSERT_EQ(d.status, DeviceChunkStatus::ok) << compressor;
    EXPECT_EQ(d.bytes, input) << compressor;
  }
}

TEST(BloscInnerJobs, DamagedChunksFailWithoutOverruns) {
  const Bytes input = test::smooth_uint16_input(200000, 9);
  std::mt19937 rng(11);
  for (const char* compressor : {"zstd", "zlib"}) {
    for (int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
      const Bytes chunk = test::blosc_inner_compress(input, compressor, 5, shuffle, 2, 16384);
      // Truncated: cbytes lies beyond the input.
      for (size_t cut :
           {size_t{0}, size_t{15}, size_t{16}, size_t{20}, chunk.size() / 2, chunk.size() - 1}) {
        const Bytes truncated(chunk.begin(), chunk.begin() + static_cast<ptrdiff_t>(cut));
        EXPECT_EQ(test::blosc_inner_decode(truncated, input.size()).status,
                  DeviceChunkStatus::corrupt_input)
            << compressor << " cut " << cut;
      }
      // A block start past cbytes, and a stream size running past cbytes.
      const auto plan = gpu::blosc_inner_plan(chunk.data(), chunk.size(), input.size());
      ASSERT_EQ(plan.status, DeviceChunkStatus::ok);
      Bytes bad_start = chunk;
      gpu::store_le32(bad_start.data() + 16 + 4 * 3, static_cast<uint32_t>(chunk.size() + 1));
      EXPECT_EQ(test::blosc_inner_decode(bad_start, input.size()).status,
                DeviceChunkStatus::corrupt_input);
      Bytes bad_size = chunk;
      const uint32_t start = gpu::load_le32(chunk.data() + 16 + 4 * 2);
      gpu::store_le32(bad_size.data() + start, static_cast<uint32_t>(chunk.size()));
      EXPECT_EQ(test::blosc_inner_decode(bad_size, input.size()).status,
                DeviceChunkStatus::corrupt_input);
      // A stream one byte short no longer decodes (zstd also rejects a byte after its frame;
      // zlib ignores bytes after its stream, as c-blosc's uncompress does).
      Bytes short_stream = chunk;
      gpu::store_le32(short_stream.data() + start, gpu::load_le32(chunk.data() + start) - 1);
      EXPECT_EQ(test::blosc_inner_decode(short_stream, input.size()).status,
                DeviceChunkStatus::corrupt_input)
          << compressor;
      if (std::string(compressor) == "zstd") {
        Bytes long_stream = chunk;
        gpu::store_le32(long_stream.data() + start, gpu::load_le32(chunk.data() + start) + 1);
        EXPECT_EQ(test::blosc_inner_decode(long_stream, input.size()).status,
                  DeviceChunkStatus::corrupt_input);
      }
      // Random damage anywhere past the header: a status, and when ok the full size.
      for (int trial = 0; trial < 200; ++trial) {
        Bytes damaged = chunk;
        for (int k = 0; k < 4; ++k) {
          damaged[16 + rng() % (damaged.size() - 16)] ^=
              static_cast<unsigned char>(1u << (rng() % 8));
        }
        const auto d = test::blosc_inner_decode(damaged, input.size());
        if (d.status == DeviceChunkStatus::ok) {
          EXPECT_EQ(d.bytes.size(), input.size());
        }
      }
    }
  }
}

#endif  // CUZARR_HAVE_BLOSC

}  // namespace
}  // namespace cuzarr
