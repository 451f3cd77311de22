// GPU tests of the standalone Compressor: device and pinned inputs and outputs round trip through
// every algorithm and bitstream kind (staged through pinned memory, executed on the host, and
// reported so), batches that mix memory kinds, and device execution while no GPU implementation
// exists. Every test skips with the reason when the machine has no CUDA device.
#include <cuda_runtime_api.h>
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
      const CompressResult encoded = compressor.compress(device);
      EXPECT_EQ(encoded.output.kind(), MemoryKind::device);
      EXPECT_EQ(encoded.stats.executed_on, ExecutedOn::host);
      EXPECT_TRUE(encoded.stats.staged_through_host);
      // The device bytes equal what the host path writes.
      EXPECT_EQ(contents(encoded.output), contents(compressor.compress(host).output));
      DecompressCall call;
      call.uncompressed_size = host.size();
      const DecompressResult decoded = compressor.decompress(encoded.output, call);
      EXPECT_EQ(decoded.output.kind(), MemoryKind::device);
      EXPECT_TRUE(decoded.stats.staged_through_host);
      EXPECT_EQ(contents(decoded.output), contents(host));
    }
  }
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

TEST_F(CompressorGpu, DeviceExecutionWaitsForGpuImplementations) {
  CompressorOptions options;
  options.algorithm = CompressionAlgorithm::lz4;
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
