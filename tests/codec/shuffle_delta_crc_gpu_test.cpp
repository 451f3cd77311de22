// GPU shuffle, bit shuffle, delta and crc32c kernels against their CPU references (the serial
// functions of the format headers, themselves checked against numcodecs / c-blosc / cuzarr::crc32c
// in the CPU tests), byte for byte, over every input family; plus the status of bad sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "codec/cuda/bitshuffle_format.hpp"
#include "codec/cuda/crc32c_kernels.hpp"
#include "codec/cuda/delta_kernels.hpp"
#include "codec/cuda/shuffle_format.hpp"
#include "codec/cuda/shuffle_kernels.hpp"
#include "cuzarr/codec/crc32c.hpp"
#include "gpu_batch_support.hpp"
#include "gpu_codec_inputs.hpp"

namespace cuzarr {
namespace {

using gpu::DeviceChunkStatus;
using test::DeviceBatch;
using Chunks = std::vector<std::vector<unsigned char>>;

class GpuShuffle : public test::GpuCodecTest {};
class GpuDelta : public test::GpuCodecTest {};
class GpuCrc32c : public test::GpuCodecTest {};

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

using Launcher = void (*)(const gpu::DeviceChunkBatch&, uint32_t, Stream);
using Reference = void (*)(const unsigned char*, unsigned char*, uint64_t, uint32_t);

void check_shuffle(Launcher launcher, Reference reference, const Chunks& chunks, uint32_t typesize,
                   size_t misalign = 0) {
  DeviceBatch batch(chunks, test::sizes_of(chunks), misalign);
  launcher(batch.batch(), typesize, Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  const auto statuses = batch.statuses();
  for (size_t i = 0; i < chunks.size(); ++i) {
    ASSERT_EQ(statuses[i], DeviceChunkStatus::ok) << i;
    std::vector<unsigned char> expected(chunks[i].size());
    reference(chunks[i].data(), expected.data(), expected.size(), typesize);
    ASSERT_EQ(batch.output(i), expected)
        << "chunk " << i << " (" << chunks[i].size() << " bytes), typesize " << typesize;
  }
}

TEST_F(GpuShuffle, ByteShuffleMatchesTheReference) {
  // Every size aligned; up to 1 MiB also misaligned (the kernels' byte paths).
  const Chunks chunks = family_chunks(gpu_sizes());
  const Chunks small = family_chunks(test::small_sizes());
  for (uint32_t typesize : {1u, 2u, 3u, 4u, 8u, 16u, 255u, 5000u}) {
    for (size_t misalign : {size_t{0}, size_t{1}, size_t{2}}) {
      const Chunks& these = misalign == 0 ? chunks : small;
      check_shuffle(gpu::shuffle_batch, gpu::shuffle_bytes, these, typesize, misalign);
      check_shuffle(gpu::unshuffle_batch, gpu::unshuffle_bytes, these, typesize, misalign);
    }
  }
}

TEST_F(GpuShuffle, BitShuffleMatchesTheReference) {
  const Chunks chunks = family_chunks(gpu_sizes());
  const Chunks small = family_chunks(test::small_sizes());
  for (uint32_t typesize : {1u, 2u, 4u, 8u, 12u}) {
    for (size_t misalign : {size_t{0}, size_t{3}}) {
      const Chunks& these = misalign == 0 ? chunks : small;
      check_shuffle(gpu::bitshuffle_batch, gpu::bitshuffle_bytes, these, typesize, misalign);
      check_shuffle(gpu::bitunshuffle_batch, gpu::bitunshuffle_bytes, these, typesize, misalign);
    }
  }
}

// The staged kernels of element sizes 1, 2, 4 and 8: warp steps of 1024 elements cut short at the
// end (element counts a multiple of 8 but not of 32 or 1024, so bit-rows are not word multiples),
// leftover bytes, a batch of one huge chunk spread over many warps, and buffers aligned to 4 but
// not to 8 or 16.
TEST_F(GpuShuffle, StagedBitShuffleMatchesTheReferenceAtStepEdges) {
  for (uint32_t typesize : {1u, 2u, 4u, 8u}) {
    Chunks chunks;
    uint32_t seed = 100;
    for (size_t elements : {8, 24, 32, 1016, 1024, 1032, 2056, 4096 * 8 + 40, 1 << 20}) {
      for (size_t extra : {size_t{0}, size_t{typesize - 1}}) {
        chunks.push_back(test::random_input(elements * typesize + extra, seed++));
        chunks.push_back(test::runs_input(elements * typesize + extra, seed++));
      }
    }
    for (size_t misalign : {size_t{0}, size_t{4}, size_t{12}}) {
      check_shuffle(gpu::bitshuffle_batch, gpu::bitshuffle_bytes, chunks, typesize, misalign);
      check_shuffle(gpu::bitunshuffle_batch, gpu::bitunshuffle_bytes, chunks, typesize, misalign);
    }
    const Chunks one_huge = {test::random_input((size_t{24} << 20) + 8 * typesize, seed++)};
    check_shuffle(gpu::bitshuffle_batch, gpu::bitshuffle_bytes, one_huge, typesize);
    check_shuffle(gpu::bitunshuffle_batch, gpu::bitunshuffle_bytes, one_huge, typesize);
  }
}

TEST_F(GpuShuffle, TooSmallOutputIsReported) {
  const Chunks chunks = {test::random_input(1000, 1)};
  DeviceBatch batch(chunks, {999});
  gpu::unshuffle_batch(batch.batch(), 4, Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  EXPECT_EQ(batch.statuses()[0], DeviceChunkStatus::output_too_small);
}

TEST_F(GpuDelta, EncodeAndDecodeMatchTheReferenceForEveryType) {
  for (int t = 0; t <= static_cast<int>(gpu::DeltaType::float64); ++t) {
    const auto type = static_cast<gpu::DeltaType>(t);
    const uint32_t size = gpu::delta_type_size(type);
    Chunks chunks;
    for (auto& c : family_chunks({0, 8, 64, 1000, 65536, 1 << 20, 8 << 20})) {
      // Random bytes hold NaNs with payloads: the kernels keep them as x86's arithmetic does.
      c.resize(c.size() / size * size);
      chunks.push_back(std::move(c));
    }
    // Aligned, 4-aligned and byte-misaligned buffers; decode without scratch (one block per
    // integer chunk) and with it (32 KiB ranges that look back over the ranges before them).
    for (size_t misalign : {size_t{0}, size_t{4}, size_t{3}}) {
      DeviceBatch encode(chunks, test::sizes_of(chunks), misalign);
      gpu::delta_encode_batch(encode.batch(), type, Stream());
      DeviceBatch decode(chunks, test::sizes_of(chunks), misalign);
      gpu::delta_decode_batch(decode.batch(), type, Stream());
      DeviceBatch decode_parts(chunks, test::sizes_of(chunks), misalign);
      const uint64_t largest = test::largest_size(chunks);
      test::DeviceMemory temp(gpu::delta_decode_temp_bytes(chunks.size(), largest));
      gpu::delta_decode_batch(decode_parts.batch(), type, largest, temp.get(), Stream());
      test::cuda_ok(cudaDeviceSynchronize());
      for (size_t i = 0; i < chunks.size(); ++i) {
        const uint64_t n = chunks[i].size() / size;
        std::vector<unsigned char> expected(chunks[i].size());
        gpu::delta_encode_serial(chunks[i].data(), expected.data(), n, type);
        ASSERT_EQ(encode.output(i), expected)
            << "encode type " << t << " chunk " << i << " misalign " << misalign;
        gpu::delta_decode_serial(chunks[i].data(), expected.data(), n, type);
        ASSERT_EQ(decode.output(i), expected)
            << "decode type " << t << " chunk " << i << " misalign " << misalign;
        ASSERT_EQ(decode_parts.output(i), expected)
            << "decode with scratch, type " << t << " chunk " << i << " misalign " << misalign;
      }
    }
  }
}

// A batch of one 24 MiB chunk, split as the decode with scratch splits it: into 769 ranges of
// 32 KiB that look back over the ones before them (the chunk's size given), into 49 ranges of
// about 500 KiB (a sixteenth of it given: each block adds up its range, looks back, then reads
// it again to scan it), and into one range (no size given). Integer types are exact in any split;
// floats go through the speculative scan.
TEST_F(GpuDelta, OneHugeChunkDecodesLikeTheSerialSum) {
  const Chunks chunks = {test::smooth_uint16_input((size_t{24} << 20) + 8, 5)};
  const uint64_t size = chunks[0].size();
  for (auto type : {gpu::DeltaType::uint8, gpu::DeltaType::int16, gpu::DeltaType::uint32,
                    gpu::DeltaType::int64, gpu::DeltaType::float32, gpu::DeltaType::float64}) {
    std::vector<unsigned char> expected(size);
    gpu::delta_decode_serial(chunks[0].data(), expected.data(), size / gpu::delta_type_size(type),
                             type);
    for (uint64_t split_for : {size, size / 16, uint64_t{0}}) {
      DeviceBatch decode(chunks, test::sizes_of(chunks));
      test::DeviceMemory temp(gpu::delta_decode_temp_bytes(1, split_for));
      gpu::delta_decode_batch(decode.batch(), type, split_for, temp.get(), Stream());
      test::cuda_ok(cudaDeviceSynchronize());
      ASSERT_EQ(decode.statuses()[0], DeviceChunkStatus::ok);
      ASSERT_EQ(decode.output(0), expected)
          << "type " << static_cast<int>(type) << " split for " << split_for << " bytes";
    }
  }
}

// The split rule: one range a chunk for batches that fill the GPU alone, else 32 KiB ranges; and
// a split forced to an odd number of ranges decodes alike.
TEST_F(GpuDelta, RangesPerChunkFollowTheBatch) {
  EXPECT_EQ(gpu::delta_decode_parts(gpu::kDeltaFillChunks, size_t{4} << 20), 1u);
  EXPECT_EQ(gpu::delta_decode_parts(256, size_t{4} << 20), 128u);
  EXPECT_EQ(gpu::delta_decode_parts(1, (size_t{32} << 10) + 1), 2u);
  EXPECT_EQ(gpu::delta_decode_parts(1, 0), 1u);
  const Chunks chunks = {test::smooth_uint16_input((size_t{1} << 20) + 8, 3),
                         test::smooth_uint16_input(size_t{700} << 10, 4)};
  for (auto type : {gpu::DeltaType::uint16, gpu::DeltaType::float32}) {
    for (uint32_t parts : {1u, 3u, 37u}) {
      DeviceBatch decode(chunks, test::sizes_of(chunks));
      test::DeviceMemory temp(gpu::delta_decode_temp_bytes_in_parts(chunks.size(), parts));
      gpu::delta_decode_batch_in_parts(decode.batch(), type, parts, temp.get(), Stream());
      test::cuda_ok(cudaDeviceSynchronize());
      for (size_t i = 0; i < chunks.size(); ++i) {
        std::vector<unsigned char> expected(chunks[i].size());
        gpu::delta_decode_serial(chunks[i].data(), expected.data(),
                                 chunks[i].size() / gpu::delta_type_size(type), type);
        ASSERT_EQ(decode.output(i), expected)
            << "type " << static_cast<int>(type) << " parts " << parts << " chunk " << i;
      }
    }
  }
}

// Batches of chunks of many sizes under one split (the largest chunk's): chunks shorter than the
// largest leave their later ranges empty, and invalid chunks (a size not a multiple of the element,
// an output too small) report their status while the others decode.
TEST_F(GpuDelta, MixedSizesAndInvalidChunksShareOneSplit) {
  for (auto type : {gpu::DeltaType::int32, gpu::DeltaType::float32}) {
    Chunks chunks;
    for (size_t size : {size_t{4} << 20, size_t{12}, size_t{8192}, size_t{8196}, size_t{1} << 20,
                        size_t{0}, size_t{3} << 20}) {
      chunks.push_back(test::smooth_uint16_input(size, static_cast<uint32_t>(size)));
    }
    chunks.push_back(test::random_input(4098, 7));   // not a multiple of 4
    chunks.push_back(test::random_input(65536, 8));  // its output capacity is 4 bytes short
    std::vector<uint64_t> capacities = test::sizes_of(chunks);
    capacities.back() -= 4;
    DeviceBatch decode(chunks, capacities);
    const uint64_t largest = test::largest_size(chunks);
    test::DeviceMemory temp(gpu::delta_decode_temp_bytes(chunks.size(), largest));
    gpu::delta_decode_batch(decode.batch(), type, largest, temp.get(), Stream());
    test::cuda_ok(cudaDeviceSynchronize());
    for (size_t i = 0; i + 2 < chunks.size(); ++i) {
      ASSERT_EQ(decode.statuses()[i], DeviceChunkStatus::ok) << i;
      std::vector<unsigned char> expected(chunks[i].size());
      gpu::delta_decode_serial(chunks[i].data(), expected.data(), chunks[i].size() / 4, type);
      ASSERT_EQ(decode.output(i), expected) << "type " << static_cast<int>(type) << " chunk " << i;
    }
    EXPECT_EQ(decode.statuses()[chunks.size() - 2], DeviceChunkStatus::corrupt_input);
    EXPECT_EQ(decode.statuses()[chunks.size() - 1], DeviceChunkStatus::output_too_small);
  }
}

// The elements of a smooth float field (a few slow waves plus a slope), as float32 or float64
// bytes; `breaks` positions get a jump of the opposite sign and a far larger magnitude, where the
// differences round and numpy's running sum drifts from the field.
std::vector<unsigned char> float_field(size_t count, bool is_double, uint32_t seed,
                                       const std::vector<size_t>& breaks = {}) {
  std::vector<unsigned char> bytes(count * (is_double ? 8 : 4));
  for (size_t k = 0; k < count; ++k) {
    double v = 100.0 + 40.0 * std::sin(static_cast<double>(k) * 1e-4 + seed) +
               3.0 * std::sin(static_cast<double>(k) * 0.0171) + static_cast<double>(k) * 1e-5;
    for (size_t b : breaks) {
      if (k >= b && k < b + 3) v = -v * 1e7 + 0.3;
    }
    if (is_double) {
      std::memcpy(&bytes[k * 8], &v, 8);
    } else {
      const auto f = static_cast<float>(v);
      std::memcpy(&bytes[k * 4], &f, 4);
    }
  }
  return bytes;
}

// The speculative float decode (a wide parallel scan checked against numpy's steps) gives the
// serial running sum bit for bit: on smooth fields, where every check holds; on fields whose
// differences round at a few places (before, at and after the boundaries of the 8 KiB tiles and
// the 32 KiB ranges that split a chunk), where the serial decode takes over from there; in
// batches of one chunk (split into 128 ranges, or into 8 ranges read twice) and of many.
TEST_F(GpuDelta, SpeculativeFloatDecodeEqualsTheSerialSum) {
  for (bool is_double : {false, true}) {
    SCOPED_TRACE(is_double ? "float64" : "float32");
    const auto type = is_double ? gpu::DeltaType::float64 : gpu::DeltaType::float32;
    const size_t size = is_double ? 8 : 4;
    const size_t big = (size_t{4} << 20) / size;  // a 4 MiB chunk
    const size_t tile = 8192 / size;              // the elements of a tile
    std::vector<Chunks> batches;
    batches.push_back({float_field(big, is_double, 1)});
    batches.push_back(
        {float_field(big, is_double, 2, {5, tile - 1, tile, 16 * tile - 2, big / 2 + 7})});
    batches.push_back({float_field(big + 3, is_double, 3, {big - 2})});
    Chunks many;
    for (uint32_t i = 0; i < 40; ++i) {
      const size_t count = (size_t{1} << 14) + i * 1000 + i % 3;
      many.push_back(i % 4 == 1 ? float_field(count, is_double, i, {count / 3})
                                : float_field(count, is_double, i));
    }
    batches.push_back(std::move(many));
    for (size_t t = 0; t < batches.size(); ++t) {
      SCOPED_TRACE(t);
      // The stored chunks: numpy's delta encoding of the fields.
      Chunks encoded;
      for (const auto& field : batches[t]) {
        std::vector<unsigned char> e(field.size());
        gpu::delta_encode_serial(field.data(), e.data(), field.size() / size, type);
        encoded.push_back(std::move(e));
      }
      const uint64_t largest = test::largest_size(encoded);
      for (size_t misalign : {size_t{0}, size_t{4}}) {
        for (uint64_t split_for : {largest, largest / 16}) {
          DeviceBatch decode(encoded, test::sizes_of(encoded), misalign);
          test::DeviceMemory temp(gpu::delta_decode_temp_bytes(encoded.size(), split_for));
          gpu::delta_decode_batch(decode.batch(), type, split_for, temp.get(), Stream());
          test::cuda_ok(cudaDeviceSynchronize());
          for (size_t i = 0; i < encoded.size(); ++i) {
            ASSERT_EQ(decode.statuses()[i], DeviceChunkStatus::ok);
            std::vector<unsigned char> expected(encoded[i].size());
            gpu::delta_decode_serial(encoded[i].data(), expected.data(), encoded[i].size() / size,
                                     type);
            ASSERT_EQ(decode.output(i), expected)
                << "chunk " << i << " misalign " << misalign << " split for " << split_for;
          }
        }
      }
    }
  }
}

TEST_F(GpuDelta, SizeNotAMultipleOfTheElementIsCorrupt) {
  const Chunks chunks = {test::random_input(10, 1)};
  DeviceBatch batch(chunks, {10});
  gpu::delta_decode_batch(batch.batch(), gpu::DeltaType::int32, Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  EXPECT_EQ(batch.statuses()[0], DeviceChunkStatus::corrupt_input);
}

uint32_t cpu_crc(const std::vector<unsigned char>& v) {
  return crc32c(std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data()), v.size()));
}

TEST_F(GpuCrc32c, ComputeMatchesTheCpu) {
  Chunks chunks = family_chunks(gpu_sizes());
  chunks.push_back(test::random_input(64 << 20, 9));
  for (size_t misalign : {size_t{0}, size_t{5}}) {
    DeviceBatch batch(chunks, test::sizes_of(chunks), misalign);
    test::DeviceMemory crcs(chunks.size() * 4);
    gpu::crc32c_batch(batch.batch().inputs, batch.batch().input_sizes, chunks.size(),
                      crcs.as<uint32_t>(), Stream());
    std::vector<uint32_t> got(chunks.size());
    test::cuda_ok(cudaMemcpy(got.data(), crcs.get(), got.size() * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < chunks.size(); ++i) {
      EXPECT_EQ(got[i], cpu_crc(chunks[i]))
          << "chunk " << i << " (" << chunks[i].size() << " bytes), misaligned by " << misalign;
    }
  }
}

TEST_F(GpuCrc32c, EncodeThenDecodeRoundTripsAndDetectsCorruption) {
  const Chunks chunks = family_chunks({0, 1, 7, 300, 65536, 1 << 20, 5000003});
  DeviceBatch encode(chunks, test::sizes_of(chunks, 4));
  test::DeviceMemory temp(gpu::crc32c_codec_temp_bytes(chunks.size()));
  gpu::crc32c_encode_batch(encode.batch(), temp.get(), Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  Chunks encoded;
  for (size_t i = 0; i < chunks.size(); ++i) {
    ASSERT_EQ(encode.statuses()[i], DeviceChunkStatus::ok);
    std::vector<unsigned char> expected = chunks[i];
    const uint32_t crc = cpu_crc(chunks[i]);
    for (int b = 0; b < 4; ++b) expected.push_back(static_cast<unsigned char>(crc >> (8 * b)));
    ASSERT_EQ(encode.output(i), expected) << i;
    encoded.push_back(expected);
  }
  // Flip one bit in every other chunk; the short chunk at the end is corrupt.
  Chunks damaged = encoded;
  for (size_t i = 0; i < damaged.size(); i += 2) damaged[i][damaged[i].size() / 2] ^= 0x10;
  damaged.push_back({1, 2, 3});
  std::vector<uint64_t> capacities;
  for (const auto& d : damaged) capacities.push_back(d.size() >= 4 ? d.size() - 4 : 0);
  DeviceBatch decode(damaged, capacities);
  test::DeviceMemory decode_temp(gpu::crc32c_codec_temp_bytes(damaged.size()));
  gpu::crc32c_decode_batch(decode.batch(), decode_temp.get(), Stream());
  test::cuda_ok(cudaDeviceSynchronize());
  const auto statuses = decode.statuses();
  for (size_t i = 0; i < encoded.size(); ++i) {
    EXPECT_EQ(statuses[i],
              i % 2 == 0 ? DeviceChunkStatus::checksum_mismatch : DeviceChunkStatus::ok)
        << i;
    if (i % 2 == 1) {
      EXPECT_EQ(decode.output(i), chunks[i]) << i;
    }
  }
  EXPECT_EQ(statuses.back(), DeviceChunkStatus::corrupt_input);
}

// Many small chunks (the resident blocks loop over thousands of work items) and buffers that are
// 4- but not 16-byte aligned (the byte path), through the codec's encode and decode.
TEST_F(GpuCrc32c, ManySmallChunksAndMisalignedBuffersRoundTrip) {
  Chunks chunks;
  for (uint32_t i = 0; i < 3000; ++i) {
    chunks.push_back(test::random_input(i % 7 == 0 ? 65536 + 4 * (i % 5) : 65536, i));
  }
  for (size_t misalign : {size_t{0}, size_t{4}}) {
    DeviceBatch encode(chunks, test::sizes_of(chunks, 4), misalign);
    test::DeviceMemory temp(gpu::crc32c_codec_temp_bytes(chunks.size()));
    gpu::crc32c_encode_batch(encode.batch(), temp.get(), Stream());
    test::cuda_ok(cudaDeviceSynchronize());
    Chunks encoded;
    for (size_t i = 0; i < chunks.size(); ++i) {
      ASSERT_EQ(encode.statuses()[i], DeviceChunkStatus::ok) << i;
      encoded.push_back(encode.output(i));
      const uint32_t crc = cpu_crc(chunks[i]);
      ASSERT_EQ(encoded.back().size(), chunks[i].size() + 4);
      ASSERT_EQ(std::memcmp(encoded.back().data() + chunks[i].size(), &crc, 4), 0) << i;
    }
    DeviceBatch decode(encoded, test::sizes_of(chunks), misalign);
    gpu::crc32c_decode_batch(decode.batch(), temp.get(), Stream());
    test::cuda_ok(cudaDeviceSynchronize());
    for (size_t i = 0; i < chunks.size(); ++i) {
      ASSERT_EQ(decode.statuses()[i], DeviceChunkStatus::ok) << i << " misalign " << misalign;
      ASSERT_EQ(decode.output(i), chunks[i]) << i << " misalign " << misalign;
    }
  }
}

}  // namespace
}  // namespace cuzarr
