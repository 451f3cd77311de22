// GPU LZ4 and blosc kernels against their CPU references, byte for byte: decoding what liblz4 /
// our CPU encoders write (c-blosc's output too where c-blosc is installed), encoding what liblz4 /
// our CPU decoder read back, over every input family; and hostile chunks (truncated, damaged,
// lying headers), which must give the same status as the CPU reference and never fault (run under
// compute-sanitizer to check the bounds).
#include <gtest/gtest.h>
#include <lz4.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>

#include "codec/cuda/blosc_frame_format.hpp"
#include "codec/cuda/blosc_kernels.hpp"
#include "codec/cuda/lz4_block_format.hpp"
#include "codec/cuda/lz4_kernels.hpp"
#include "gpu_batch_support.hpp"
#include "gpu_codec_inputs.hpp"
#include "liblz4_blocks.hpp"
#include "lz4_segments_driver.hpp"

#if CUZARR_HAVE_BLOSC
#include <blosc.h>
#endif

namespace cuzarr {
namespace {

using gpu::DeviceChunkStatus;
using test::DeviceBatch;
using Bytes = std::vector<unsigned char>;
using Chunks = std::vector<Bytes>;

class GpuLz4 : public test::GpuCodecTest {};
class GpuBlosc : public test::GpuCodecTest {};

Chunks family_chunks(const std::vector<size_t>& sizes) {
  Chunks chunks;
  for (auto& input : test::input_families(sizes)) chunks.push_back(std::move(input.bytes));
  return chunks;
}

std::vector<size_t> gpu_sizes() {
  auto sizes = test::small_sizes();
  sizes.push_back(4 << 20);
  sizes.push_back(16 << 20);
  return sizes;
}

Bytes liblz4_compress(const Bytes& in) {
  Bytes out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(in.size()))));
  static const char kEmpty = 0;
  const int n =
      LZ4_compress_default(in.empty() ? &kEmpty : reinterpret_cast<const char*>(in.data()),
                           reinterpret_cast<char*>(out.data()), static_cast<int>(in.size()),
                           static_cast<int>(out.size()));
  EXPECT_GT(n, 0);
  out.resize(static_cast<size_t>(n));
  return out;
}

TEST_F(GpuLz4, DecodesLiblz4BlocksOfEveryFamily) {
  const Chunks inputs = family_chunks(gpu_sizes());
  Chunks blocks, framed;
  for (const auto& in : inputs) {
    blocks.push_back(liblz4_compress(in));
    framed.push_back(test::numcodecs_frame(in, blocks.back()));
  }
  DeviceBatch raw(blocks, test::sizes_of(inputs));
  gpu::lz4_decode_batch(raw.batch(), Stream());
  DeviceBatch numcodecs(framed, test::sizes_of(inputs));
  gpu::numcodecs_lz4_decode_batch(numcodecs.batch(), Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_EQ(raw.statuses()[i], DeviceChunkStatus::ok) << i;
    ASSERT_EQ(raw.output(i), inputs[i])
        << "raw chunk " << i << " (" << inputs[i].size() << " bytes)";
    ASSERT_EQ(numcodecs.statuses()[i], DeviceChunkStatus::ok) << i;
    ASSERT_EQ(numcodecs.output(i), inputs[i]) << "numcodecs chunk " << i;
  }
}

// Checks chunk i of a decoded batch (device status `status`) against the serial decoder on
// `block`: the same status and, when that is ok, the same bytes. `serial` gets the serial result.
void expect_like_serial_decoder(const DeviceBatch& batch, size_t i, DeviceChunkStatus status,
                                const Bytes& block, uint64_t capacity, gpu::DecodeResult& serial) {
  Bytes expected(capacity);
  serial = gpu::lz4_decode_block_serial(block.data(), block.size(), expected.data(), capacity);
  ASSERT_EQ(status, serial.status) << i;
  if (serial.status == DeviceChunkStatus::ok) {
    expected.resize(serial.size);
    ASSERT_EQ(batch.output(i), expected) << i;
  }
}

// Every chunk of a decoded batch of `blocks` against the serial decoder: the same status and, when
// that is ok, the same bytes and size.
void expect_every_chunk_like_serial_decoder(const DeviceBatch& batch, const Chunks& blocks,
                                            const std::vector<uint64_t>& capacities) {
  const auto statuses = batch.statuses();
  const auto sizes = batch.output_sizes();
  for (size_t i = 0; i < blocks.size(); ++i) {
    gpu::DecodeResult r;
    ASSERT_NO_FATAL_FAILURE(
        expect_like_serial_decoder(batch, i, statuses[i], blocks[i], capacities[i], r));
    if (r.status == DeviceChunkStatus::ok) {
      ASSERT_EQ(sizes[i], r.size) << i;
    }
  }
}

// liblz4 blocks of every family at `sizes`, damaged `trials` ways each (every third truncated, the
// others with 1 to 4 random bytes; every fifth with a capacity up to 9 bytes short), appended to
// `blocks` and `capacities`.
void add_damaged_blocks(const std::vector<size_t>& sizes, int trials, std::mt19937& rng,
                        Chunks& blocks, std::vector<uint64_t>& capacities) {
  for (const auto& in : family_chunks(sizes)) {
    const Bytes block = liblz4_compress(in);
    for (int trial = 0; trial < trials; ++trial) {
      Bytes damaged = block;
      if (trial % 3 == 0) {
        damaged.resize(rng() % damaged.size());
      } else {
        for (int k = 0; k <= trial % 4; ++k)
          damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
      }
      blocks.push_back(damaged);
      capacities.push_back(in.size() - (trial % 5 == 0 ? rng() % 10 : 0));
    }
  }
}

TEST_F(GpuLz4, HostileBlocksGetTheCpuReferenceStatus) {
  std::mt19937 rng(5);
  Chunks blocks;
  std::vector<uint64_t> capacities;
  add_damaged_blocks({100, 1000, 70000}, 40, rng, blocks, capacities);
  blocks.push_back({});  // empty
  capacities.push_back(10);
  blocks.push_back({0x10, 'a', 0, 0});  // offset 0
  capacities.push_back(10);
  DeviceBatch batch(blocks, capacities);
  gpu::lz4_decode_batch(batch.batch(), Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  expect_every_chunk_like_serial_decoder(batch, blocks, capacities);
}

// `count` chunks of mixed families and sizes, every seventh damaged or truncated, decoded raw and
// with the numcodecs framing against the serial reference and the inputs.
void expect_batch_decodes_like_the_cpu_reference(size_t count) {
  std::mt19937 rng(11);
  const std::vector<size_t> sizes = {1, 37, 300, 1000, 2500};
  const Chunks inputs = family_chunks(sizes);
  Chunks blocks, framed;
  std::vector<Bytes> expected_inputs;
  std::vector<uint64_t> capacities;
  for (size_t i = 0; i < count; ++i) {
    const Bytes& in = inputs[i % inputs.size()];
    Bytes block = liblz4_compress(in);
    if (i % 7 == 3 && !block.empty()) {
      if (rng() % 2 == 0) {
        block.resize(rng() % block.size());
      } else {
        block[rng() % block.size()] = static_cast<unsigned char>(rng());
      }
    }
    framed.push_back(test::numcodecs_frame(in, block));
    blocks.push_back(std::move(block));
    capacities.push_back(in.size());
    expected_inputs.push_back(in);
  }
  DeviceBatch raw(blocks, capacities);
  gpu::lz4_decode_batch(raw.batch(), Stream());
  DeviceBatch numcodecs(framed, capacities);
  gpu::numcodecs_lz4_decode_batch(numcodecs.batch(), Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  const auto statuses = raw.statuses();
  const auto framed_statuses = numcodecs.statuses();
  size_t damaged_ok = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    gpu::DecodeResult r;
    ASSERT_NO_FATAL_FAILURE(
        expect_like_serial_decoder(raw, i, statuses[i], blocks[i], capacities[i], r));
    if (i % 7 != 3) {
      ASSERT_EQ(r.status, DeviceChunkStatus::ok) << i;
      ASSERT_EQ(raw.output(i), expected_inputs[i]) << i;
      ASSERT_EQ(framed_statuses[i], DeviceChunkStatus::ok) << i;
      ASSERT_EQ(numcodecs.output(i), expected_inputs[i]) << "numcodecs chunk " << i;
    } else {
      damaged_ok += r.status == DeviceChunkStatus::ok ? 1 : 0;
    }
  }
  EXPECT_LT(damaged_ok, blocks.size() / 7) << "the damage must break most damaged chunks";
}

TEST_F(GpuLz4, BatchesOfManyChunksDecodeLikeTheCpuReference) {
  // The launcher's kernels: small batches take a team of a parser and three executors per chunk
  // (the other tests), 1200 chunks a parser and one executor (on an H200, more than teams of four
  // hold at once, 792, and fewer than teams of two, 1584), 2400 chunks one warp per chunk at 80
  // registers (fewer than that kernel holds at once, 3168), 8192 chunks at 72 registers (more than
  // the 80-register kernel holds at once on any GPU of up to 340 SMs). Mixed families and sizes,
  // every seventh chunk damaged or truncated.
  for (const size_t count : {size_t{1200}, size_t{2400}, size_t{8192}}) {
    SCOPED_TRACE(count);
    expect_batch_decodes_like_the_cpu_reference(count);
  }
}

// Every team size of the team kernel (a parsing warp, with or without its stager, and 1 to 3
// executing warps per chunk), forced whatever the batch's size: liblz4 blocks of every family up to
// 16 MiB (raw and numcodecs), then damaged blocks, against the inputs and the serial decoder.
TEST_F(GpuLz4, EveryTeamSizeDecodesLikeTheCpuReference) {
  const Chunks inputs = family_chunks(gpu_sizes());
  Chunks blocks, framed;
  for (const auto& in : inputs) {
    blocks.push_back(liblz4_compress(in));
    framed.push_back(test::numcodecs_frame(in, blocks.back()));
  }
  std::mt19937 rng(17);
  Chunks damaged;
  std::vector<uint64_t> damaged_capacities;
  add_damaged_blocks({1000, 70000}, 12, rng, damaged, damaged_capacities);
  for (const auto parser : {gpu::Lz4TeamParser::alone, gpu::Lz4TeamParser::with_stager}) {
    for (unsigned executors = 1; executors <= 3; ++executors) {
      SCOPED_TRACE(std::string(parser == gpu::Lz4TeamParser::with_stager ? "with stager, " : "") +
                   std::to_string(executors));
      DeviceBatch raw(blocks, test::sizes_of(inputs));
      gpu::lz4_decode_batch_with_team(raw.batch(), executors, parser, Stream());
      DeviceBatch numcodecs(framed, test::sizes_of(inputs));
      gpu::numcodecs_lz4_decode_batch_with_team(numcodecs.batch(), executors, parser, Stream());
      DeviceBatch bad(damaged, damaged_capacities);
      gpu::lz4_decode_batch_with_team(bad.batch(), executors, parser, Stream());
      test::cuda_ok(cudaDeviceSynchronize());
      for (size_t i = 0; i < inputs.size(); ++i) {
        ASSERT_EQ(raw.statuses()[i], DeviceChunkStatus::ok) << i;
        ASSERT_EQ(raw.output(i), inputs[i]) << "raw chunk " << i;
        ASSERT_EQ(numcodecs.statuses()[i], DeviceChunkStatus::ok) << i;
        ASSERT_EQ(numcodecs.output(i), inputs[i]) << "numcodecs chunk " << i;
      }
      ASSERT_NO_FATAL_FAILURE(
          expect_every_chunk_like_serial_decoder(bad, damaged, damaged_capacities));
    }
  }
  EXPECT_THROW(gpu::lz4_decode_batch_with_team(DeviceBatch(blocks, test::sizes_of(inputs)).batch(),
                                               4, gpu::Lz4TeamParser::alone, Stream()),
               std::invalid_argument);
}

TEST_F(GpuLz4, EncodedBlocksDecodeWithLiblz4) {
  const Chunks inputs = family_chunks(gpu_sizes());
  std::vector<uint64_t> capacities;
  for (const auto& in : inputs)
    capacities.push_back(gpu::numcodecs_lz4_max_encoded_size(in.size()));
  DeviceBatch batch(inputs, capacities);
  test::DeviceMemory temp(gpu::lz4_encode_temp_bytes(inputs.size()));
  gpu::numcodecs_lz4_encode_batch(batch.batch(), temp.get(), Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_EQ(batch.statuses()[i], DeviceChunkStatus::ok) << i;
    const Bytes framed = batch.output(i);
    ASSERT_GE(framed.size(), 5u);
    ASSERT_EQ(gpu::load_le32(framed.data()), inputs[i].size());
    Bytes out(inputs[i].size() + 1);
    const int n = LZ4_decompress_safe(
        reinterpret_cast<const char*>(framed.data() + 4), reinterpret_cast<char*>(out.data()),
        static_cast<int>(framed.size() - 4), static_cast<int>(inputs[i].size()));
    ASSERT_EQ(n, static_cast<int>(inputs[i].size())) << i;
    out.resize(inputs[i].size());
    ASSERT_EQ(out, inputs[i]) << i;
  }
}

// The segment-parallel encoders: byte-identical to the host driver of the same format logic
// (itself checked with liblz4 in the CPU tests), decoded by liblz4, within the bound; a batch of a
// few large chunks, one of many small ones, and both framings.
TEST_F(GpuLz4, SegmentEncodersMatchTheHostDriverAndDecodeWithLiblz4) {
  std::vector<size_t> sizes = gpu_sizes();
  for (size_t s : {size_t{65535}, size_t{65537}, size_t{65536 + 5}, size_t{65536 + 12},
                   size_t{3 * 65536 + 13}}) {
    sizes.push_back(s);
  }
  const Chunks inputs = family_chunks(sizes);
  uint64_t max_size = 0;
  for (const auto& in : inputs) max_size = std::max<uint64_t>(max_size, in.size());
  for (bool numcodecs : {true, false}) {
    std::vector<uint64_t> capacities;
    for (const auto& in : inputs) {
      capacities.push_back(numcodecs ? gpu::numcodecs_lz4_max_encoded_size(in.size())
                                     : gpu::lz4_max_encoded_size(in.size()));
    }
    DeviceBatch batch(inputs, capacities);
    test::DeviceMemory temp(gpu::lz4_encode_segments_temp_bytes(inputs.size(), max_size));
    if (numcodecs) {
      gpu::numcodecs_lz4_encode_segments_batch(batch.batch(), max_size, temp.get(), Stream());
    } else {
      gpu::lz4_encode_segments_batch(batch.batch(), max_size, temp.get(), Stream());
    }
    test::cuda_ok(cudaDeviceSynchronize());
    const size_t header = numcodecs ? 4 : 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      ASSERT_EQ(batch.statuses()[i], DeviceChunkStatus::ok) << i;
      const Bytes framed = batch.output(i);
      ASSERT_LE(framed.size(), capacities[i]) << i;
      if (numcodecs) {
        ASSERT_GE(framed.size(), 5u);
        ASSERT_EQ(gpu::load_le32(framed.data()), inputs[i].size());
      }
      const Bytes block(framed.begin() + static_cast<std::ptrdiff_t>(header), framed.end());
      ASSERT_EQ(block, test::lz4_encode_by_segments(inputs[i])) << i;
      Bytes out(inputs[i].size() + 1);
      const int n = LZ4_decompress_safe(
          reinterpret_cast<const char*>(block.data()), reinterpret_cast<char*>(out.data()),
          static_cast<int>(block.size()), static_cast<int>(inputs[i].size()));
      ASSERT_EQ(n, static_cast<int>(inputs[i].size())) << i;
      out.resize(inputs[i].size());
      ASSERT_EQ(out, inputs[i]) << i;
    }
  }
}

TEST_F(GpuLz4, SegmentEncodersReportTooSmallOutputsAndOversizedInputs) {
  const Chunks inputs = {test::random_input(200000, 1), test::random_input(100, 2),
                         test::runs_input(300000, 3)};
  DeviceBatch batch(inputs, {5000, 200, 400000});
  test::DeviceMemory temp(gpu::lz4_encode_segments_temp_bytes(3, 250000));
  gpu::numcodecs_lz4_encode_segments_batch(batch.batch(), 250000, temp.get(), Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  const auto statuses = batch.statuses();
  EXPECT_EQ(statuses[0], DeviceChunkStatus::output_too_small);
  EXPECT_EQ(statuses[1], DeviceChunkStatus::ok);
  EXPECT_EQ(statuses[2], DeviceChunkStatus::unsupported);  // above max_input_size
}

TEST_F(GpuLz4, EncodeReportsTooSmallOutputs) {
  const Chunks inputs = {test::random_input(10000, 1)};
  DeviceBatch batch(inputs, {5000});
  test::DeviceMemory temp(gpu::lz4_encode_temp_bytes(1));
  gpu::lz4_encode_batch(batch.batch(), temp.get(), Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  EXPECT_EQ(batch.statuses()[0], DeviceChunkStatus::output_too_small);
}

// Blosc ------------------------------------------------------------------------------------------

Bytes cpu_blosc_encode(const Bytes& input, const gpu::BloscEncodeParams& p) {
  Bytes out(gpu::blosc_max_encoded_size(input.size()));
  Bytes tmp(gpu::blosc_encode_layout(p, input.size()).blocksize);
  std::vector<uint32_t> table(gpu::kLz4HashEntries);
  out.resize(gpu::blosc_encode_serial(input.data(), input.size(), p, out.data(), out.size(),
                                      tmp.data(), table.data()));
  return out;
}

struct CpuDecoded {
  DeviceChunkStatus status;
  Bytes bytes;
};
CpuDecoded cpu_blosc_decode(const Bytes& chunk, uint64_t capacity) {
  Bytes out(capacity);
  gpu::BloscHeader h;
  Bytes tmp;
  if (gpu::blosc_parse_header(chunk.data(), chunk.size(), capacity, h) == DeviceChunkStatus::ok)
    tmp.resize(h.blocksize);
  uint64_t produced = 0;
  const auto status = gpu::blosc_decode_serial(chunk.data(), chunk.size(), out.data(), capacity,
                                               tmp.data(), produced);
  out.resize(produced);
  return {status, out};
}

void decode_and_compare(const Chunks& chunks, const std::vector<uint64_t>& capacities,
                        size_t misalign = 0) {
  uint64_t max_capacity = 0;
  for (auto c : capacities) max_capacity = std::max(max_capacity, c);
  DeviceBatch batch(chunks, capacities, misalign);
  test::DeviceMemory temp(gpu::blosc_decode_temp_bytes(chunks.size(), max_capacity));
  gpu::blosc_decode_batch(batch.batch(), temp.get(), max_capacity, Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  const auto statuses = batch.statuses();
  for (size_t i = 0; i < chunks.size(); ++i) {
    const CpuDecoded expected = cpu_blosc_decode(chunks[i], capacities[i]);
    ASSERT_EQ(statuses[i], expected.status) << "chunk " << i;
    if (expected.status == DeviceChunkStatus::ok) {
      ASSERT_EQ(batch.output(i), expected.bytes) << "chunk " << i;
    }
  }
}

TEST_F(GpuBlosc, DecodesOurCpuEncoderOutput) {
  for (uint32_t typesize : {1u, 2u, 4u, 8u, 17u}) {
    for (auto shuffle :
         {gpu::BloscShuffle::none, gpu::BloscShuffle::byte, gpu::BloscShuffle::bit}) {
      Chunks chunks;
      for (const auto& in : family_chunks({0, 100, 128, 1000, 65536 + 41, 1 << 20, 4 << 20})) {
        chunks.push_back(cpu_blosc_encode(in, {5, typesize, shuffle, 0}));
      }
      std::vector<uint64_t> capacities;
      for (const auto& c : chunks) capacities.push_back(gpu::load_le32(c.data() + 4));
      decode_and_compare(chunks, capacities);
      decode_and_compare(chunks, capacities, 1);  // unaligned chunks and outputs
    }
  }
}

#if CUZARR_HAVE_BLOSC
TEST_F(GpuBlosc, DecodesCBloscOutput) {
  for (const char* compressor : {"lz4", "lz4hc", "blosclz", "zstd"}) {
    for (int shuffle : {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE}) {
      Chunks chunks;
      std::vector<uint64_t> capacities;
      for (size_t typesize : {size_t{1}, size_t{2}, size_t{4}, size_t{8}, size_t{24}}) {
        for (const auto& in : family_chunks({0, 100, 1000, 65536 + 41, 1 << 20})) {
          Bytes out(in.size() + BLOSC_MAX_OVERHEAD);
          const int n = blosc_compress_ctx(5, shuffle, typesize, in.size(), in.data(), out.data(),
                                           out.size(), compressor, 0, 1);
          ASSERT_GT(n, 0);
          out.resize(static_cast<size_t>(n));
          chunks.push_back(out);
          capacities.push_back(in.size());
        }
      }
      decode_and_compare(chunks, capacities);
    }
  }
}
#endif

TEST_F(GpuBlosc, DamagedChunksGetTheCpuReferenceStatus) {
  std::mt19937 rng(8);
  Chunks chunks;
  std::vector<uint64_t> capacities;
  for (const auto& in : family_chunks({200, 5000, 70000})) {
    for (auto shuffle :
         {gpu::BloscShuffle::none, gpu::BloscShuffle::byte, gpu::BloscShuffle::bit}) {
      const Bytes chunk = cpu_blosc_encode(in, {5, 4, shuffle, 1024});
      for (int trial = 0; trial < 30; ++trial) {
        Bytes damaged = chunk;
        if (trial % 3 == 0) {
          damaged.resize(rng() % damaged.size());
        } else if (trial % 3 == 1) {
          damaged[rng() % std::min<size_t>(damaged.size(), 16 + 4 * 80)] =
              static_cast<unsigned char>(rng());
        } else {
          damaged[rng() % damaged.size()] ^= static_cast<unsigned char>(1u << (rng() % 8));
        }
        chunks.push_back(damaged);
        capacities.push_back(in.size() - (trial % 7 == 0 ? 1 : 0));
      }
    }
  }
  decode_and_compare(chunks, capacities);
}

TEST_F(GpuBlosc, EncodedChunksMatchTheCpuEncoderAndDecode) {
  for (uint32_t typesize : {1u, 2u, 4u, 8u, 16u, 24u}) {
    for (auto shuffle :
         {gpu::BloscShuffle::none, gpu::BloscShuffle::byte, gpu::BloscShuffle::bit}) {
      for (int clevel : {0, 1, 5, 9}) {
        const gpu::BloscEncodeParams params{clevel, typesize, shuffle, 0};
        const Chunks inputs = family_chunks({0, 100, 127, 128, 1000, 65536 + 41, 1 << 20, 4 << 20});
        uint64_t max_input = 0;
        std::vector<uint64_t> capacities;
        for (const auto& in : inputs) {
          max_input = std::max<uint64_t>(max_input, in.size());
          capacities.push_back(gpu::blosc_max_encoded_size(in.size()));
        }
        DeviceBatch batch(inputs, capacities);
        test::DeviceMemory temp(gpu::blosc_encode_temp_bytes(inputs.size(), max_input));
        gpu::blosc_encode_batch(batch.batch(), params, temp.get(), max_input, Stream());
        test::cuda_ok(cudaDeviceSynchronize());
        for (size_t i = 0; i < inputs.size(); ++i) {
          ASSERT_EQ(batch.statuses()[i], DeviceChunkStatus::ok) << i;
          const Bytes chunk = batch.output(i);
          // The same bytes as the serial reference encoder (same algorithm, same layout).
          ASSERT_EQ(chunk, cpu_blosc_encode(inputs[i], params))
              << "chunk " << i << " typesize " << typesize << " clevel " << clevel;
#if CUZARR_HAVE_BLOSC
          Bytes out(inputs[i].size() + 1);
          ASSERT_EQ(blosc_decompress_ctx(chunk.data(), out.data(), out.size(), 1),
                    static_cast<int>(inputs[i].size()));
          out.resize(inputs[i].size());
          ASSERT_EQ(out, inputs[i]);
#endif
        }
      }
    }
  }
}

}  // namespace
}  // namespace cuzarr
