// GPU tests of the standalone Compressor: device and pinned inputs and outputs round trip through
// every algorithm and bitstream kind (on the GPU for lz4 and blosc, decoded on the GPU for zstd
// and deflate, else staged through pinned memory and executed on the host, and reported so), GPU
// lz4 streams that liblz4 reads and liblz4 streams the GPU reads, corrupt device input, batches
// that mix memory kinds, and device execution where no GPU implementation exists. Every test
// skips with the reason when the machine has no CUDA device.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cuzarr/api/compressor.hpp"
#include "cuzarr/core/error.hpp"
#include "gpu_test.hpp"

namespace cuzarr {
namespace {

class CompressorGpu : public ::cuzarr::test::GpuTest {};

Buffer pattern(size_t size) {
  Buffer buffer = Buffer::allocate(size);
  for (size_t i = 0; i < size; ++i)
    buffer.data()[i] = static_cast<std::byte>((i / 7) % 251 + (i % 3 == 0 ? i % 5 : 0));
  return buffer;
}

// The bytes of a buffer of any kind, through a host copy.
std::vector<std::byte> contents(const Buffer& buffer) {
  const Buffer host =
      buffer.kind() == MemoryKind::device ? buffer.copy_to(MemoryKind::host) : buffer;
  return {host.data(), host.data() + host.size()};
}

TEST_F(CompressorGpu, DeviceDataRoundTripsThroughTheHost) {
  const Buffer host = pattern(300000);
  const Buffer device = host.copy_to(MemoryKind::device);
  for (auto algorithm : available_compression_algorithms()) {
    for (auto bitstream :
         {BitstreamKind::native, BitstreamKind::raw, BitstreamKind::raw_with_size}) {
      SCOPED_TRACE(std::string(compression_algorithm_name(algorithm)) + " " +
                   std::string(bitstream_kind_name(bitstream)));
      CompressorOptions options;
      options.algorithm = algorithm;
      options.bitstream = bitstream;
      options.checksum = ChecksumPolicy::compute_and_verify;
      const Compressor compressor(options);
      const bool on_gpu =
          algorithm == CompressionAlgorithm::lz4 || algorithm == CompressionAlgorithm::blosc;
      // zstd and the deflate family decode on the GPU (deflate streams only from the native
      // bitstream, whose table locates them) and encode on the host.
      const bool deflate_family = algorithm == CompressionAlgorithm::deflate ||
                                  algorithm == CompressionAlgorithm::gzip ||
                                  algorithm == CompressionAlgorithm::zlib;
      const bool decodes_on_gpu = on_gpu || algorithm == CompressionAlgorithm::zstd ||
                                  (deflate_family && bitstream == BitstreamKind::native);
      const CompressResult encoded = compressor.compress(device);
      EXPECT_EQ(encoded.output.kind(), MemoryKind::device);
      EXPECT_EQ(encoded.stats.executed_on, on_gpu ? ExecutedOn::device : ExecutedOn::host);
      EXPECT_EQ(encoded.stats.staged_through_host, !on_gpu);
      // Host execution writes the same bytes from device data as from host data.
      if (!on_gpu) {
        EXPECT_EQ(contents(encoded.output), contents(compressor.compress(host).output));
      }
      DecompressCall call;
      call.uncompressed_size = host.size();
      const DecompressResult decoded = compressor.decompress(encoded.output, call);
      EXPECT_EQ(decoded.output.kind(), MemoryKind::device);
      EXPECT_EQ(decoded.stats.executed_on, decodes_on_gpu ? ExecutedOn::device : ExecutedOn::host);
      EXPECT_EQ(decoded.stats.staged_through_host, !decodes_on_gpu);
      EXPECT_EQ(decoded.stats.checksums_verified, bitstream == BitstreamKind::native);
      EXPECT_EQ(contents(decoded.output), contents(host));
    }
  }
}

TEST_F(CompressorGpu, ZstdChunksAboveOneBlockDecodeOnTheGpu) {
  // Chunks of 1 MiB take the block-parallel path of the GPU zstd decoder.
  CompressorOptions options;
  options.algorithm = CompressionAlgorithm::zstd;
  options.chunk_size = size_t{1} << 20;
  options.checksum = ChecksumPolicy::compute_and_verify;
  const Compressor compressor(options);
  const Buffer host = pattern(3 * options.chunk_size + 12345);
  const CompressResult encoded = compressor.compress(host);
  DecompressCall call;
  call.uncompressed_size = host.size();
  call.output_kind = MemoryKind::device;
  const DecompressResult decoded =
      compressor.decompress(encoded.output.copy_to(MemoryKind::device), call);
  EXPECT_EQ(decoded.stats.executed_on, ExecutedOn::device);
  EXPECT_FALSE(decoded.stats.staged_through_host);
  EXPECT_EQ(contents(decoded.output), contents(host));
}

TEST_F(CompressorGpu, OutputKindIsChosenPerCall) {
  const Buffer host = pattern(100000);
  const Compressor compressor;
  CompressCall to_device;
  to_device.output_kind = MemoryKind::device;
  to_device.stream = Stream::create();
  const CompressResult encoded = compressor.compress(host, to_device);
  EXPECT_EQ(encoded.output.kind(), MemoryKind::device);
  EXPECT_TRUE(encoded.stats.staged_through_host);
  DecompressCall to_pinned;
  to_pinned.output_kind = MemoryKind::pinned;
  const DecompressResult decoded = compressor.decompress(encoded.output, to_pinned);
  EXPECT_EQ(decoded.output.kind(), MemoryKind::pinned);
  EXPECT_EQ(contents(decoded.output), contents(host));
  DecompressCall to_host;
  to_host.output_kind = MemoryKind::host;
  EXPECT_EQ(compressor.decompress(encoded.output, to_host).output.kind(), MemoryKind::host);
}

TEST_F(CompressorGpu, BatchesMixMemoryKinds) {
  const std::vector<Buffer> inputs{pattern(5000), pattern(70000).copy_to(MemoryKind::device),
                                   pattern(0).copy_to(MemoryKind::pinned),
                                   pattern(1).copy_to(MemoryKind::device)};
  const Compressor compressor;
  const auto encoded = compressor.compress(inputs);
  std::vector<Buffer> streams;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(encoded[i].output.kind(), inputs[i].kind()) << i;
    EXPECT_EQ(encoded[i].stats.staged_through_host, inputs[i].kind() == MemoryKind::device) << i;
    streams.push_back(encoded[i].output);
  }
  const auto decoded = compressor.decompress(streams);
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(decoded[i].output.kind(), inputs[i].kind()) << i;
    EXPECT_EQ(contents(decoded[i].output), contents(inputs[i])) << i;
  }
}

TEST_F(CompressorGpu, DeviceExecutionNeedsAGpuImplementation) {
  CompressorOptions options;
  options.algorithm = CompressionAlgorithm::zstd;
  options.execution = ExecutionTarget::device;
  const Buffer device = pattern(1000).copy_to(MemoryKind::device);
  try {
    Compressor(options).compress(device);
    FAIL() << "device execution without a GPU implementation did not throw";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU implementation"), std::string::npos) << e.what();
  }
  // automatic falls back to the host and says so.
  options.execution = ExecutionTarget::automatic;
  EXPECT_EQ(Compressor(options).compress(device).stats.executed_on, ExecutedOn::host);

  // The GPU lz4 encoder has one level: LZ4-HC levels stay on the host.
  options.algorithm = CompressionAlgorithm::lz4;
  options.level = 9;
  const CompressResult hc = Compressor(options).compress(device);
  EXPECT_EQ(hc.stats.executed_on, ExecutedOn::host);
  options.execution = ExecutionTarget::device;
  try {
    Compressor(options).compress(device);
    FAIL() << "device execution of lz4 level 9 did not throw";
  } catch (const UnsupportedError& e) {
    EXPECT_NE(std::string(e.what()).find("level 9"), std::string::npos) << e.what();
  }
  // Decoding has no levels: the HC stream decodes on the GPU.
  const DecompressResult decoded = Compressor(options).decompress(hc.output);
  EXPECT_EQ(decoded.stats.executed_on, ExecutedOn::device);
  EXPECT_EQ(contents(decoded.output), contents(pattern(1000)));
}

// GPU lz4 and blosc against liblz4 and c-blosc (the host backends), both ways, over chunk sizes
// that leave a short last chunk, an empty buffer and a one-byte buffer.
TEST_F(CompressorGpu, GpuStreamsAreReferenceLibraryStreams) {
  std::vector<CompressionAlgorithm> algorithms{CompressionAlgorithm::lz4};
  if (compression_algorithm_available(CompressionAlgorithm::blosc)) {
    algorithms.push_back(CompressionAlgorithm::blosc);
  } else {
    std::cout << "NOTE: blosc rows skipped: this build has no c-blosc\n";
  }
  for (const auto algorithm : algorithms)
    for (const size_t chunk_size : {size_t{4096}, size_t{65536}}) {
      for (const size_t size : {size_t{0}, size_t{1}, size_t{4096}, size_t{1000003}}) {
        for (auto bitstream :
             {BitstreamKind::native, BitstreamKind::raw, BitstreamKind::raw_with_size}) {
          SCOPED_TRACE(fmt::format("{} chunk {} size {} {}", compression_algorithm_name(algorithm),
                                   chunk_size, size, bitstream_kind_name(bitstream)));
          CompressorOptions gpu;
          gpu.algorithm = algorithm;
          gpu.blosc.typesize = 2;
          gpu.chunk_size = chunk_size;
          gpu.bitstream = bitstream;
          gpu.checksum = ChecksumPolicy::compute_and_verify;
          gpu.execution = ExecutionTarget::device;
          CompressorOptions cpu = gpu;
          cpu.execution = ExecutionTarget::host;
          const Buffer host = pattern(size);
          DecompressCall call;
          call.uncompressed_size = size;

          // Host data, device execution: copied to the device, compressed there, output on the
          // host.
          const CompressResult from_gpu = Compressor(gpu).compress(host);
          EXPECT_EQ(from_gpu.stats.executed_on, ExecutedOn::device);
          EXPECT_EQ(from_gpu.output.kind(), MemoryKind::host);
          const DecompressResult by_library = Compressor(cpu).decompress(from_gpu.output, call);
          EXPECT_EQ(by_library.stats.executed_on, ExecutedOn::host);
          EXPECT_EQ(contents(by_library.output), contents(host));

          const CompressResult from_library = Compressor(cpu).compress(host);
          DecompressCall to_device = call;
          to_device.output_kind = MemoryKind::device;
          const DecompressResult by_gpu = Compressor(gpu).decompress(
              from_library.output.copy_to(MemoryKind::device), to_device);
          EXPECT_EQ(by_gpu.stats.executed_on, ExecutedOn::device);
          EXPECT_FALSE(by_gpu.stats.staged_through_host);
          EXPECT_EQ(contents(by_gpu.output), contents(host));
        }
      }
    }
}

// Blosc chunks whose blocks the lz4-family kernel does not decode (zstd inside) still decode for
// device data: on the GPU as inner streams, in a second pass over those chunks. Options with such
// an inner codec compress on the host.
TEST_F(CompressorGpu, BloscWithZstdBlocksDecodesOnTheDeviceInASecondPass) {
  if (!compression_algorithm_available(CompressionAlgorithm::blosc))
    GTEST_SKIP() << "this build has no c-blosc";
  CompressorOptions options;
  options.algorithm = CompressionAlgorithm::blosc;
  options.blosc.cname = "zstd";
  options.chunk_size = 32768;
  options.checksum = ChecksumPolicy::compute_and_verify;
  const Buffer original = pattern(200000);
  const Buffer device = original.copy_to(MemoryKind::device);
  const CompressResult encoded = Compressor(options).compress(device);
  EXPECT_EQ(encoded.stats.executed_on, ExecutedOn::host);
  const DecompressResult decoded = Compressor(options).decompress(encoded.output);
  EXPECT_EQ(decoded.stats.executed_on, ExecutedOn::device);
  EXPECT_EQ(contents(decoded.output), contents(original));
}

TEST_F(CompressorGpu, GpuLz4BatchesSeveralBuffers) {
  CompressorOptions options;
  options.algorithm = CompressionAlgorithm::lz4;
  options.chunk_size = 8192;
  options.checksum = ChecksumPolicy::compute_and_verify;
  const Compressor compressor(options);
  std::vector<Buffer> inputs;
  for (size_t size : {size_t{100000}, size_t{3}, size_t{0}, size_t{65536}})
    inputs.push_back(pattern(size).copy_to(MemoryKind::device));
  const auto encoded = compressor.compress(inputs);
  std::vector<Buffer> streams;
  for (const auto& result : encoded) {
    EXPECT_EQ(result.stats.executed_on, ExecutedOn::device);
    streams.push_back(result.output);
  }
  const auto decoded = compressor.decompress(streams);
  for (size_t i = 0; i < inputs.size(); ++i)
    EXPECT_EQ(contents(decoded[i].output), contents(inputs[i])) << i;
}

TEST_F(CompressorGpu, CorruptGpuLz4StreamsAreCorruptData) {
  CompressorOptions options;
  options.algorithm = CompressionAlgorithm::lz4;
  options.chunk_size = 16384;
  options.checksum = ChecksumPolicy::none;
  const Compressor compressor(options);
  const Buffer original = pattern(100000);
  const Buffer stream = compressor.compress(original).output;
  // Without checksums, damaged streams reach the GPU decoder: it must refuse them (or, where the
  // damage leaves a valid block, decode to other bytes), never crash. A hostile length in the
  // first token makes the block run past its input.
  size_t refused = 0;
  for (size_t position = 100; position < stream.size(); position += 977) {
    Buffer damaged = stream.copy_to(MemoryKind::host);
    damaged.data()[position] ^= std::byte{0xFF};
    try {
      const DecompressResult result = compressor.decompress(damaged.copy_to(MemoryKind::device));
      EXPECT_EQ(result.stats.executed_on, ExecutedOn::device);
    } catch (const CorruptDataError& e) {
      ++refused;
      EXPECT_NE(std::string(e.what()).find("chunk"), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(refused, 0u);
}

TEST_F(CompressorGpu, CorruptDeviceInputIsCorruptData) {
  CompressorOptions verify;
  verify.checksum = ChecksumPolicy::compute_and_verify;
  const Buffer checked = Compressor(verify).compress(pattern(200000)).output;
  Buffer corrupt = checked.copy_to(MemoryKind::host);
  corrupt.data()[corrupt.size() - 5] ^= std::byte{0x01};
  EXPECT_THROW(Compressor(verify).decompress(corrupt.copy_to(MemoryKind::device)),
               CorruptDataError);
}

}  // namespace
}  // namespace cuzarr
