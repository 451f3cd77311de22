// The GPU inflate kernel against zlib and the serial CPU decoder, byte for byte: zlib's output at
// several levels and strategies over every input family, in all wrappers (raw, zlib, gzip, gzip
// or zlib members back to back), aligned and misaligned; and hostile chunks (truncated, damaged,
// lying checksums, too small outputs), which must give the status of inflate_serial and never
// fault (run under compute-sanitizer to check the bounds).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <random>
#include <string>

#include "codec/cuda/deflate_kernels.hpp"
#include "codec/cuda/zlib_gzip_wrappers.hpp"
#include "deflate_hand_made.hpp"
#include "gpu_batch_support.hpp"
#include "gpu_codec_inputs.hpp"
#include "zlib_test_streams.hpp"

namespace cuzarr {
namespace {

using gpu::DeflateWrapper;
using gpu::DeviceChunkStatus;
using test::DeviceBatch;
using Bytes = std::vector<unsigned char>;
using Chunks = std::vector<Bytes>;

class GpuInflate : public test::GpuCodecTest {};

constexpr DeflateWrapper kWrappers[] = {DeflateWrapper::raw, DeflateWrapper::zlib,
                                        DeflateWrapper::gzip};

using test::window_bits_of;
using test::zlib_compress;

Chunks family_chunks(const std::vector<size_t>& sizes) {
  Chunks chunks;
  for (auto& input : test::input_families(sizes)) chunks.push_back(std::move(input.bytes));
  return chunks;
}

std::vector<size_t> gpu_sizes() {
  auto sizes = test::small_sizes();
  sizes.push_back(4 << 20);
  return sizes;
}

const uint32_t (*crc_table())[256] {
  static const gpu::Crc32Tables tables = gpu::make_crc32_tables();
  return tables.table;
}

/// check_against_serial for one launcher path.
void check_path_against_serial(const Chunks& streams, const std::vector<uint64_t>& capacities,
                               DeflateWrapper w, bool verify, uint64_t block_parallel_from,
                               const Chunks* expected, size_t misalign) {
  DeviceBatch batch(streams, capacities, misalign);
  uint64_t max_output = 0;
  for (const uint64_t c : capacities) max_output = std::max(max_output, c);
  test::DeviceMemory temp(gpu::inflate_temp_bytes(streams.size(), max_output, block_parallel_from));
  gpu::inflate_batch(batch.batch(), w, verify, max_output, temp.get(), Stream(),
                     block_parallel_from);
  test::cuda_ok(cudaDeviceSynchronize());
  const auto statuses = batch.statuses();
  const auto sizes = batch.output_sizes();
  auto ws = std::make_unique<gpu::InflateWorkspace>();
  for (size_t i = 0; i < streams.size(); ++i) {
    Bytes reference(capacities[i]);
    const auto r = gpu::inflate_serial(streams[i].data(), streams[i].size(), reference.data(),
                                       capacities[i], w, verify, *ws, crc_table());
    ASSERT_EQ(statuses[i], r.status) << "chunk " << i;
    if (expected) {
      ASSERT_EQ(statuses[i], DeviceChunkStatus::ok) << "chunk " << i;
    }
    if (r.status != DeviceChunkStatus::ok) {
      ASSERT_EQ(sizes[i], 0u) << "chunk " << i;
      continue;
    }
    ASSERT_EQ(sizes[i], r.size) << "chunk " << i;
    reference.resize(r.size);
    const Bytes got = batch.output(i);
    ASSERT_TRUE(got == reference) << "chunk " << i << " (" << r.size << " bytes)";
    if (expected) {
      ASSERT_TRUE(got == (*expected)[i]) << "chunk " << i;
    }
  }
}

/// Runs the kernels on `streams` and checks every chunk against inflate_serial: status, size and
/// bytes (and, when `expected` is given, against those bytes too). Both paths: a warp per chunk,
/// and every chunk offered to the block-parallel path (block_parallel_from 0).
void check_against_serial(const Chunks& streams, const std::vector<uint64_t>& capacities,
                          DeflateWrapper w, bool verify, const Chunks* expected = nullptr,
                          size_t misalign = 0) {
  for (const uint64_t from : {UINT64_MAX, uint64_t{0}}) {
    SCOPED_TRACE(from == 0 ? "block-parallel" : "warp per chunk");
    check_path_against_serial(streams, capacities, w, verify, from, expected, misalign);
  }
}

TEST_F(GpuInflate, DecodesZlibOutputOfEveryFamilyInEveryWrapper) {
  const Chunks inputs = family_chunks(gpu_sizes());
  for (DeflateWrapper w : kWrappers) {
    for (int level : {0, 1, 6, 9}) {
      Chunks streams;
      for (const auto& in : inputs) streams.push_back(zlib_compress(in, level, w));
      SCOPED_TRACE("wrapper " + std::to_string(static_cast<int>(w)) + " level " +
                   std::to_string(level));
      check_against_serial(streams, test::sizes_of(inputs), w, true, &inputs);
    }
  }
}

TEST_F(GpuInflate, DecodesEveryStrategyMisaligned) {
  const Chunks inputs = family_chunks(test::small_sizes());
  for (int strategy : {Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED}) {
    Chunks streams;
    for (const auto& in : inputs)
      streams.push_back(zlib_compress(in, 6, DeflateWrapper::gzip, strategy));
    SCOPED_TRACE("strategy " + std::to_string(strategy));
    check_against_serial(streams, test::sizes_of(inputs), DeflateWrapper::gzip, true, &inputs, 3);
  }
}

TEST_F(GpuInflate, DecodesMembersBackToBack) {
  const Chunks inputs = family_chunks({0, 1000, 70000});
  Chunks streams, expected;
  for (size_t i = 0; i + 1 < inputs.size(); ++i) {
    Bytes s = zlib_compress(inputs[i], 6, DeflateWrapper::gzip);
    const Bytes second =
        zlib_compress(inputs[i + 1], 1, i % 2 ? DeflateWrapper::zlib : DeflateWrapper::gzip);
    s.insert(s.end(), second.begin(), second.end());
    streams.push_back(s);
    Bytes e = inputs[i];
    e.insert(e.end(), inputs[i + 1].begin(), inputs[i + 1].end());
    expected.push_back(e);
  }
  check_against_serial(streams, test::sizes_of(expected), DeflateWrapper::gzip_or_zlib, true,
                       &expected);
  // As plain gzip, the members with a zlib stream fail like the serial decoder.
  check_against_serial(streams, test::sizes_of(expected), DeflateWrapper::gzip, true);
}

TEST_F(GpuInflate, DistanceCodesLongerThanThePrimaryTable) {
  // Dynamic blocks whose distance codes take 1 to 15 bits (past the 9-bit primary table), from a
  // single block to blocks enough for several block-parallel segments.
  Chunks streams, expected;
  for (const uint32_t blocks : {1u, 12u, 400u}) {
    test::HandMadeDeflate made = test::long_distance_code_stream(blocks, 40);
    streams.push_back(std::move(made.stream));
    expected.push_back(std::move(made.decoded));
  }
  check_against_serial(streams, test::sizes_of(expected), DeflateWrapper::raw, true, &expected);
}

TEST_F(GpuInflate, HostileChunksGetTheSerialStatus) {
  std::mt19937 rng(31);
  for (DeflateWrapper w : kWrappers) {
    Chunks streams;
    std::vector<uint64_t> capacities;
    for (const auto& in : family_chunks({100, 1000, 30000})) {
      const Bytes stream = zlib_compress(in, static_cast<int>(1 + streams.size() % 9), w);
      for (int trial = 0; trial < 40; ++trial) {
        Bytes damaged = stream;
        if (trial % 4 == 0) {
          damaged.resize(rng() % damaged.size());
        } else if (trial % 4 == 3) {
          damaged[damaged.size() - 1 - rng() % std::min<size_t>(8, damaged.size())] ^= 0x20;
        } else {
          for (int k = 0; k <= trial % 4; ++k)
            damaged[rng() % damaged.size()] = static_cast<unsigned char>(rng());
        }
        streams.push_back(damaged);
        capacities.push_back(in.size() + (trial % 7 == 0 ? 50 : 0) -
                             (trial % 5 == 0 ? std::min<size_t>(in.size(), rng() % 10) : 0));
      }
    }
    streams.push_back({});
    capacities.push_back(10);
    for (bool verify : {true, false}) {
      SCOPED_TRACE("wrapper " + std::to_string(static_cast<int>(w)) + " verify " +
                   std::to_string(verify));
      check_against_serial(streams, capacities, w, verify);
    }
  }
}

// Batches of 1024 chunks and more run with 8 warps per thread block (fewer: 1 per block).
TEST_F(GpuInflate, LargeBatchesOfSmallChunks) {
  std::mt19937 rng(41);
  const Chunks inputs = family_chunks({0, 1, 100, 1000, 4096, 20000});
  Chunks streams;
  std::vector<uint64_t> capacities;
  for (size_t i = 0; i < 2100; ++i) {
    const Bytes& in = inputs[i % inputs.size()];
    Bytes s = zlib_compress(in, static_cast<int>(i % 10), DeflateWrapper::gzip);
    if (i % 7 == 3) s[rng() % s.size()] ^= static_cast<unsigned char>(1u << (rng() % 8));
    streams.push_back(std::move(s));
    capacities.push_back(in.size());
  }
  check_against_serial(streams, capacities, DeflateWrapper::gzip, true);
}

TEST_F(GpuInflate, ChecksumsAreVerifiedOnlyWhenAsked) {
  const Chunks inputs = family_chunks({1, 5000, 100000});
  Chunks gzip, zlib;
  for (const auto& in : inputs) {
    gzip.push_back(zlib_compress(in, 6, DeflateWrapper::gzip));
    gzip.back()[gzip.back().size() - 6] ^= 1;  // CRC-32
    zlib.push_back(zlib_compress(in, 6, DeflateWrapper::zlib));
    zlib.back()[zlib.back().size() - 1] ^= 1;  // Adler-32
  }
  for (const auto* streams : {&gzip, &zlib}) {
    const DeflateWrapper w = streams == &gzip ? DeflateWrapper::gzip : DeflateWrapper::zlib;
    // Every chunk offered to the block-parallel path: it checks the checksums itself.
    const uint64_t max_output = 100000;
    test::DeviceMemory temp(gpu::inflate_temp_bytes(inputs.size(), max_output, 0));
    DeviceBatch checked(*streams, test::sizes_of(inputs));
    gpu::inflate_batch(checked.batch(), w, true, max_output, temp.get(), Stream(), 0);
    DeviceBatch unchecked(*streams, test::sizes_of(inputs));
    gpu::inflate_batch(unchecked.batch(), w, false, max_output, temp.get(), Stream(), 0);
    test::cuda_ok(cudaDeviceSynchronize());
    for (size_t i = 0; i < inputs.size(); ++i) {
      EXPECT_EQ(checked.statuses()[i], DeviceChunkStatus::checksum_mismatch) << i;
      ASSERT_EQ(unchecked.statuses()[i], DeviceChunkStatus::ok) << i;
      EXPECT_TRUE(unchecked.output(i) == inputs[i]) << i;
    }
  }
}

}  // namespace
}  // namespace cuzarr
